import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { bearer, owner, ownerCalls, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import { refusedUnchanged, rowCounts } from '../../../test/helpers/refusals.ts';
import { hashToken } from '../../core/secrets.ts';
import type { OperatorPrincipal } from '../../http/auth/operator-bearer.ts';
import { approvalsModule } from '../approvals/module.ts';

const BASE = '/api/admin/integration';
const TABLES = ['approvals', 'integration_tokens', 'audit_log', 'rate_windows'] as const;
const PASSWORD = 'correct horse battery';

for (const factory of testDatabases()) {
  describe(`the provisioning ceremony and integration tokens (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let now = Date.parse('2026-11-24T08:00:10Z');
    const clock = { now: () => now };
    let alpha: string;
    let beta: string;
    let olga: Record<string, string>;
    let alphaAdmin: Record<string, string>;

    const { post, get } = ownerCalls(() => rail);
    const counts = () => rowCounts(rail.db, TABLES);
    const refuses = (send: () => Promise<LightMyRequestResponse>, status: number, code: string) =>
      refusedUnchanged(counts, send, status, code);
    const operator = async (username: string, roles: string[], tenant?: string) => {
      const made = await post('/api/operators', { username, password: PASSWORD, roles, ...(tenant ? { tenant } : {}) });
      assert.equal(made.statusCode, 201, made.body);
      const login = await rail.app.inject({ method: 'POST', url: '/api/login', payload: { username, password: PASSWORD } });
      return bearer(login.json().token);
    };
    const open = async (body: Record<string, unknown>, headers: Record<string, string> = owner) => {
      const res = await post(
        `${BASE}/provisioning`,
        { label: 'Ticketing backend', reason: 'Nightly offers', rateClass: 'standard', ...body },
        headers,
      );
      assert.equal(res.statusCode, 201, res.body);
      return res.json().request as { id: string; state: string };
    };
    const mint = async (tenant: string, scopes: string[], rateClass = 'standard') => {
      const request = await open({ tenant, scopes, rateClass });
      const res = await post(`${BASE}/tokens`, { requestId: request.id }, olga);
      assert.equal(res.statusCode, 201, res.body);
      return res.json().token as { id: string; secret: string; scopes: string[] };
    };

    before(async () => {
      db = await factory.create();
      // No background jobs: this suite moves the clock a week on, and the rate-window sweep would
      // then empty rate_windows under a refusal's row count.
      rail = await startRail(db, {}, clock, { runJobs: false });
      alpha = (await post('/api/tenants', { name: 'Alpha Transit' })).json().slug;
      beta = (await post('/api/tenants', { name: 'Beta Library' })).json().slug;
      olga = await operator('olga', ['owner']);
      alphaAdmin = await operator('alpha-admin', ['tenant-admin'], alpha);
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('key-options lists the scopes and the rate classes', async () => {
      const res = await get(`${BASE}/key-options`, alphaAdmin);
      assert.equal(res.statusCode, 200);
      const options = res.json();
      assert.deepEqual(
        options.scopes.map((s: { name: string }) => s.name),
        ['issuance', 'revocation', 'deposits', 'membership', 'channels', 'agent'],
      );
      assert.deepEqual(
        options.rateClasses.map((c: { name: string; quota: number }) => [c.name, c.quota]),
        [
          ['sandbox', 60],
          ['standard', 600],
          ['bulk', 6000],
        ],
      );
    });

    test('a token is minted only by another owner approving a pending request, shown once, stored as a hash', async () => {
      const request = await open({ tenant: alpha, scopes: ['issuance', 'revocation'] }, alphaAdmin);
      assert.equal(request.state, 'pending');
      const self = await operator('self-approver', ['owner']);
      const own = await open({ tenant: alpha, scopes: ['issuance'] }, self);
      await refuses(() => post(`${BASE}/tokens`, { requestId: own.id }, self), 403, 'same_operator');
      const byOwnerToken = await open({ tenant: alpha, scopes: ['issuance'] });
      await refuses(() => post(`${BASE}/tokens`, { requestId: byOwnerToken.id }), 403, 'same_operator');
      await refuses(() => post(`${BASE}/tokens`, { requestId: request.id }, alphaAdmin), 403, 'forbidden');

      const approved = await post(`${BASE}/tokens`, { requestId: request.id }, olga);
      assert.equal(approved.statusCode, 201, approved.body);
      const token = approved.json().token;
      assert.match(token.secret, /^oit_[A-Za-z0-9_-]{43}$/);
      assert.deepEqual(token.scopes, ['issuance', 'revocation']);
      assert.equal(token.tenant, alpha);
      assert.equal(typeof approved.json().auditSeq, 'number');
      const row = await rail.db.selectFrom('integration_tokens').selectAll().where('id', '=', token.id).executeTakeFirstOrThrow();
      assert.equal(row.token_hash, hashToken(token.secret));
      assert.ok(!JSON.stringify(row).includes(token.secret.slice(4)), 'the token itself is not stored');
      const listed = await get(`${BASE}/tokens?tenant=${alpha}`, alphaAdmin);
      assert.ok(!listed.body.includes(token.secret.slice(4)), 'nor shown again');
      const decided = (await get(`${BASE}/provisioning/${request.id}`, alphaAdmin)).json();
      assert.equal(decided.state, 'approved');
      assert.equal(decided.decidedBy, 'operator:olga');
      assert.equal(decided.tokenId, token.id);
      await refuses(() => post(`${BASE}/tokens`, { requestId: request.id }, olga), 409, 'provisioning_state');
    });

    test('a request is an approval of the one desk: approved there, the secret is revealed to the approver once and kept nowhere', async () => {
      const request = await open({ tenant: alpha, scopes: ['channels'] }, alphaAdmin);
      assert.match(request.id, /^prv_/);
      const onDesk = await get(`/api/admin/approvals/${request.id}`, olga);
      assert.equal(onDesk.statusCode, 200, onDesk.body);
      assert.equal(onDesk.json().action, 'token.mint');
      assert.deepEqual(onDesk.json().params, {
        tenant: alpha,
        label: 'Ticketing backend',
        scopes: ['channels'],
        rateClass: 'standard',
      });
      // A tenant's owner holds the approving role but not the platform's scope; the requester is the requester.
      const alphaOwner = await operator('alpha-owner', ['owner'], alpha);
      await refuses(() => post(`/api/admin/approvals/${request.id}/approve`, {}, alphaOwner), 403, 'forbidden');
      const desk = await rail.services(approvalsModule);
      const principal = (username: string, tenant: string | null): OperatorPrincipal => ({
        plane: 'operator',
        via: 'session',
        username,
        roles: ['owner'],
        tenant,
      });
      const offered = async (username: string, tenant: string | null) =>
        (await desk.pendingFor(principal(username, tenant), 200)).some((a) => a.approvalId === request.id);
      assert.equal(await offered('olga', null), true, 'a platform owner is offered it to decide');
      assert.equal(await offered('alpha-owner', alpha), false, 'a tenant’s owner, who may not approve it, is not');
      await refuses(() => post(`/api/admin/approvals/${request.id}/approve`, {}, alphaAdmin), 403, 'same_operator');

      const approved = await post(`/api/admin/approvals/${request.id}/approve`, {}, olga);
      assert.equal(approved.statusCode, 200, approved.body);
      const { secret } = approved.json().revealed;
      assert.match(secret, /^oit_[A-Za-z0-9_-]{43}$/);
      const tokenId = approved.json().approval.result.tokenId;
      const row = await rail.db.selectFrom('integration_tokens').selectAll().where('id', '=', tokenId).executeTakeFirstOrThrow();
      assert.equal(row.token_hash, hashToken(secret));
      assert.equal(row.request_id, request.id);
      const kept = JSON.stringify([
        await rail.db.selectFrom('approvals').selectAll().where('id', '=', request.id).executeTakeFirstOrThrow(),
        await rail.db.selectFrom('audit_log').selectAll().execute(),
      ]);
      assert.ok(!kept.includes(secret.slice(4)), 'the secret is in neither the approval nor the audit log');
      assert.equal((await get(`/api/admin/approvals/${request.id}`, olga)).json().revealed, undefined, 'nor shown again');
      assert.equal((await get(`${BASE}/provisioning/${request.id}`, olga)).json().tokenId, tokenId);
      const used = await rail.app.inject({ method: 'GET', url: '/api/org-channels', headers: bearer(secret) });
      assert.notEqual(used.statusCode, 401, 'the revealed secret is the token');
    });

    test('the one who asked withdraws its own request; another operator rejects', async () => {
      const mine = await open({ tenant: alpha, scopes: ['deposits'] }, alphaAdmin);
      const withdrawn = await post(`${BASE}/provisioning/${mine.id}/reject`, { note: 'Asked too soon' }, alphaAdmin);
      assert.equal(withdrawn.statusCode, 200, withdrawn.body);
      assert.equal(withdrawn.json().request.state, 'withdrawn');
      assert.equal(withdrawn.json().request.note, 'Asked too soon');
      await refuses(() => post(`${BASE}/tokens`, { requestId: mine.id }, olga), 409, 'provisioning_state');
    });

    test('a rejected or expired request mints nothing', async () => {
      const rejected = await open({ tenant: alpha, scopes: ['deposits'] }, alphaAdmin);
      const res = await post(`${BASE}/provisioning/${rejected.id}/reject`, { note: 'Use the bulk class instead' }, olga);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().request.state, 'rejected');
      await refuses(() => post(`${BASE}/tokens`, { requestId: rejected.id }, olga), 409, 'provisioning_state');
      await refuses(() => post(`${BASE}/provisioning/${rejected.id}/reject`, {}, olga), 409, 'provisioning_state');
    });

    test('requests and tokens are seen within the tenant only; requests name an existing tenant', async () => {
      const forBeta = await open({ tenant: beta, scopes: ['issuance'] });
      assert.equal((await get(`${BASE}/provisioning/${forBeta.id}`, alphaAdmin)).statusCode, 404);
      await refuses(() => post(`${BASE}/provisioning/${forBeta.id}/reject`, {}, alphaAdmin), 404, 'unknown_provisioning_request');
      await refuses(
        () =>
          post(
            `${BASE}/provisioning`,
            { tenant: beta, label: 'x', reason: 'y', scopes: ['issuance'], rateClass: 'standard' },
            alphaAdmin,
          ),
        403,
        'forbidden',
      );
      await refuses(
        () =>
          post(`${BASE}/provisioning`, {
            tenant: 'nowhere',
            label: 'x',
            reason: 'y',
            scopes: ['issuance'],
            rateClass: 'standard',
          }),
        404,
        'unknown_tenant',
      );
      await refuses(
        () =>
          post(`${BASE}/provisioning`, { tenant: alpha, label: 'x', reason: 'y', scopes: ['everything'], rateClass: 'standard' }),
        400,
        'invalid_request',
      );
      const betaToken = await mint(beta, ['issuance']);
      await refuses(() => post(`${BASE}/tokens/${betaToken.id}/revoke`, undefined, alphaAdmin), 404, 'unknown_token');
      await refuses(() => post(`${BASE}/tokens/${betaToken.id}/rotate`, undefined, alphaAdmin), 404, 'unknown_token');
      const listed = (await get(`${BASE}/tokens?tenant=${alpha}`, alphaAdmin)).json();
      assert.ok(listed.tokens.every((t: { tenant: string }) => t.tenant === alpha));
    });

    test('a token acts only on its own tenant, within its scopes, and never beyond the participation plane', async () => {
      const token = await mint(alpha, ['issuance']);
      const key = bearer(token.secret);
      const made = await post('/api/types', { tenant: alpha, name: 'Key Pass', claims: ['holder'] }, key);
      assert.equal(made.statusCode, 201, made.body);
      assert.match(String(made.headers['ratelimit-policy']), /^"standard";q=600;w=60$/);
      assert.match(String(made.headers.ratelimit), /^"standard";r=599;t=\d+$/);
      const audit = await rail.db
        .selectFrom('audit_log')
        .select('actor')
        .where('action', '=', 'type.registered')
        .orderBy('seq', 'desc')
        .executeTakeFirst();
      assert.equal(audit?.actor, `token:${token.id}`, 'the audit log names the token');
      const counts = () => rowCounts(rail.db, ['credential_types', 'audit_log', 'offers']);
      const refused = (send: () => Promise<LightMyRequestResponse>, status: number, code: string) =>
        refusedUnchanged(counts, send, status, code);
      await refused(() => post('/api/types', { tenant: beta, name: 'Stolen Pass', claims: ['holder'] }, key), 403, 'forbidden');
      await refused(() => post('/api/types', { name: 'Nameless Pass', claims: ['holder'] }, key), 400, 'invalid_request');
      await refused(() => post('/api/revoke', { tenant: alpha, credentialId: 'crd_x' }, key), 403, 'forbidden');
      await refused(() => post('/api/tenants', { name: 'Key Made Tenant' }, key), 403, 'forbidden');
      await refused(() => get(`${BASE}/tokens?tenant=${alpha}`, key), 403, 'forbidden');
      await refused(
        () => post('/api/members/enroll', { tenant: alpha, accountId: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs' }, key),
        403,
        'forbidden',
      );
      const catalog = await rail.app.inject({ method: 'GET', url: '/verify/catalog', headers: key });
      assert.equal(catalog.statusCode, 200);
      assert.equal(catalog.headers.ratelimit, undefined, 'the verification plane is never metered');
      const console = await get(`${BASE}/tokens?tenant=${alpha}`, olga);
      assert.equal(console.headers.ratelimit, undefined, 'console sessions carry no quota');
    });

    test('a revoked or rotated-away token is refused on its next call', async () => {
      const token = await mint(alpha, ['channels']);
      const call = (secret: string) => get(`/api/org-channels?tenant=${alpha}`, bearer(secret));
      assert.equal((await call(token.secret)).statusCode, 200);
      const rotated = await post(`${BASE}/tokens/${token.id}/rotate`, undefined, alphaAdmin);
      assert.equal(rotated.statusCode, 200, rotated.body);
      const fresh = rotated.json().token.secret as string;
      assert.notEqual(fresh, token.secret);
      assert.equal((await call(token.secret)).statusCode, 401);
      assert.equal((await call(fresh)).statusCode, 200);
      const revoked = await post(`${BASE}/tokens/${token.id}/revoke`, undefined, alphaAdmin);
      assert.equal(revoked.statusCode, 200);
      assert.equal(revoked.json().token.state, 'revoked');
      assert.equal((await call(fresh)).statusCode, 401);
      await refuses(() => post(`${BASE}/tokens/${token.id}/rotate`, undefined, olga), 409, 'token_revoked');
      await refuses(() => post(`${BASE}/tokens/${token.id}/revoke`, undefined, olga), 409, 'token_revoked');
    });

    test('a key over its budget gets 429 with Retry-After and the RateLimit fields; the next window admits it again', async () => {
      now = Math.ceil(now / 60_000) * 60_000 + 1000; // one second into a window
      const token = await mint(alpha, ['channels'], 'sandbox');
      const call = () => get(`/api/org-channels?tenant=${alpha}`, bearer(token.secret));
      for (let i = 1; i <= 60; i++) {
        const res = await call();
        assert.equal(res.statusCode, 200, `request ${i}`);
        assert.equal(res.headers.ratelimit, `"sandbox";r=${60 - i};t=59`);
      }
      const over = await call();
      assert.equal(over.statusCode, 429);
      assert.equal(over.json().error, 'rate_limited');
      assert.equal(over.headers['retry-after'], '59');
      assert.equal(over.headers['ratelimit-policy'], '"sandbox";q=60;w=60');
      assert.equal(over.headers.ratelimit, '"sandbox";r=0;t=59');
      now += 59_000;
      const next = await call();
      assert.equal(next.statusCode, 200);
      assert.equal(next.headers.ratelimit, '"sandbox";r=59;t=60');
    });

    test('a request not decided within seven days expires and mints nothing', async () => {
      const stale = await open({ tenant: alpha, scopes: ['deposits'] });
      now += 7 * 86_400_000;
      assert.equal((await get(`${BASE}/provisioning/${stale.id}`)).json().state, 'expired');
      const login = await rail.app.inject({
        method: 'POST',
        url: '/api/login',
        payload: { username: 'olga', password: PASSWORD },
      });
      const olgaAgain = bearer(login.json().token);
      await refuses(() => post(`${BASE}/tokens`, { requestId: stale.id }, olgaAgain), 409, 'provisioning_state');
    });
  });
}
