import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { billBody } from '../../../test/helpers/deposits.ts';
import { accountOf, type HolderKey, holderJws, newHolderKey } from '../../../test/helpers/holder.ts';
import { bearer, owner, ownerCalls, PUBLIC_URL, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import { refusedUnchanged, rowCounts } from '../../../test/helpers/refusals.ts';

const thumbprint = accountOf;
const TABLES = ['channels', 'share_settings', 'sharing_log', 'wallet_items', 'audit_log', 'outbox'] as const;

for (const factory of testDatabases()) {
  describe(`channels and sharing (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let alphaAdmin: Record<string, string>;

    const { post, get } = ownerCalls(() => rail);
    const asHolder = async (key: HolderKey) => ({ authorization: `Holder ${await holderJws({ aud: PUBLIC_URL }, { key })}` });
    const itemUrl = (key: HolderKey, itemId: string, what: 'accept' | 'sharing') =>
      `/api/wallet/${thumbprint(key)}/items/${itemId}/${what}`;
    const decide = async (key: HolderKey, itemId: string, decision = 'accept') =>
      post(itemUrl(key, itemId, 'accept'), { decision }, await asHolder(key));
    const share = async (key: HolderKey, itemId: string, body: unknown, prefix = '/api') =>
      post(`${prefix}${itemUrl(key, itemId, 'sharing').slice(4)}`, body, await asHolder(key));
    const counts = async () => {
      const states = await sql<{ s: string }>`select state || ':' || tenant as s from channels order by s`.execute(rail.db);
      return { rows: await rowCounts(rail.db, TABLES), channels: states.rows.map((r) => r.s) };
    };
    const refuses = (send: () => Promise<LightMyRequestResponse>, status: number, code: string) =>
      refusedUnchanged(counts, send, status, code);
    const events = async (type: string) =>
      (await rail.db.selectFrom('outbox').select('data').where('type', '=', type).orderBy('seq').execute()).map((r) =>
        JSON.parse(r.data),
      );
    /** An enrolled holder with one accepted water bill from alpha. */
    const holderWithBill = async () => {
      const key = await newHolderKey();
      const accountId = thumbprint(key);
      assert.equal((await post('/api/members/enroll', { tenant: 'alpha', accountId })).statusCode, 201);
      const res = await post('/api/tenants/alpha/bills', billBody(accountId));
      assert.equal(res.statusCode, 201, res.body);
      const itemId = res.json().itemId as string;
      assert.equal((await decide(key, itemId)).statusCode, 200);
      return { key, accountId, itemId };
    };

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, {}, undefined, { runJobs: false });
      for (const name of ['Alpha', 'Beta']) assert.equal((await post('/api/tenants', { name })).statusCode, 201);
      const made = await post('/api/products', { tenant: 'alpha', kind: 'bill', name: 'Water bill' });
      assert.equal((await post(`/api/products/${made.json().productId}/approve`)).statusCode, 200);
      const password = `pw-${randomBytes(12).toString('hex')}`;
      const op = await post('/api/operators', { username: 'alpha-admin', password, roles: ['tenant-admin'], tenant: 'alpha' });
      assert.equal(op.statusCode, 201, op.body);
      alphaAdmin = bearer((await post('/api/login', { username: 'alpha-admin', password }, {})).json().token);
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('an organisation asks, the holder accepts, shares one element, and the organisation reads it', async () => {
      const { key, accountId, itemId } = await holderWithBill();
      const asked = await post(
        '/api/org-channels/request',
        { tenant: 'alpha', accountId, elements: ['amount', 'title'] },
        alphaAdmin,
      );
      assert.equal(asked.statusCode, 201, asked.body);
      assert.equal(asked.json().channel.state, 'requested');
      assert.equal(asked.json().channel.requestedBy, 'tenant');
      const requestItem = asked.json().itemId;
      const listed = (await get(`/api/wallet/${accountId}/items`, {})).json().items;
      const envelope = listed.find((i: { itemId: string }) => i.itemId === requestItem);
      assert.equal(envelope.kind, 'channel-request');
      assert.equal(envelope.title, 'Alpha asks for: amount, title');
      await refuses(
        () => post('/api/org-channels/request', { tenant: 'alpha', accountId, elements: ['x'] }),
        409,
        'channel_state',
      );

      const accepted = await decide(key, requestItem);
      assert.equal(accepted.statusCode, 200, accepted.body);
      assert.equal(accepted.json().channel.state, 'active');
      assert.deepEqual(
        (await events('channel.activated')).filter((e) => e.accountId === accountId),
        [{ accountId, elements: ['amount', 'title'], by: 'holder' }],
      );

      // Nothing is shared until the holder says so.
      const before = (await get('/api/org-channels?tenant=alpha', alphaAdmin)).json().channels;
      assert.deepEqual(before.find((c: { accountId: string }) => c.accountId === accountId).shared, []);

      const shared = await share(key, itemId, { shares: [{ tenant: 'alpha', elements: ['amount'] }] });
      assert.equal(shared.statusCode, 200, shared.body);
      assert.deepEqual(shared.json().shares, [{ tenant: 'alpha', elements: ['amount'], channel: 'active' }]);
      assert.equal(shared.json().log.length, 1);
      assert.deepEqual(shared.json().log[0].elements, ['amount']);
      const channel = (await get('/api/org-channels?tenant=alpha', alphaAdmin))
        .json()
        .channels.find((c: { accountId: string }) => c.accountId === accountId);
      assert.deepEqual(channel.shared, [
        { itemId, kind: 'deposit', title: 'Water, October', elements: { amount: { value: 4215, currency: 'EUR' } } },
      ]);

      // The same settings again write nothing to the log; an empty body only reads, via /v1 too.
      const again = await share(key, itemId, { shares: [{ tenant: 'alpha', elements: ['amount'] }] });
      assert.equal(again.json().log.length, 1);
      const read = await share(key, itemId, undefined, '/v1');
      assert.equal(read.statusCode, 200, read.body);
      assert.deepEqual(read.json(), again.json());

      // The holder revokes: the organisation reads nothing more at once.
      const revoked = await share(key, itemId, { revoke: ['alpha'] });
      assert.equal(revoked.statusCode, 200, revoked.body);
      assert.equal(revoked.json().shares[0].channel, 'revoked');
      const after = (await get('/api/org-channels?tenant=alpha&state=revoked', alphaAdmin)).json().channels;
      const gone = after.find((c: { accountId: string }) => c.accountId === accountId);
      assert.equal(gone.state, 'revoked');
      assert.equal(gone.shared, undefined);
      assert.ok((await events('channel.revoked')).some((e) => e.accountId === accountId && e.by === 'holder'));
    });

    test('sharing with a tenant without a channel asks it for one; it accepts on the console', async () => {
      const { key, accountId, itemId } = await holderWithBill();
      const shared = await share(key, itemId, { shares: [{ tenant: 'beta', elements: ['title', 'reference'] }] });
      assert.equal(shared.statusCode, 200, shared.body);
      assert.deepEqual(shared.json().shares, [{ tenant: 'beta', elements: ['reference', 'title'], channel: 'requested' }]);
      const pending = (await get('/api/org-channels?tenant=beta&state=requested')).json().channels;
      const asked = pending.find((c: { accountId: string }) => c.accountId === accountId);
      assert.equal(asked.requestedBy, 'holder');
      assert.equal(asked.shared, undefined, 'nothing flows before the organisation accepts');
      await refuses(() => post(`/api/org-channels/beta/${accountId}/accept`, undefined, alphaAdmin), 403, 'forbidden');
      const accepted = await post(`/api/org-channels/beta/${accountId}/accept`);
      assert.equal(accepted.statusCode, 200, accepted.body);
      assert.equal(accepted.json().state, 'active');
      await refuses(() => post(`/api/org-channels/beta/${accountId}/accept`), 409, 'channel_state');
      const flowing = (await get('/api/org-channels?tenant=beta&state=active')).json().channels;
      assert.deepEqual(flowing.find((c: { accountId: string }) => c.accountId === accountId).shared[0].elements, {
        reference: 'WB-2026-10-4471',
        title: 'Water, October',
      });
      const revoked = await post(`/api/org-channels/beta/${accountId}/revoke`);
      assert.equal(revoked.json().state, 'revoked');
      await refuses(() => post(`/api/org-channels/beta/${accountId}/revoke`), 409, 'channel_state');
    });

    test('declined, withdrawn and renewed requests', async () => {
      const key = await newHolderKey();
      const accountId = thumbprint(key);
      const first = await post('/api/org-channels/request', { tenant: 'alpha', accountId, elements: ['title'] });
      assert.equal(first.statusCode, 201, first.body);
      const declined = await decide(key, first.json().itemId, 'decline');
      assert.equal(declined.statusCode, 200, declined.body);
      assert.equal(declined.json().channel, undefined);
      assert.equal((await get(`/api/org-channels?tenant=alpha&state=declined`)).json().channels.length, 1);
      // The organisation cannot accept its own request, nor decline it; it may ask again.
      await refuses(() => post(`/api/org-channels/alpha/${accountId}/accept`), 409, 'channel_state');
      const second = await post('/api/org-channels/request', { tenant: 'alpha', accountId, elements: ['title', 'amount'] });
      assert.equal(second.statusCode, 201, second.body);
      await refuses(() => decide(key, first.json().itemId), 409, 'item_decided');
      // Withdrawn, then asked again: only the newest request's item activates the channel.
      assert.equal((await post(`/api/org-channels/alpha/${accountId}/revoke`)).statusCode, 200);
      await refuses(() => decide(key, second.json().itemId), 409, 'channel_state');
      const third = await post('/api/org-channels/request', { tenant: 'alpha', accountId, elements: ['amount'] });
      await refuses(() => decide(key, second.json().itemId), 409, 'channel_state');
      const accepted = await decide(key, third.json().itemId);
      assert.equal(accepted.json().channel.state, 'active');
      assert.deepEqual(accepted.json().channel.elements, ['amount']);
    });

    test('every refusal of sharing names its reason and changes nothing', async () => {
      const { key, itemId, accountId } = await holderWithBill();
      await refuses(() => share(key, itemId, { shares: [{ tenant: 'alpha', elements: ['colour'] }] }), 400, 'unknown_element');
      await refuses(
        () =>
          share(key, itemId, {
            shares: [
              { tenant: 'alpha', elements: ['title'] },
              { tenant: 'alpha', elements: ['amount'] },
            ],
          }),
        400,
        'invalid_request',
      );
      await refuses(() => share(key, itemId, { shares: [{ tenant: 'nowhere', elements: ['title'] }] }), 404, 'unknown_tenant');
      await refuses(() => share(key, itemId, { revoke: ['beta'] }), 409, 'channel_state');
      await refuses(() => share(key, itemId, { shares: [], other: 1 }), 400, 'invalid_request');
      // A pending deposit is not shared; a channel request has nothing to share.
      const pending = await post('/api/tenants/alpha/bills', {
        contractVersion: '0.3.0',
        depositId: `pending-${randomBytes(4).toString('hex')}`,
        accountId,
        kind: 'bill',
        title: 'Sewage',
        issuedAt: '2026-11-01T08:00:00Z',
      });
      await refuses(() => share(key, pending.json().itemId, { shares: [] }), 409, 'item_not_accepted');
      const asked = await post('/api/org-channels/request', { tenant: 'beta', accountId, elements: ['title'] });
      await decide(key, asked.json().itemId);
      await refuses(() => share(key, asked.json().itemId, { shares: [] }), 409, 'item_not_shareable');
      const stranger = await newHolderKey();
      await refuses(
        async () => post(itemUrl(key, itemId, 'sharing'), { shares: [] }, await asHolder(stranger)),
        403,
        'account_mismatch',
      );
      await refuses(() => share(stranger, itemId, { shares: [] }), 404, 'unknown_item');
      await refuses(() => post(itemUrl(key, itemId, 'sharing'), { shares: [] }, owner), 401, 'unauthorized');
    });

    test('the console keeps each tenant to its own channels', async () => {
      const accountId = thumbprint(await newHolderKey());
      assert.equal((await post('/api/org-channels/request', { tenant: 'beta', accountId, elements: ['title'] })).statusCode, 201);
      await refuses(
        () => post('/api/org-channels/request', { tenant: 'beta', accountId, elements: ['title'] }, alphaAdmin),
        403,
        'forbidden',
      );
      assert.equal((await get('/api/org-channels?tenant=beta', alphaAdmin)).statusCode, 403);
      assert.equal((await get('/api/org-channels', alphaAdmin)).statusCode, 403);
      const mine = (await get('/api/org-channels?tenant=alpha', alphaAdmin)).json().channels;
      assert.ok(mine.every((c: { tenant: string }) => c.tenant === 'alpha'));
      await refuses(() => post(`/api/org-channels/beta/${accountId}/revoke`, undefined, alphaAdmin), 403, 'forbidden');
      await refuses(() => post(`/api/org-channels/alpha/${accountId}/revoke`, undefined, alphaAdmin), 404, 'unknown_channel');
      const page = (await get('/api/org-channels?limit=1')).json();
      assert.equal(page.channels.length, 1);
      const next = (await get(`/api/org-channels?limit=1&cursor=${page.nextCursor}`)).json();
      assert.notDeepEqual(next.channels[0], page.channels[0]);
      assert.equal((await get('/api/org-channels?cursor=nonsense')).statusCode, 400);
      const otherList = Buffer.from(JSON.stringify([1, 'x'])).toString('base64url');
      assert.equal((await get(`/api/org-channels?cursor=${otherList}`)).statusCode, 400, 'a cursor of another order');
      const all = (await get('/api/org-channels?limit=200')).json();
      assert.equal(all.nextCursor, null, 'the last page says so');
      assert.ok(all.channels.length > 1);
      assert.deepEqual((await get('/api/org-channels?since=2999-01-01')).json().channels, [], 'opened after since');
      assert.equal((await get('/api/org-channels?until=2999-01-01')).json().channels.length, all.channels.length);
    });
  });
}
