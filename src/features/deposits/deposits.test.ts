import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { billBody } from '../../../test/helpers/deposits.ts';
import { accountOf, type HolderKey, holderJws, newHolderKey } from '../../../test/helpers/holder.ts';
import { bearer, owner, PUBLIC_URL, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import { refusedUnchanged, rowCounts } from '../../../test/helpers/refusals.ts';

const thumbprint = accountOf;
const TABLES = ['deposits', 'products', 'wallet_items', 'members', 'audit_log', 'outbox'] as const;

const bill = billBody;

for (const factory of testDatabases()) {
  describe(`the deposit rail (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let alphaAdmin: Record<string, string>;
    let billProduct: string;

    const post = (url: string, payload: unknown, headers: Record<string, string> = owner) =>
      rail.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });
    const deposit = (tenant: string, body: unknown, headers: Record<string, string> = owner, prefix = '/api') =>
      post(`${prefix}/tenants/${tenant}/bills`, body, headers);
    const counts = () => rowCounts(rail.db, TABLES);
    const refuses = (send: () => Promise<LightMyRequestResponse>, status: number, code: string) =>
      refusedUnchanged(counts, send, status, code);
    const enrol = async (tenant: string, accountId: string) => {
      const res = await post('/api/members/enroll', { tenant, accountId });
      assert.equal(res.statusCode, 201, res.body);
    };
    const accept = async (key: HolderKey, itemId: string) =>
      rail.app.inject({
        method: 'POST',
        url: `/api/wallet/${thumbprint(key)}/items/${itemId}/accept`,
        headers: { authorization: `Holder ${await holderJws({ aud: PUBLIC_URL }, { key })}` },
      });
    const product = async (tenant: string, kind: string, extra: Record<string, unknown> = {}, approve = true) => {
      const made = await post('/api/products', { tenant, kind, name: `${kind} of ${tenant}`, ...extra });
      assert.equal(made.statusCode, 201, made.body);
      if (!approve) return made.json().productId as string;
      const approved = await post(`/api/products/${made.json().productId}/approve`, undefined);
      assert.equal(approved.statusCode, 200, approved.body);
      assert.equal(approved.json().approved, true);
      return made.json().productId as string;
    };
    const events = async (type: string) =>
      (await rail.db.selectFrom('outbox').select('data').where('type', '=', type).orderBy('seq').execute()).map((r) =>
        JSON.parse(r.data),
      );

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, {}, undefined, { runJobs: false });
      for (const name of ['Alpha', 'Beta']) assert.equal((await post('/api/tenants', { name })).statusCode, 201);
      const password = `pw-${randomBytes(12).toString('hex')}`;
      const made = await post('/api/operators', { username: 'alpha-admin', password, roles: ['tenant-admin'], tenant: 'alpha' });
      assert.equal(made.statusCode, 201, made.body);
      alphaAdmin = bearer((await post('/api/login', { username: 'alpha-admin', password }, {})).json().token);
      billProduct = await product('alpha', 'bill');
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('a deposit becomes an envelope for a member, and its holder receives it in full on acceptance', async () => {
      const key = await newHolderKey();
      const account = thumbprint(key);
      const body = bill(account);
      const res = await deposit('alpha', body, alphaAdmin);
      assert.equal(res.statusCode, 201, res.body);
      const answer = res.json();
      assert.deepEqual(Object.keys(answer).sort(), ['depositId', 'itemId', 'state']);
      assert.equal(answer.depositId, body.depositId);
      assert.equal(answer.state, 'pending');
      assert.deepEqual(await events('deposit.created'), [
        { depositId: body.depositId, itemId: answer.itemId, accountId: account, kind: 'bill', productId: billProduct },
      ]);

      // Not a member yet: nothing shows, nothing can be accepted.
      assert.deepEqual((await rail.app.inject({ method: 'GET', url: `/api/wallet/${account}/items` })).json().items, []);
      const hidden = await accept(key, answer.itemId);
      assert.equal(hidden.statusCode, 404, hidden.body);
      assert.equal(hidden.json().error, 'unknown_item');

      await enrol('alpha', account);
      const list = (await rail.app.inject({ method: 'GET', url: `/api/wallet/${account}/items` })).json();
      assert.equal(list.items.length, 1);
      assert.equal(list.items[0].kind, 'deposit');
      assert.equal(list.items[0].title, 'Water, October');
      assert.equal(list.items[0].expiresAt, null);
      const text = JSON.stringify(list);
      for (const secret of ['4215', 'WB-2026-10-4471', 'Standing charge', 'EUR']) assert.ok(!text.includes(secret), secret);

      const accepted = await accept(key, answer.itemId);
      assert.equal(accepted.statusCode, 200, accepted.body);
      assert.equal(accepted.json().item.state, 'accepted');
      assert.deepEqual(accepted.json().deposit, { ...body, tenant: 'alpha', itemId: answer.itemId });
      const again = await accept(key, answer.itemId);
      assert.deepEqual(again.json(), accepted.json(), 'accepting twice answers the same');
      assert.deepEqual(await events('deposit.accepted'), [
        { depositId: body.depositId, itemId: answer.itemId, accountId: account },
      ]);

      // Delivered again, the rail answers the item's state now.
      const replay = await deposit('alpha', body, alphaAdmin, '/v1');
      assert.equal(replay.statusCode, 200, replay.body);
      assert.deepEqual(replay.json(), { ...answer, state: 'accepted' });
    });

    test('the same depositId: the same body is answered again, another body is deposit_conflict', async () => {
      const account = thumbprint(await newHolderKey());
      const body = bill(account);
      const first = await deposit('alpha', body);
      assert.equal(first.statusCode, 201, first.body);
      // Key order and spelling do not matter; content does.
      const reordered = Object.fromEntries(Object.entries(body).reverse());
      const before = await counts();
      const replay = await deposit('alpha', reordered);
      assert.equal(replay.statusCode, 200, replay.body);
      assert.deepEqual(replay.json(), first.json());
      assert.deepEqual(await counts(), before, 'a replay writes nothing');
      await refuses(() => deposit('alpha', { ...body, amount: { value: 4216, currency: 'EUR' } }), 409, 'deposit_conflict');
      await refuses(
        () => deposit('alpha', { ...body, accountId: thumbprint({ publicJwk: { x: 'y' } } as never) }),
        409,
        'deposit_conflict',
      );
      // The same depositId at another tenant is another deposit.
      await product('beta', 'bill');
      assert.equal((await deposit('beta', body)).statusCode, 201);
    });

    test('racing first deliveries of one deposit make one row, one item and one event', async () => {
      const account = thumbprint(await newHolderKey());
      const body = bill(account);
      const answers = await Promise.all(Array.from({ length: 8 }, () => deposit('alpha', body)));
      assert.deepEqual(answers.map((r) => r.statusCode).sort(), [200, 200, 200, 200, 200, 200, 200, 201]);
      assert.equal(new Set(answers.map((r) => r.body)).size, 1, 'every answer is the same');
      const rows = await rail.db.selectFrom('deposits').select('item_id').where('deposit_id', '=', body.depositId).execute();
      assert.equal(rows.length, 1);
      assert.equal((await events('deposit.created')).filter((e) => e.depositId === body.depositId).length, 1);
    });

    test('every refusal of the rail names its reason and changes nothing', async () => {
      const account = thumbprint(await newHolderKey());
      const unsupported = await refuses(
        () => deposit('alpha', { contractVersion: '0.4.0', depositId: 'x', something: 'new' }),
        400,
        'unsupported_contract',
      );
      assert.match(unsupported.json().message, /0\.3\.0/);
      await refuses(() => deposit('alpha', { ...bill(account), contractVersion: undefined }), 400, 'unsupported_contract');
      await refuses(() => deposit('alpha', bill(account, { amount: { value: 1, currency: 'XYZ' } })), 400, 'invalid_currency');
      await refuses(
        () => deposit('alpha', bill(account, { lines: [{ label: 'x', amount: { value: 1, currency: 'USD' } }] })),
        400,
        'invalid_currency',
      );
      await refuses(() => deposit('alpha', bill(account, { amount: { value: 12.5, currency: 'EUR' } })), 400, 'invalid_request');
      await refuses(() => deposit('alpha', bill(account, { kind: 'invoice' })), 400, 'invalid_request');
      await refuses(() => deposit('alpha', bill(account, { issuedAt: 'yesterday' })), 400, 'invalid_request');
      await refuses(() => deposit('alpha', bill(account, { accountId: 'short' })), 400, 'invalid_request');
      await refuses(() => deposit('alpha', bill(account, { extra: 1 })), 400, 'invalid_request');
      await refuses(
        () => deposit('alpha', bill(account, { lines: Array.from({ length: 101 }, () => ({ label: 'x' })) })),
        400,
        'invalid_request',
      );
      await refuses(() => deposit('alpha', bill(account, { kind: 'receipt' })), 409, 'no_approved_product');
      await product('alpha', 'ticket', {}, false);
      await refuses(() => deposit('alpha', bill(account, { kind: 'ticket' })), 409, 'no_approved_product');
      await refuses(() => deposit('nowhere', bill(account)), 404, 'unknown_tenant');
      await refuses(() => deposit('beta', bill(account), alphaAdmin), 403, 'forbidden');
      await refuses(() => deposit('alpha', bill(account), {}), 401, 'unauthorized');
    });

    test('a product that requires a channel deposits only over an active one', async () => {
      const account = thumbprint(await newHolderKey());
      const receipts = await product('alpha', 'receipt');
      const set = await post(`/api/products/${receipts}/require-channel`, { tenant: 'alpha', required: true }, alphaAdmin);
      assert.equal(set.statusCode, 200, set.body);
      assert.equal(set.json().requireChannel, true);
      const body = bill(account, { kind: 'receipt', title: 'Parking, 2 hours', dueAt: undefined });
      await refuses(() => deposit('alpha', body), 409, 'channel_required');
      const channel = {
        tenant: 'alpha',
        account_id: account,
        elements: '[]',
        requested_by: 'tenant',
        created_at: 1,
        updated_at: 1,
      };
      await rail.db
        .insertInto('channels')
        .values({ ...channel, state: 'requested' })
        .execute();
      await refuses(() => deposit('alpha', body), 409, 'channel_required');
      await rail.db.updateTable('channels').set({ state: 'active' }).where('account_id', '=', account).execute();
      assert.equal((await deposit('alpha', body)).statusCode, 201);
      await rail.db.updateTable('channels').set({ state: 'revoked' }).where('account_id', '=', account).execute();
      await refuses(() => deposit('alpha', { ...body, depositId: 'after-revoke' }), 409, 'channel_required');
    });

    test('products: one per tenant and kind, approved by the platform only, each tenant its own', async () => {
      await refuses(() => post('/api/products', { tenant: 'alpha', kind: 'bill', name: 'Another' }), 409, 'conflict');
      const made = await post('/api/products', { tenant: 'alpha', kind: 'statement', name: 'Yearly' }, alphaAdmin);
      assert.equal(made.statusCode, 201, made.body);
      await refuses(() => post(`/api/products/${made.json().productId}/approve`, undefined, alphaAdmin), 403, 'forbidden');
      await refuses(() => post('/api/products', { tenant: 'beta', kind: 'statement', name: 'X' }, alphaAdmin), 403, 'forbidden');
      await refuses(
        () => post(`/api/products/${made.json().productId}/require-channel`, { tenant: 'beta', required: true }),
        404,
        'unknown_product',
      );
      await refuses(() => post(`/api/products/prd_${'A'.repeat(22)}/approve`, undefined), 404, 'unknown_product');
      const mine = await rail.app.inject({ method: 'GET', url: '/api/products?tenant=alpha', headers: alphaAdmin });
      assert.equal(mine.statusCode, 200, mine.body);
      assert.ok(mine.json().products.every((p: { tenant: string }) => p.tenant === 'alpha'));
      assert.ok(mine.json().products.length >= 2);
      const theirs = await rail.app.inject({ method: 'GET', url: '/api/products?tenant=beta', headers: alphaAdmin });
      assert.equal(theirs.statusCode, 403);
      const none = await rail.app.inject({ method: 'GET', url: '/api/products', headers: alphaAdmin });
      assert.equal(none.statusCode, 403, 'a scoped operator names its tenant');
      const all = await rail.app.inject({ method: 'GET', url: '/api/products?limit=1', headers: owner });
      assert.equal(all.json().products.length, 1);
      const next = await rail.app.inject({
        method: 'GET',
        url: `/api/products?limit=1&cursor=${all.json().nextCursor}`,
        headers: owner,
      });
      assert.notEqual(next.json().products[0].productId, all.json().products[0].productId);
      const whole = await rail.app.inject({ method: 'GET', url: '/api/products?limit=200', headers: owner });
      assert.equal(whole.json().nextCursor, null, 'the last page says so');
      const later = await rail.app.inject({ method: 'GET', url: '/api/products?since=2999-01-01', headers: owner });
      assert.deepEqual(later.json().products, [], 'nothing made after since');
      const bad = await rail.app.inject({ method: 'GET', url: '/api/products?cursor=prd_x', headers: owner });
      assert.equal(bad.statusCode, 400, 'an id is not a cursor');
    });

    test('the demo seed makes a marked demonstration, and seeding again changes nothing', async () => {
      const key = await newHolderKey();
      const account = thumbprint(key);
      const seeded = await post('/api/demo/seed', { accountId: account });
      assert.equal(seeded.statusCode, 200, seeded.body);
      const answer = seeded.json();
      assert.equal(answer.fixtures, true);
      assert.equal(answer.tenant.slug, 'demo-transit');
      assert.match(answer.tenant.name, / \(Demo\)$/);
      assert.equal(answer.products.length, 4);
      assert.ok(answer.products.every((p: { approved: boolean; tenant: string }) => p.approved && p.tenant === 'demo-transit'));
      assert.equal(answer.items.length, 3);
      const before = await counts();
      const again = await post('/api/demo/seed', { accountId: account });
      assert.deepEqual(again.json(), answer);
      assert.deepEqual(await counts(), before, 'a second seed writes nothing');
      const list = (await rail.app.inject({ method: 'GET', url: `/api/wallet/${account}/items` })).json();
      assert.equal(list.fixtures, true);
      assert.equal(list.items.length, 3);
      assert.ok(list.items.every((i: { demo: boolean }) => i.demo));
      const accepted = await accept(key, answer.items[0].itemId);
      assert.equal(accepted.json().deposit.tenant, 'demo-transit');
      // Without an account it seeds the catalogue only; it is the platform's to run.
      assert.equal((await post('/api/demo/seed', undefined)).json().items.length, 0);
      await refuses(() => post('/api/demo/seed', {}, alphaAdmin), 403, 'forbidden');
    });
  });
}
