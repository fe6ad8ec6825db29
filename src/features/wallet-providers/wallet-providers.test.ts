import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { bearer, owner, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import { refusedUnchanged } from '../../../test/helpers/refusals.ts';

for (const factory of testDatabases()) {
  describe(`wallet providers (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let support: Record<string, string>;
    let tenantAdmin: Record<string, string>;

    const post = (url: string, payload: unknown, headers: Record<string, string> = owner) =>
      rail.app.inject({ method: 'POST', url, headers, payload: payload as object });
    const register = (name: string, homepage: string, headers: Record<string, string> = owner) =>
      post('/api/wallets', { action: 'register', name, homepage, contact: 'partners@wallet.example' }, headers);
    const verifyPage = async () => (await rail.app.inject({ method: 'GET', url: '/verify' })).body;
    const snapshot = async () => {
      const rows = await sql<{ s: string }>`select id || ':' || state as s from wallet_providers order by id`.execute(rail.db);
      const audits = await sql<{ n: number }>`select count(*) as n from audit_log`.execute(rail.db);
      return { providers: rows.rows.map((r) => r.s), audits: Number(audits.rows[0]?.n) };
    };
    const refuses = (send: () => Promise<LightMyRequestResponse>, status: number, code: string) =>
      refusedUnchanged(snapshot, send, status, code);
    const operator = async (username: string, roles: string[], tenant?: string) => {
      const password = `pw-${randomBytes(12).toString('hex')}`;
      const made = await post('/api/operators', { username, password, roles, ...(tenant ? { tenant } : {}) });
      assert.equal(made.statusCode, 201, made.body);
      return bearer((await post('/api/login', { username, password }, {})).json().token);
    };

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, {}, undefined, { runJobs: false });
      assert.equal((await post('/api/tenants', { name: 'Alpha' })).statusCode, 201);
      support = await operator('desk', ['support']);
      tenantAdmin = await operator('alpha-admin', ['tenant-admin'], 'alpha');
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('a provider is registered, admitted and then listed on /verify; suspended, it is not', async () => {
      const made = await register('Pocket <Wallet>', 'https://pocket.example/download?x=1', support);
      assert.equal(made.statusCode, 201, made.body);
      const provider = made.json();
      assert.match(provider.walletId, /^wlt_[A-Za-z0-9_-]{22}$/);
      assert.equal(provider.state, 'requested');
      assert.equal(provider.homepage, 'https://pocket.example', 'a provider is named by its origin');
      assert.ok(!(await verifyPage()).includes('pocket.example'), 'a request is not listed');

      const admitted = await post('/api/wallets/accept', { walletId: provider.walletId });
      assert.equal(admitted.statusCode, 200, admitted.body);
      assert.equal(admitted.json().state, 'admitted');
      const page = await verifyPage();
      assert.match(page, /Wallets admitted by this service/);
      assert.ok(page.includes('<a href="https://pocket.example" rel="noopener">Pocket &lt;Wallet&gt;</a>'), page);

      const suspended = await post('/api/wallets/respond', {
        walletId: provider.walletId,
        decision: 'suspend',
        reason: 'Security review after an incident report',
      });
      assert.equal(suspended.statusCode, 200, suspended.body);
      assert.equal(suspended.json().state, 'suspended');
      assert.equal(suspended.json().reason, 'Security review after an incident report');
      assert.ok(!(await verifyPage()).includes('pocket.example'));
      const reinstated = await post('/api/wallets/accept', { walletId: provider.walletId });
      assert.equal(reinstated.json().state, 'admitted');
      assert.equal(reinstated.json().reason, null);

      const actions = await rail.db
        .selectFrom('audit_log')
        .select('action')
        .where('target', '=', provider.walletId)
        .orderBy('seq')
        .execute();
      assert.deepEqual(
        actions.map((a) => a.action),
        ['wallet.registered', 'wallet.admitted', 'wallet.suspended', 'wallet.admitted'],
      );
      const listed = await post('/api/wallets', { action: 'list', state: 'admitted' }, support);
      assert.equal(listed.statusCode, 200, listed.body);
      assert.deepEqual(
        listed.json().wallets.map((w: { walletId: string }) => w.walletId),
        [provider.walletId],
      );
    });

    test('decisions move only from the states they name; every refusal changes nothing', async () => {
      const provider = (await register('Rejected Wallet', 'https://rejected.example')).json();
      await refuses(() => register('Again', 'https://rejected.example/other'), 409, 'conflict');
      await refuses(
        () => post('/api/wallets/respond', { walletId: provider.walletId, decision: 'suspend', reason: 'No.' }),
        409,
        'wallet_state',
      );
      const rejected = await post('/api/wallets/respond', {
        walletId: provider.walletId,
        decision: 'reject',
        reason: 'No attestation of its key storage',
      });
      assert.equal(rejected.json().state, 'rejected');
      await refuses(() => post('/api/wallets/accept', { walletId: provider.walletId }), 409, 'wallet_state');
      await refuses(() => post('/api/wallets/accept', { walletId: `wlt_${'A'.repeat(22)}` }), 404, 'unknown_wallet');
      await refuses(() => register('Plain', 'http://plain.example'), 400, 'invalid_request');
      await refuses(() => post('/api/wallets', { action: 'register', name: 'No home' }), 400, 'invalid_request');
      await refuses(() => post('/api/wallets', { action: 'list', name: 'x' }), 400, 'invalid_request');
      await refuses(() => post('/api/wallets', { action: 'list', limit: '201' }), 400, 'invalid_request');
      await refuses(
        () => post('/api/wallets/respond', { walletId: provider.walletId, decision: 'reject' }),
        400,
        'invalid_request',
      );
      // Deciding is the platform owner's; a tenant's operator has no part in the registry.
      await refuses(() => post('/api/wallets/accept', { walletId: provider.walletId }, support), 403, 'forbidden');
      await refuses(() => register('Tenant Wallet', 'https://tenant.example', tenantAdmin), 403, 'forbidden');
      await refuses(() => post('/api/wallets', { action: 'list' }, tenantAdmin), 403, 'forbidden');
    });

    test('the list pages newest first, within a window of registration times', async () => {
      for (const n of [1, 2, 3]) assert.equal((await register(`Paged ${n}`, `https://paged-${n}.example`)).statusCode, 201);
      const all = (await post('/api/wallets', { action: 'list', limit: '200' })).json();
      assert.equal(all.nextCursor, null, 'the last page says so');
      const first = (await post('/api/wallets', { action: 'list', limit: '2' })).json();
      assert.equal(first.wallets.length, 2);
      const second = (await post('/api/wallets', { action: 'list', limit: '200', cursor: first.nextCursor })).json();
      const ids = [...first.wallets, ...second.wallets].map((w: { walletId: string }) => w.walletId);
      assert.deepEqual(
        ids,
        all.wallets.map((w: { walletId: string }) => w.walletId),
        'the pages make the whole list',
      );
      const times = all.wallets.map((w: { createdAt: string }) => w.createdAt);
      assert.deepEqual(times, [...times].sort().reverse(), 'newest first');
      const since = (await post('/api/wallets', { action: 'list', since: '2999-01-01' })).json();
      assert.deepEqual(since.wallets, [], 'nothing registered after since');
      await refuses(() => post('/api/wallets', { action: 'list', cursor: first.wallets[0].walletId }), 400, 'invalid_request');
    });
  });
}
