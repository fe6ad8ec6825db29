import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { issueOne, PASS_SUBJECT, registerType } from '../../../test/helpers/issuance.ts';
import { bearer, owner, ownerCalls, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import { type Received, type Receiver, startReceiver } from '../../../test/helpers/receiver.ts';
import { refusedUnchanged, rowCounts } from '../../../test/helpers/refusals.ts';
import { verifyBody } from '../../core/webhook-signature.ts';
import { webhooksModule } from './module.ts';

const BASE = '/api/admin/integration';
/**
 * What a registration writes: the webhook, its audit entry, and the events whose fan-out makes
 * deliveries. Deliveries and their attempts are not counted: the delivery worker of this suite
 * keeps retrying the endpoints of earlier tests while a refusal is checked.
 */
const TABLES = ['webhooks', 'audit_log', 'outbox'] as const;
const envelope = (r: Received) =>
  JSON.parse(r.body) as { id: string; type: string; createdAt: string; tenant: string; data: Record<string, unknown> };

for (const factory of testDatabases()) {
  describe(`webhook delivery (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let receiver: Receiver;
    let tenant: string;

    const { post, get } = ownerCalls(() => rail);
    const register = async (path: string, events: string[], forTenant = tenant, url = `${receiver.origin}${path}`) => {
      const res = await post(`${BASE}/webhooks`, { tenant: forTenant, url, events });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().webhook as { id: string; secret: string; url: string };
    };
    const at = (path: string) => receiver.received.filter((r) => r.path === path);
    const ofType = (path: string, type: string) => at(path).filter((r) => r.headers['x-svc-event'] === type);
    const deliveryOf = async (id: string) => {
      const res = await get(`${BASE}/deliveries/${id}`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };

    before(async () => {
      db = await factory.create();
      receiver = await startReceiver();
      rail = await startRail(db, {
        OPENRAIL_OUTBOUND_ALLOW: receiver.origin,
        OPENRAIL_WEBHOOK_RETRY_SCHEDULE: '150ms,150ms,150ms',
      });
      const made = await post('/api/tenants', { name: 'Webhook Transit' });
      assert.equal(made.statusCode, 201, made.body);
      tenant = made.json().slug;
    });
    after(async () => {
      await rail.stop();
      await receiver.close();
      await db.drop();
    });

    test('registering shows the secret once and sends a signed webhook.ping', async () => {
      const hook = await register('/ping', ['credential.issued']);
      assert.match(hook.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
      await receiver.until(() => at('/ping').length === 1);
      const [ping] = at('/ping');
      assert.ok(ping);
      assert.equal(ping.headers['x-svc-event'], 'webhook.ping');
      assert.ok(verifyBody(hook.secret, ping.body, ping.headers['x-svc-signature'] as string), 'the signature verifies');
      assert.equal(envelope(ping).id, ping.headers['x-svc-delivery']);
      assert.deepEqual(Object.keys(envelope(ping)), ['id', 'type', 'createdAt', 'tenant', 'data']);
      assert.deepEqual(envelope(ping).data, { webhookId: hook.id, reason: 'registered' });
      assert.match(ping.headers['x-svc-timestamp'] as string, /^\d{10}$/);
      const shown = await get(`${BASE}/webhooks/${hook.id}`);
      assert.equal(shown.statusCode, 200);
      assert.ok(!shown.body.includes(hook.secret) && !('secret' in shown.json()), 'the secret is never shown again');
      const row = await rail.db
        .selectFrom('webhooks')
        .select('sealed_secret')
        .where('id', '=', hook.id)
        .executeTakeFirstOrThrow();
      assert.ok(!row.sealed_secret.includes(hook.secret.slice(6)), 'the secret is stored sealed');
    });

    test('a credential issued and revoked delivers credential.issued and credential.revoked, signed, in order', async () => {
      const hook = await register('/rail', ['credential.issued', 'credential.revoked']);
      const type = await registerType(rail.app, tenant, 'Webhook Pass');
      await issueOne(rail.app, tenant, type.typeId, PASS_SUBJECT);
      await receiver.until(() => ofType('/rail', 'credential.issued').length === 1);
      const issued = envelope(ofType('/rail', 'credential.issued')[0] as Received);
      const revoked = await post('/api/revoke', { tenant, credentialId: issued.data.credentialId });
      assert.equal(revoked.statusCode, 200, revoked.body);
      await receiver.until(() => ofType('/rail', 'credential.revoked').length === 1);
      const events = at('/rail').filter((r) => r.headers['x-svc-event'] !== 'webhook.ping');
      assert.deepEqual(
        events.map((r) => r.headers['x-svc-event']),
        ['credential.issued', 'credential.revoked'],
      );
      for (const r of events) {
        assert.ok(verifyBody(hook.secret, r.body, r.headers['x-svc-signature'] as string));
        assert.ok(!verifyBody(hook.secret, `${r.body} `, r.headers['x-svc-signature'] as string), 'one byte more fails');
        assert.equal(envelope(r).tenant, tenant);
      }
      assert.equal(envelope(events[1] as Received).data.credentialId, issued.data.credentialId);
    });

    test('a receiver answering 500 twice then 200 gets the same x-svc-delivery three times', async () => {
      let failures = 0;
      receiver.answer = (r) =>
        r.path === '/flaky' && r.headers['x-svc-event'] === 'webhook.ping' && failures++ < 2 ? { status: 500 } : { status: 200 };
      await register('/flaky', ['org.created']);
      await receiver.until(() => at('/flaky').length === 3);
      const ids = new Set(at('/flaky').map((r) => r.headers['x-svc-delivery']));
      assert.equal(ids.size, 1, 'one delivery id across retries');
      assert.equal(new Set(at('/flaky').map((r) => r.body)).size, 1, 'the same bytes every time');
      const id = [...ids][0] as string;
      const delivery = await waitFor(
        () => deliveryOf(id),
        (d) => d.state === 'delivered',
      );
      assert.equal(delivery.attempts, 3);
      assert.deepEqual(
        delivery.attemptLog.map((a: { status: number }) => a.status),
        [500, 500, 200],
      );
      assert.deepEqual(
        delivery.attemptLog.map((a: { ok: boolean }) => a.ok),
        [false, false, true],
      );
      receiver.answer = () => ({ status: 200 });
    });

    test('a 302 is recorded as a failure and the redirect target receives nothing', async () => {
      receiver.answer = (r) =>
        r.path === '/moved' ? { status: 302, headers: { location: `${receiver.origin}/elsewhere` } } : { status: 200 };
      await register('/moved', ['org.created']);
      await receiver.until(() => at('/moved').length >= 2);
      const id = at('/moved')[0]?.headers['x-svc-delivery'] as string;
      const delivery = await deliveryOf(id);
      assert.equal(delivery.attemptLog[0].status, 302);
      assert.equal(delivery.attemptLog[0].ok, false);
      assert.match(delivery.attemptLog[0].error, /redirect 302 not followed/);
      assert.equal(at('/elsewhere').length, 0, 'the Location was never visited');
      receiver.answer = () => ({ status: 200 });
    });

    test('a target whose name resolves to a private address is refused at every attempt', async () => {
      const hook = await register('/x', ['org.created'], tenant, 'https://localhost:9/hook');
      const list = await waitFor(
        async () => (await get(`${BASE}/deliveries?tenant=${tenant}&webhookId=${hook.id}`)).json(),
        (l) => l.deliveries[0]?.attempts >= 2,
      );
      const delivery = await deliveryOf(list.deliveries[0].id);
      assert.equal(delivery.attemptLog[0].status, null);
      assert.match(delivery.attemptLog[0].error, /^address: /);
      assert.equal(delivery.attemptLog[1].ok, false);
    });

    test('registration refuses URLs outside the policy and tenants that do not exist, changing nothing', async () => {
      const counts = () => rowCounts(rail.db, TABLES);
      const attempt = (body: unknown) => () => post(`${BASE}/webhooks`, body);
      const refuses = (send: () => Promise<LightMyRequestResponse>, status: number, code: string) =>
        refusedUnchanged(counts, send, status, code);
      for (const url of [
        'http://hooks.example.org/in',
        'https://user:pw@hooks.example.org/in',
        'https://10.1.2.3/in',
        'https://[::1]/in',
        'https://hooks.example.org/in#frag',
        'ftp://hooks.example.org/in',
        'not a url',
      ]) {
        await refuses(attempt({ tenant, url, events: ['org.created'] }), 400, 'invalid_webhook_url');
      }
      await refuses(
        attempt({ tenant: 'no-such-tenant', url: 'https://hooks.example.org/in', events: ['org.created'] }),
        404,
        'unknown_tenant',
      );
      await refuses(attempt({ tenant, url: 'https://hooks.example.org/in', events: ['no.such'] }), 400, 'invalid_request');
      await refuses(attempt({ tenant, url: 'https://hooks.example.org/in', events: [] }), 400, 'invalid_request');
      await refuses(
        attempt({ tenant, url: 'https://hooks.example.org/in', events: ['org.created'], secret: 'mine' }),
        400,
        'invalid_request',
      );
    });

    test('a tenant-admin sees and changes only its own tenant’s endpoints and deliveries', async () => {
      const other = await post('/api/tenants', { name: 'Other Transit' });
      const otherTenant = other.json().slug as string;
      const foreign = await register('/foreign', ['org.created'], otherTenant, 'https://hooks.example.org/foreign');
      const own = await register('/own', ['org.created']);
      const made = await post('/api/operators', {
        username: 'hooks-admin',
        password: 'correct horse battery',
        roles: ['tenant-admin'],
        tenant,
      });
      assert.equal(made.statusCode, 201, made.body);
      const login = await rail.app.inject({
        method: 'POST',
        url: '/api/login',
        payload: { username: 'hooks-admin', password: 'correct horse battery' },
      });
      const admin = bearer(login.json().token);
      assert.equal((await get(`${BASE}/webhooks/${foreign.id}`, admin)).statusCode, 404);
      assert.equal((await get(`${BASE}/webhooks/${own.id}`, admin)).statusCode, 200);
      assert.equal((await post(`${BASE}/webhooks/${foreign.id}/active`, { active: false }, admin)).statusCode, 404);
      assert.equal((await post(`${BASE}/webhooks/${foreign.id}/rotate-secret`, undefined, admin)).statusCode, 404);
      const forOther = await post(
        `${BASE}/webhooks`,
        { tenant: otherTenant, url: 'https://hooks.example.org/x', events: ['org.created'] },
        admin,
      );
      assert.equal(forOther.statusCode, 403, forOther.body);
      for (const url of [`${BASE}/webhooks`, `${BASE}/webhooks?tenant=${tenant}`]) {
        const listed = await get(url, admin);
        assert.equal(listed.statusCode, 200, 'a scoped list shows its own tenant, named or not');
        assert.ok(listed.json().webhooks.length > 0);
        assert.ok(listed.json().webhooks.every((w: { tenant: string }) => w.tenant === tenant));
      }
      assert.equal((await get(`${BASE}/deliveries?tenant=${otherTenant}`, admin)).statusCode, 403);
      const coverage = (await get(`${BASE}/webhooks/coverage`, admin)).json();
      assert.deepEqual(
        coverage.tenants.map((t: { tenant: string }) => t.tenant),
        [tenant],
      );
      const legacy = await post('/api/operators', {
        username: 'old-issuer',
        password: 'correct horse battery',
        roles: ['issuer'],
      });
      assert.equal(legacy.statusCode, 201);
      const issuer = bearer(
        (
          await rail.app.inject({
            method: 'POST',
            url: '/api/login',
            payload: { username: 'old-issuer', password: 'correct horse battery' },
          })
        ).json().token,
      );
      assert.equal((await get(`${BASE}/webhooks?tenant=${tenant}`, issuer)).statusCode, 403, 'the legacy issuer role is refused');
    });

    test('coverage names the events that went to no endpoint', async () => {
      const lonely = await post('/api/tenants', { name: 'Lonely Library' });
      const slug = lonely.json().slug as string;
      const coverage = await waitFor(
        async () => (await get(`${BASE}/webhooks/coverage`)).json(),
        (c) =>
          c.tenants.some(
            (t: { tenant: string; events: Array<{ wentNowhere: number }> }) =>
              t.tenant === slug && t.events[0]?.wentNowhere === 1,
          ),
      );
      const entry = coverage.tenants.find((t: { tenant: string }) => t.tenant === slug);
      assert.deepEqual(entry.events, [{ type: 'org.created', written: 1, wentNowhere: 1, notYetRouted: 0 }]);
      assert.deepEqual(entry.uncovered, ['org.created']);
      assert.equal(entry.activeEndpoints, 0);
    });
  });
}

for (const factory of testDatabases()) {
  describe(`webhook retries on a test clock (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let receiver: Receiver;
    let now = Date.parse('2026-11-24T08:00:00Z');
    const clock = { now: () => now };
    const { post, get } = ownerCalls(() => rail);
    const run = async () => (await rail.services(webhooksModule)).dispatcher.runOnce();

    before(async () => {
      db = await factory.create();
      receiver = await startReceiver();
      rail = await startRail(db, { OPENRAIL_OUTBOUND_ALLOW: receiver.origin, OPENRAIL_WEBHOOK_RETRY_SCHEDULE: '10s,1m' }, clock, {
        runJobs: false,
      });
    });
    after(async () => {
      await rail.stop();
      await receiver.close();
      await db.drop();
    });

    test('retries follow the schedule, then the delivery is dead-lettered; a redrive delivers it', async () => {
      receiver.answer = () => ({ status: 503 });
      now += 1000; // after the seeding's events: an endpoint gets only events written once it exists
      const made = await post(`${BASE}/webhooks`, { tenant: 'root', url: `${receiver.origin}/down`, events: ['org.created'] });
      assert.equal(made.statusCode, 201, made.body);
      const hookId = made.json().webhook.id as string;
      await run();
      assert.equal(receiver.received.length, 1);
      const id = receiver.received[0]?.headers['x-svc-delivery'] as string;
      let delivery = (await get(`${BASE}/deliveries/${id}`)).json();
      assert.equal(delivery.state, 'failed');
      const firstRetry = Date.parse(delivery.nextAttemptAt) - now;
      assert.ok(firstRetry > 0 && firstRetry <= 10_000, `the first retry comes within 10 s (${firstRetry} ms)`);
      await run();
      assert.equal(receiver.received.length, 1, 'nothing is sent before the retry is due');
      now += 10_000;
      await run();
      assert.equal(receiver.received.length, 2);
      now += 60_000;
      await run();
      assert.equal(receiver.received.length, 3);
      delivery = (await get(`${BASE}/deliveries/${id}`)).json();
      assert.equal(delivery.state, 'dead');
      assert.equal(delivery.attempts, 3);
      assert.equal(delivery.nextAttemptAt, null);
      now += 86_400_000;
      await run();
      assert.equal(receiver.received.length, 3, 'a dead delivery is not retried');

      const dead = (await get(`${BASE}/deliveries?state=dead`)).json();
      assert.deepEqual(
        dead.deliveries.map((d: { id: string }) => d.id),
        [id],
      );
      receiver.answer = () => ({ status: 204 });
      const redriven = await post(`${BASE}/deliveries/${id}/redrive`);
      assert.equal(redriven.statusCode, 200, redriven.body);
      assert.equal(typeof redriven.json().auditSeq, 'number');
      assert.equal(redriven.json().delivery.state, 'pending');
      await run();
      assert.equal(receiver.received.length, 4);
      assert.equal(receiver.received[3]?.headers['x-svc-delivery'], id, 'a redrive keeps the delivery id');
      delivery = (await get(`${BASE}/deliveries/${id}`)).json();
      assert.equal(delivery.state, 'delivered');
      assert.deepEqual(
        delivery.attemptLog.map((a: { n: number; status: number }) => [a.n, a.status]),
        [
          [1, 503],
          [2, 503],
          [3, 503],
          [4, 204],
        ],
      );
      const again = await post(`${BASE}/deliveries/${id}/redrive`);
      assert.equal(again.statusCode, 409);
      assert.equal(again.json().error, 'delivery_state');
      const hook = (await get(`${BASE}/webhooks/${hookId}`)).json();
      assert.equal(hook.deadStreak, 0, 'a success ends the streak');
    });

    test('an endpoint is disabled after three dead letters in a row, holds what was queued, and sends it in order once re-enabled', async () => {
      receiver.received.length = 0;
      receiver.answer = () => ({ status: 500 });
      const made = await post(`${BASE}/webhooks`, { tenant: 'root', url: `${receiver.origin}/broken`, events: ['org.created'] });
      const hookId = made.json().webhook.id as string;
      // The ping, then four more pings queued behind it (activating an active endpoint pings it).
      for (let i = 0; i < 4; i++)
        assert.equal((await post(`${BASE}/webhooks/${hookId}/active`, { active: true })).statusCode, 200);
      for (let round = 0; round < 3; round++) {
        await run();
        now += 10_000;
        await run();
        now += 60_000;
        await run();
      }
      const hook = (await get(`${BASE}/webhooks/${hookId}`)).json();
      assert.equal(hook.active, false);
      assert.equal(hook.inactiveReason, 'failing');
      assert.equal(hook.deadStreak, 3);
      const sent = receiver.received.filter((r) => r.path === '/broken');
      assert.equal(sent.length, 9, 'three deliveries, three attempts each');
      now += 86_400_000;
      await run();
      assert.equal(receiver.received.filter((r) => r.path === '/broken').length, 9, 'a disabled endpoint gets nothing');
      const audit = await rail.db.selectFrom('audit_log').select(['actor', 'action']).where('target', '=', hookId).execute();
      assert.ok(audit.some((a) => a.action === 'webhook.disabled' && a.actor === 'system:webhooks'));
      const redrive = await post(`${BASE}/deliveries/${receiver.received[0]?.headers['x-svc-delivery']}/redrive`);
      assert.equal(redrive.json().error, 'webhook_inactive');

      receiver.answer = () => ({ status: 200 });
      assert.equal((await post(`${BASE}/webhooks/${hookId}/active`, { active: true })).statusCode, 200);
      await run();
      const after = receiver.received.filter((r) => r.path === '/broken').slice(9);
      const reasons = after.map((r) => (JSON.parse(r.body) as { data: { reason: string } }).data.reason);
      assert.deepEqual(reasons, ['ping', 'ping', 'activated'], 'the two held pings first, in order, then the activation');
    });

    test('after 30 days finished deliveries, their attempts and routed events are deleted; queued ones stay', async () => {
      receiver.answer = () => ({ status: 500 });
      await post(`${BASE}/webhooks`, { tenant: 'root', url: `${receiver.origin}/later`, events: ['org.created'] });
      await run();
      const queued = async () =>
        Number(
          (
            await rail.db
              .selectFrom('webhook_deliveries')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('state', '=', 'queued')
              .executeTakeFirstOrThrow()
          ).n,
        );
      const finished = async () =>
        Number(
          (
            await rail.db
              .selectFrom('webhook_deliveries')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('state', '!=', 'queued')
              .executeTakeFirstOrThrow()
          ).n,
        );
      const stillQueued = await queued();
      assert.ok(stillQueued >= 1 && (await finished()) > 0);
      now += 29 * 86_400_000;
      await rail.jobs.tick();
      assert.ok((await finished()) > 0, 'nothing is deleted before 30 days');
      now += 2 * 86_400_000;
      await rail.jobs.tick();
      assert.equal(await finished(), 0);
      assert.equal(await queued(), stillQueued, 'a delivery still to send is kept');
      const attempts = await rail.db.selectFrom('webhook_attempts').select('delivery_id').execute();
      const live = await rail.db.selectFrom('webhook_deliveries').select('id').execute();
      assert.ok(
        attempts.every((a) => live.some((d) => d.id === a.delivery_id)),
        'no attempt outlives its delivery',
      );
      const routed = await rail.db
        .selectFrom('outbox')
        .select('seq')
        .where('routed_to', 'is not', null)
        .where('created_at', '<', now - 30 * 86_400_000)
        .execute();
      assert.equal(routed.length, 0);
    });
  });
}

/** Polls `read` until `done` holds of it (at most 20 s). */
async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const until = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) throw new Error(`condition not met: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('webhook delivery on a process that does not serve the webhook administration', () => {
  test('still routes the outbox, so it can be delivered and pruned', async () => {
    const [factory] = testDatabases();
    assert.ok(factory);
    const db = await factory.create();
    const rail = await startRail(db, { OPENRAIL_UNMOUNTED_GROUPS: 'integration-webhooks' }, undefined, { runJobs: false });
    try {
      assert.equal((await rail.app.inject({ method: 'GET', url: `${BASE}/webhooks`, headers: owner })).statusCode, 404);
      const made = await rail.app.inject({
        method: 'POST',
        url: '/api/tenants',
        headers: owner,
        payload: { name: 'Quiet Town' },
      });
      assert.equal(made.statusCode, 201);
      await (await rail.services(webhooksModule)).dispatcher.runOnce();
      const unrouted = await rail.db.selectFrom('outbox').select('seq').where('routed_to', 'is', null).execute();
      assert.deepEqual(unrouted, []);
    } finally {
      await rail.stop();
      await db.drop();
    }
  });
});
