import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import parsePrometheus from 'parse-prometheus-text-format';
import { type TestDatabase, testDatabases } from '../../../../test/helpers/databases.ts';
import { issueOne, PASS_SUBJECT, registerType } from '../../../../test/helpers/issuance.ts';
import { signedInOperator } from '../../../../test/helpers/operators.ts';
import { owner, railOn, stopRail, type TestRail } from '../../../../test/helpers/rail.ts';

const METRICS_TOKEN = 'metrics-scraper-token-0123456789abcdefghij';

type Family = { name: string; type: string; metrics: Array<{ value?: string; labels?: Record<string, string> }> };

/** The sum of a counter's samples whose labels include `labels`. */
function counted(families: Family[], name: string, labels: Record<string, string> = {}): number {
  const family = families.find((f) => f.name === name);
  return (family?.metrics ?? [])
    .filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
    .reduce((sum, m) => sum + Number(m.value ?? 0), 0);
}

for (const factory of testDatabases()) {
  describe(`operations: health, keys, status lists, metrics (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let ops: { authorization: string };
    let auditor: { authorization: string };
    const get = (url: string, headers = ops) => rail.app.inject({ method: 'GET', url: `/api/admin/ops${url}`, headers });
    const post = (url: string, payload: unknown, headers = ops) =>
      rail.app.inject({ method: 'POST', url: `/api/admin/ops${url}`, headers, payload: payload as Record<string, unknown> });

    before(async () => {
      ({ db, rail } = await railOn(factory, { OPENRAIL_METRICS_TOKEN: METRICS_TOKEN, OPENRAIL_DEMO: 'off' }, undefined, {
        runJobs: false,
      }));
      ops = await signedInOperator(rail.app, 'on-call', ['ops']);
      auditor = await signedInOperator(rail.app, 'auditor', ['auditor']);
      const made = await rail.app.inject({ method: 'POST', url: '/api/tenants', headers: owner, payload: { name: 'Alpha' } });
      assert.equal(made.statusCode, 201, made.body);
      await registerType(rail.app, 'alpha', 'pass');
    });
    after(() => stopRail(rail, db));

    test('health names every component with its state and numbers, and a job that died mid-run degrades it', async () => {
      const healthy = await get('/health');
      assert.equal(healthy.statusCode, 200, healthy.body);
      const h = healthy.json();
      assert.deepEqual(Object.keys(h.components).sort(), ['database', 'disk', 'jobs', 'keys', 'mail', 'webhooks']);
      assert.deepEqual(
        [h.components.keys.state, h.components.keys.backend, h.components.keys.loggedIn, h.components.keys.missing],
        ['ok', 'sealed', true, []],
      );
      assert.ok(h.components.keys.activeKeys >= 2, 'the platform’s keys and alpha’s');
      assert.equal(h.components.database.engine, factory.name);
      assert.equal(typeof h.components.database.latencyMs, 'number');
      assert.ok(h.components.disk.freeBytes > 0);
      assert.equal(h.components.disk.walBytes === null, factory.name === 'postgres');
      assert.equal(h.components.mail.transport, 'outbox');
      assert.equal(h.components.jobs.state, 'ok');

      await rail.db
        .insertInto('job_leases')
        .values({
          name: 'probe.job',
          holder: 'gone:1:x',
          lease_until: Date.now() - 1000,
          started_at: Date.now() - 5000,
          finished_at: null,
          last_error: null,
        })
        .execute();
      const after = (await get('/health')).json();
      assert.equal(after.components.jobs.state, 'degraded');
      assert.deepEqual(after.components.jobs.stale, ['probe.job']);
      assert.match(after.components.jobs.note, /probe\.job stopped mid-run/);
      assert.notEqual(after.state, 'ok');
      await rail.db.deleteFrom('job_leases').where('name', '=', 'probe.job').execute();
    });

    test('cloud says how the deployment runs, without a connection string', async () => {
      const res = await get('/cloud', auditor);
      assert.equal(res.statusCode, 200, res.body);
      const c = res.json();
      assert.equal(c.engine, factory.name);
      assert.ok(c.mountedGroups.includes('admin-ops') && c.mountedGroups.includes('metrics'));
      assert.match(c.thisProcess, /^[^:]+:\d+:[0-9a-f]{8}$/);
      assert.equal(c.metrics, true);
      assert.doesNotMatch(JSON.stringify(c), /postgres:\/\/|openrail-ci/);
    });

    test('the audit chain is verified over HTTP, and an edited entry is named', async () => {
      const intact = (await get('/audit')).json();
      assert.equal(intact.verified, true);
      assert.ok(intact.checked > 0 && intact.firstBroken === null);
      const victim = Math.max(1, intact.lastSeq - 1);
      const original = await rail.db.selectFrom('audit_log').select('detail').where('seq', '=', victim).executeTakeFirstOrThrow();
      await rail.db.updateTable('audit_log').set({ detail: '{"edited":true}' }).where('seq', '=', victim).execute();
      const broken = (await get('/audit')).json();
      assert.equal(broken.verified, false);
      assert.equal(broken.firstBroken, victim);
      assert.equal(broken.reason, 'hash');
      await rail.db.updateTable('audit_log').set({ detail: original.detail }).where('seq', '=', victim).execute();
    });

    test('keys show each tenant’s signing keys, the one in use and what it signed', async () => {
      await issueOne(rail.app, 'alpha', 'pass', { ...PASS_SUBJECT, holder_name: 'Ana' });
      const res = await get('/keys?tenant=alpha');
      assert.equal(res.statusCode, 200, res.body);
      const keys = res.json().keys as Array<Record<string, unknown>>;
      const issuer = keys.find((k) => k.purpose === 'issuer');
      assert.ok(issuer, res.body);
      assert.equal(issuer.inUse, true);
      assert.equal(issuer.credentialsSigned, 1);
      assert.ok(keys.every((k) => k.tenant === 'alpha'));
      assert.equal(keys.find((k) => k.purpose === 'verifier')?.credentialsSigned ?? null, null);
    });

    test('an ops revocation takes a reason, follows the issuer’s rules and is logged; integrity holds, then finds a flipped bit', async () => {
      const { credential } = await issueOne(rail.app, 'alpha', 'pass', { ...PASS_SUBJECT, holder_name: 'Bo' });
      const status = (decodeJwt(credential.split('~')[0] as string) as { status: { status_list: { uri: string; idx: number } } })
        .status.status_list;

      const noReason = await post('/revoke', { tenant: 'alpha', status });
      assert.equal(noReason.statusCode, 400, noReason.body);
      const asAuditor = await post('/revoke', { tenant: 'alpha', status, reason: 'lost device' }, auditor);
      assert.equal(asAuditor.statusCode, 403, asAuditor.body);
      const unknown = await post('/revoke', { tenant: 'alpha', credentialId: 'crd_no-such', reason: 'lost device' });
      assert.equal(unknown.statusCode, 404, unknown.body);
      assert.equal(unknown.json().error, 'unknown_credential');

      assert.deepEqual((await get('/revocations?tenant=alpha')).json().revocations, [], 'a refused revocation changes nothing');
      const revoked = await post('/revoke', { tenant: 'alpha', status, reason: 'lost device' });
      assert.equal(revoked.statusCode, 200, revoked.body);
      const body = revoked.json();
      assert.equal(body.ok, true);
      assert.equal(typeof body.auditSeq, 'number');
      assert.deepEqual(body.revoked[0].status, status);

      const log = (await get('/revocations?tenant=alpha')).json().revocations;
      assert.equal(log[0].reason, 'lost device');
      assert.equal(log[0].actor, 'operator:on-call');

      const lists = (await get('/status-lists?tenant=alpha')).json().lists;
      assert.equal(lists.length, 1);
      assert.equal(lists[0].revoked, 1);
      assert.equal(lists[0].uri, status.uri);
      const byDid = await get(`/status-lists/${encodeURIComponent(lists[0].issuerDid)}`);
      assert.equal(byDid.statusCode, 200, byDid.body);
      assert.equal(byDid.json().lists[0].seq, lists[0].seq);
      const stranger = await get(`/status-lists/${encodeURIComponent('did:web:elsewhere.example')}`);
      assert.equal(stranger.statusCode, 404);
      assert.equal(stranger.json().error, 'unknown_issuer');

      const intact = (await get('/status-integrity?tenant=alpha')).json();
      assert.equal(intact.ok, true, JSON.stringify(intact));
      // The served token is cached by the list's revision: a bit changed by hand, without a
      // revocation, leaves the served list and the record apart, and the check names the entry.
      await rail.db.updateTable('issued_credentials').set({ revoked_at: null }).where('idx', '=', status.idx).execute();
      const flipped = (await get('/status-integrity?tenant=alpha')).json();
      assert.equal(flipped.ok, false);
      assert.deepEqual(flipped.lists[0].mismatched, [status.idx]);
      assert.match(flipped.lists[0].problems.join(' '), /1 entries differ/);
    });

    test('comms health counts what the mail transport took', async () => {
      const invite = await rail.app.inject({
        method: 'POST',
        url: '/api/admin/people/operators',
        headers: owner,
        payload: { username: 'newcomer', roles: ['support'], email: 'newcomer@example.test' },
      });
      assert.ok(invite.statusCode < 300, invite.body);
      const comms = (await get('/comms-health?windowHours=1')).json();
      assert.equal(comms.mail.transport, 'outbox');
      assert.equal(comms.mail.sent, 1);
      assert.equal(comms.mail.refused, 0);
      assert.equal(comms.webhooks.attempts, 0);
      const bad = await get('/comms-health?windowHours=0');
      assert.equal(bad.statusCode, 400);
    });

    test('stuck work is named with the action to take; a narrower kind shows that kind only', async () => {
      const late = Date.now() - 10 * 60_000;
      await rail.db
        .insertInto('presentation_transactions')
        .values({
          id: 'vtx_stuckstuckstuckstuck01',
          state: 'stuck-state',
          nonce: 'stuck-nonce-0123456789',
          result_token_hash: 'x',
          caller_aud: 'https://shop.example',
          type_tenant: 'alpha',
          type_id: 'pass',
          vct: 'https://rail.example.test/t/alpha/types/pass',
          claims: '[]',
          requested_by: null,
          created_at: late - 60_000,
          expires_at: late,
          completed_at: null,
          outcome: null,
          holder_thumbprint: null,
          enrolled_at: null,
          issuer_did: null,
        })
        .execute();
      const stuck = (await get('/stuck-transactions')).json();
      const item = stuck.items.find((i: { id: string }) => i.id === 'vtx_stuckstuckstuckstuck01');
      assert.equal(item.kind, 'presentation');
      assert.equal(item.tenant, 'alpha');
      assert.ok(item.overdueS >= 600);
      assert.match(item.action, /verification\.sweep/);
      assert.equal(stuck.complete, true);
      const offersOnly = (await get('/stuck-transactions?kind=offer')).json();
      assert.ok(offersOnly.items.every((i: { kind: string }) => i.kind === 'offer'));
      assert.equal((await get('/stuck-transactions?kind=nothing')).statusCode, 400);
      await rail.db.deleteFrom('presentation_transactions').where('id', '=', 'vtx_stuckstuckstuckstuck01').execute();
    });

    test('demo hygiene holds the demo-tenant law over the data, naming each breach', async () => {
      assert.deepEqual((await get('/demo-hygiene')).json().breaches, []);
      await rail.db
        .insertInto('tenants')
        .values({
          slug: 'beta',
          name: 'Beta (Demo)',
          display_name: null,
          description: null,
          logo_uri: null,
          primary_color: null,
          background_color: null,
          text_color: null,
          created_at: 1,
          updated_at: 1,
        })
        .execute();
      const found = (await get('/demo-hygiene')).json();
      assert.equal(found.ok, false);
      assert.deepEqual(
        found.breaches.map((b: { rule: string; tenant: string }) => [b.rule, b.tenant]),
        [['marked-real', 'beta']],
      );
      await rail.db.deleteFrom('tenants').where('slug', '=', 'beta').execute();
    });

    test('the console’s snapshot of an organisation, for its own admin only', async () => {
      const admin = await signedInOperator(rail.app, 'alpha-admin', ['tenant-admin'], 'alpha');
      const res = await rail.app.inject({ method: 'GET', url: '/api/state?tenant=alpha', headers: admin });
      assert.equal(res.statusCode, 200, res.body);
      const state = res.json();
      assert.equal(state.tenant, 'alpha');
      assert.equal(state.status.status, 'active');
      assert.equal(state.counts.types, 1);
      assert.ok(state.counts.credentials >= 1 && state.counts.statusLists === 1, res.body);
      const lists = (await get('/status-lists?tenant=alpha')).json().lists;
      assert.equal(state.counts.revoked, lists[0].revoked, 'the same count the ops lists show');
      assert.deepEqual(
        state.keys.filter((k: { purpose: string }) => k.purpose === 'issuer').map((k: { signing: boolean }) => k.signing),
        [true],
      );
      assert.equal((await rail.app.inject({ method: 'GET', url: '/api/state?tenant=root', headers: admin })).statusCode, 403);
      const unknown = await rail.app.inject({ method: 'GET', url: '/api/state?tenant=nobody', headers: owner });
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.json().error, 'unknown_tenant');
    });

    test('an automation agent reports heartbeats and actions with a token of the agent scope; actions reach the feed', async () => {
      const INTEGRATION = '/api/admin/integration';
      const asked = await rail.app.inject({
        method: 'POST',
        url: `${INTEGRATION}/provisioning`,
        headers: owner,
        payload: { tenant: 'alpha', label: 'Nightly sync', reason: 'Reports', rateClass: 'standard', scopes: ['agent'] },
      });
      assert.equal(asked.statusCode, 201, asked.body);
      const approver = await signedInOperator(rail.app, 'approving-owner', ['owner']);
      const minted = await rail.app.inject({
        method: 'POST',
        url: `${INTEGRATION}/tokens`,
        headers: approver,
        payload: { requestId: asked.json().request.id },
      });
      assert.equal(minted.statusCode, 201, minted.body);
      const agentToken = { authorization: `Bearer ${minted.json().token.secret}` };
      const report = (payload: Record<string, unknown>, headers = agentToken) =>
        rail.app.inject({ method: 'POST', url: '/api/agent/activity', headers, payload });

      const beat = await report({ tenant: 'alpha', agent: 'nightly-sync', kind: 'heartbeat' });
      assert.equal(beat.statusCode, 200, beat.body);
      assert.equal(beat.json().auditSeq, null);
      assert.equal((await report({ tenant: 'alpha', agent: 'nightly-sync', kind: 'heartbeat' })).statusCode, 200);
      const other = await report({ tenant: 'root', agent: 'nightly-sync', kind: 'heartbeat' });
      assert.equal(other.statusCode, 403, 'a token acts on its own tenant only');
      const noAction = await report({ tenant: 'alpha', agent: 'nightly-sync', kind: 'action' });
      assert.equal(noAction.statusCode, 400);
      const acted = await report({
        tenant: 'alpha',
        agent: 'nightly-sync',
        kind: 'action',
        action: 'offers.sent',
        ref: 'batch-42',
        summary: 'Sent 12 offers',
      });
      assert.equal(acted.statusCode, 200, acted.body);
      assert.equal(typeof acted.json().auditSeq, 'number');

      const feed = (
        await rail.app.inject({ method: 'GET', url: '/api/admin/activity?tenant=alpha&kind=agent', headers: owner })
      ).json();
      assert.match(JSON.stringify(feed), /Agent nightly-sync of alpha did offers\.sent on batch-42\./);
      const state = (await rail.app.inject({ method: 'GET', url: '/api/state?tenant=alpha', headers: owner })).json();
      assert.deepEqual(
        state.agents.map((a: { agent: string; beats: number }) => [a.agent, a.beats]),
        [['nightly-sync', 2]],
      );
    });

    test('GET /metrics is Prometheus text for the scraper’s bearer only, and its counters follow the work', async () => {
      assert.equal((await rail.app.inject({ method: 'GET', url: '/metrics' })).statusCode, 401);
      assert.equal((await rail.app.inject({ method: 'GET', url: '/metrics', headers: owner })).statusCode, 401);
      const scrape = async () => {
        const res = await rail.app.inject({
          method: 'GET',
          url: '/metrics',
          headers: { authorization: `Bearer ${METRICS_TOKEN}` },
        });
        assert.equal(res.statusCode, 200, res.body);
        assert.match(res.headers['content-type'] as string, /^text\/plain; version=0\.0\.4/);
        return parsePrometheus(res.body) as Family[];
      };
      const before = await scrape();
      await issueOne(rail.app, 'alpha', 'pass', { ...PASS_SUBJECT, holder_name: 'Cy' });
      const after = await scrape();
      assert.equal(counted(after, 'openrail_credentials_issued_total') - counted(before, 'openrail_credentials_issued_total'), 1);
      const tokenCalls = { route: '/t/:tenant/token', status: '200' };
      assert.ok(counted(after, 'openrail_http_requests_total', tokenCalls) >= 1, 'requests are labelled by route template');
      assert.ok(!JSON.stringify(after).includes('/t/alpha/'), 'never by the path they were called with');
      assert.ok(after.some((f) => f.name === 'openrail_http_request_duration_seconds' && f.type === 'HISTOGRAM'));
      if (factory.name === 'postgres') assert.ok(counted(after, 'openrail_db_pool_connections', { state: 'open' }) >= 1);
    });
  });
}

describe('GET /metrics with metrics off', () => {
  const factory = testDatabases()[0];
  let db: TestDatabase;
  let rail: TestRail;
  before(async () => {
    assert.ok(factory);
    ({ db, rail } = await railOn(factory, {}, undefined, { runJobs: false }));
  });
  after(() => stopRail(rail, db));

  test('answers 404 metrics_off, whatever bearer it is given', async () => {
    const res = await rail.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().error, 'metrics_off');
  });
});
