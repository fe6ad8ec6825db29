import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { accountOf, type HolderKey, holderJws, newHolderKey } from '../../../test/helpers/holder.ts';
import { accessToken, PASS_SUBJECT, registerType } from '../../../test/helpers/issuance.ts';
import { bearer, owner, PUBLIC_URL, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import { rowCounts } from '../../../test/helpers/refusals.ts';
import type { Clock } from '../../core/clock.ts';

const thumbprint = accountOf;
const TABLES = ['wallet_items', 'offers', 'members', 'audit_log', 'outbox', 'holder_jti'] as const;
const MINUTE = 60 * 1000;

for (const factory of testDatabases()) {
  describe(`wallet items (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let now = Date.now();
    const clock: Clock = { now: () => now };
    let passType: string;
    let demoType: string;

    const post = (url: string, payload: unknown, headers: Record<string, string> = owner) =>
      rail.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });
    const asHolder = async (key: HolderKey, claims: Record<string, unknown> = {}) => ({
      authorization: `Holder ${await holderJws({ aud: PUBLIC_URL, iat: Math.floor(now / 1000), ...claims }, { key })}`,
    });
    const list = (accountId: string, query = '') =>
      rail.app.inject({ method: 'GET', url: `/api/wallet/${accountId}/items${query}` });
    const decide = async (key: HolderKey, itemId: string, body?: Record<string, unknown>, prefix = '/api') =>
      rail.app.inject({
        method: 'POST',
        url: `${prefix}/wallet/${thumbprint(key)}/items/${itemId}/accept`,
        headers: await asHolder(key),
        ...(body ? { payload: body } : {}),
      });
    const offerTo = async (accountId: string, extra: Record<string, unknown> = {}) => {
      const res = await post('/api/offers', { tenant: 'alpha', typeId: passType, subject: PASS_SUBJECT, accountId, ...extra });
      assert.equal(res.statusCode, 201, res.body);
      return res.json() as { offerId: string; offerUri: string; itemId: string; expiresAt: string };
    };
    const enrol = async (tenant: string, accountId: string) => {
      const res = await post('/api/members/enroll', { tenant, accountId });
      assert.equal(res.statusCode, 201, res.body);
    };
    const counts = async () => {
      const out = await rowCounts(rail.db, TABLES);
      const states = await sql<{
        state: string;
        n: number;
      }>`select state, count(*) as n from wallet_items group by state`.execute(rail.db);
      for (const row of states.rows) out[`items.${row.state}`] = Number(row.n);
      return out;
    };
    /** Asserts the refusal and that it changed nothing but, for an admitted request, its spent jti. */
    const refuses = async (send: () => Promise<LightMyRequestResponse>, status: number, code: string, spendsJti = false) => {
      const before = await counts();
      const res = await send();
      assert.equal(res.statusCode, status, res.body);
      assert.equal(res.json().error, code, res.body);
      const afterwards = await counts();
      if (spendsJti) afterwards.holder_jti = (afterwards.holder_jti ?? 0) - 1;
      assert.deepEqual(afterwards, before, `${code} changed nothing`);
      return res;
    };
    /** The credential offer object behind a by-reference offer URI, fetched as a wallet would. */
    const offerObject = async (offerUri: string) => {
      const ref = new URL(new URL(offerUri).searchParams.get('credential_offer_uri') ?? '');
      assert.equal(ref.origin, PUBLIC_URL);
      return rail.app.inject({ method: 'GET', url: ref.pathname });
    };

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, {}, clock, { runJobs: false });
      for (const name of ['Alpha', 'Beta']) assert.equal((await post('/api/tenants', { name })).statusCode, 201);
      passType = (await registerType(rail.app, 'alpha', 'Club Pass')).typeId;
      demoType = (await registerType(rail.app, 'demo-transit', 'Rider Card')).typeId;
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('an addressed offer waits for enrolment, then lists as an envelope and hands out its URI on acceptance', async () => {
      const key = await newHolderKey();
      const account = thumbprint(key);
      const offer = await offerTo(account);
      assert.match(offer.itemId, /^itm_[A-Za-z0-9_-]{22}$/);
      assert.match(offer.offerUri, /^openid-credential-offer:\/\/\?credential_offer_uri=/, 'addressed offers go by reference');

      // Not enrolled: the thumbprint alone shows nothing and accepts nothing.
      assert.deepEqual((await list(account)).json(), { accountId: account, fixtures: false, items: [], nextCursor: null });
      await refuses(() => decide(key, offer.itemId), 404, 'unknown_item', true);

      await enrol('alpha', account);
      const page = (await list(account)).json();
      assert.equal(page.fixtures, false);
      assert.equal(page.items.length, 1);
      const [item] = page.items;
      assert.deepEqual(Object.keys(item).sort(), [
        'createdAt',
        'demo',
        'expiresAt',
        'itemId',
        'kind',
        'state',
        'tenant',
        'title',
        'updatedAt',
      ]);
      assert.equal(item.itemId, offer.itemId);
      assert.equal(item.kind, 'offer');
      assert.equal(item.state, 'pending');
      assert.equal(item.title, 'Club Pass');
      assert.equal(item.expiresAt, offer.expiresAt);
      assert.deepEqual(item.tenant, { slug: 'alpha', name: 'Alpha', did: 'did:web:rail.example.test:t:alpha' });
      for (const value of [PASS_SUBJECT.holder_name, PASS_SUBJECT.birth_date, 'Bruges']) {
        assert.ok(!JSON.stringify(page).includes(value), 'no claim value in the public list');
      }

      const accepted = await decide(key, offer.itemId);
      assert.equal(accepted.statusCode, 200, accepted.body);
      const answer = accepted.json();
      assert.equal(answer.item.state, 'accepted');
      assert.equal(answer.offerUri, offer.offerUri, 'the same URI the issuer was given');
      // The same again, through the /v1 alias, without a second audit entry.
      const audits = (await counts()).audit_log;
      const again = await decide(key, offer.itemId, undefined, '/v1');
      assert.equal(again.statusCode, 200, again.body);
      assert.deepEqual(again.json(), answer);
      assert.equal((await counts()).audit_log, audits);
      const entry = await rail.db
        .selectFrom('audit_log')
        .select(['actor', 'action', 'target'])
        .where('action', '=', 'item.accepted')
        .where('target', '=', offer.itemId)
        .executeTakeFirstOrThrow();
      assert.equal(entry.actor, `holder:${account}`);

      // The URI works: the wallet fetches the offer and redeems its code.
      const object = await offerObject(answer.offerUri);
      assert.equal(object.statusCode, 200, object.body);
      const code = object.json().grants['urn:ietf:params:oauth:grant-type:pre-authorized_code']['pre-authorized_code'];
      await accessToken(rail.app, 'alpha', code);
      // Declining once accepted is refused and changes nothing.
      await refuses(() => decide(key, offer.itemId, { decision: 'decline' }), 409, 'item_decided', true);
    });

    test('a declined offer stops working at once; accepting it later is item_decided', async () => {
      const key = await newHolderKey();
      const account = thumbprint(key);
      await enrol('alpha', account);
      const offer = await offerTo(account);
      assert.equal((await offerObject(offer.offerUri)).statusCode, 200);
      const declined = await decide(key, offer.itemId, { decision: 'decline' });
      assert.equal(declined.statusCode, 200, declined.body);
      assert.equal(declined.json().item.state, 'declined');
      assert.equal(declined.json().offerUri, undefined, 'a declined item hands out nothing');
      const gone = await offerObject(offer.offerUri);
      assert.equal(gone.statusCode, 404, gone.body);
      assert.equal(gone.json().error, 'unknown_offer');
      const again = await decide(key, offer.itemId, { decision: 'decline' });
      assert.deepEqual(again.json(), declined.json(), 'declining twice answers the same');
      await refuses(() => decide(key, offer.itemId), 409, 'item_decided', true);
    });

    test('an item past its expiry reads expired and cannot be decided', async () => {
      const key = await newHolderKey();
      const account = thumbprint(key);
      await enrol('alpha', account);
      const offer = await offerTo(account, { expiresIn: 60 });
      const saved = now;
      try {
        now += 2 * MINUTE;
        assert.equal((await list(account)).json().items[0].state, 'expired');
        await refuses(() => decide(key, offer.itemId), 409, 'item_expired', true);
        await refuses(() => decide(key, offer.itemId, { decision: 'decline' }), 409, 'item_expired', true);
      } finally {
        now = saved;
      }
    });

    test('the holder plane refuses other accounts, replays, stale or foreign signatures and other planes', async () => {
      const key = await newHolderKey();
      const account = thumbprint(key);
      await enrol('alpha', account);
      const offer = await offerTo(account);
      const url = `/api/wallet/${account}/items/${offer.itemId}/accept`;
      const other = await newHolderKey();
      await refuses(
        async () => rail.app.inject({ method: 'POST', url, headers: await asHolder(other) }),
        403,
        'account_mismatch',
      );
      const once = await asHolder(key);
      assert.equal((await rail.app.inject({ method: 'POST', url, headers: once })).statusCode, 200);
      await refuses(() => rail.app.inject({ method: 'POST', url, headers: once }), 401, 'unauthorized');
      await refuses(
        async () => rail.app.inject({ method: 'POST', url, headers: await asHolder(key, { iat: Math.floor(now / 1000) - 600 }) }),
        401,
        'unauthorized',
      );
      await refuses(
        async () => rail.app.inject({ method: 'POST', url, headers: await asHolder(key, { aud: 'https://elsewhere.example' }) }),
        401,
        'unauthorized',
      );
      await refuses(() => rail.app.inject({ method: 'POST', url, headers: owner }), 401, 'unauthorized');
      await refuses(() => rail.app.inject({ method: 'POST', url }), 401, 'unauthorized');
    });

    test('items are the account’s own and appear per tenant membership; pages follow the cursor', async () => {
      const key = await newHolderKey();
      const account = thumbprint(key);
      await enrol('alpha', account);
      const first = await offerTo(account);
      now += 1;
      const second = await offerTo(account);
      now += 1;
      const fromBeta = await post('/api/offers', {
        tenant: 'beta',
        typeId: (await registerType(rail.app, 'beta', `Beta Card ${randomBytes(3).toString('hex')}`)).typeId,
        subject: PASS_SUBJECT,
        accountId: account,
      });
      assert.equal(fromBeta.statusCode, 201, fromBeta.body);
      const ids = (await list(account)).json().items.map((i: { itemId: string }) => i.itemId);
      assert.deepEqual(ids, [second.itemId, first.itemId], 'beta’s offer waits until the holder joins beta');

      const firstPage = await list(account, '?limit=1');
      assert.equal(firstPage.statusCode, 200, firstPage.body);
      const one = firstPage.json();
      assert.deepEqual(
        one.items.map((i: { itemId: string }) => i.itemId),
        [second.itemId],
      );
      const next = (await list(account, `?limit=1&cursor=${one.nextCursor}`)).json();
      assert.deepEqual(
        next.items.map((i: { itemId: string }) => i.itemId),
        [first.itemId],
      );
      assert.equal(next.nextCursor, null, 'the last page says so');
      const created = Date.parse(one.items[0].createdAt);
      const windowed = async (q: string) => (await list(account, q)).json().items.map((i: { itemId: string }) => i.itemId);
      assert.deepEqual(await windowed(`?since=${new Date(created).toISOString()}`), [second.itemId]);
      assert.deepEqual(await windowed(`?until=${new Date(created).toISOString()}`), [first.itemId]);

      await enrol('beta', account);
      assert.equal((await list(account)).json().items.length, 3);
      // Another holder can neither see nor decide this holder's items.
      const stranger = await newHolderKey();
      assert.deepEqual((await list(thumbprint(stranger))).json().items, []);
      await refuses(() => decide(stranger, first.itemId), 404, 'unknown_item', true);

      for (const bad of ['?limit=0', '?limit=201', '?cursor=nonsense', '?cursor=1.itm_short', '?since=yesterday', '?extra=1']) {
        const res = await list(account, bad);
        assert.equal(res.statusCode, 400, `${bad}: ${res.body}`);
        assert.equal(res.json().error, 'invalid_request');
      }
      assert.equal((await list('not-a-thumbprint')).statusCode, 400);
    });

    test('a tenant-scoped operator addresses offers for its own tenant only', async () => {
      const password = `pw-${randomBytes(12).toString('hex')}`;
      const made = await post('/api/operators', { username: 'beta-issuer', password, roles: ['issuer'], tenant: 'beta' });
      assert.equal(made.statusCode, 201, made.body);
      const betaOnly = bearer((await post('/api/login', { username: 'beta-issuer', password }, {})).json().token);
      const account = thumbprint(await newHolderKey());
      await refuses(
        () => post('/api/offers', { tenant: 'alpha', typeId: passType, subject: PASS_SUBJECT, accountId: account }, betaOnly),
        403,
        'forbidden',
      );
      await refuses(
        () => post('/api/offers', { tenant: 'alpha', typeId: passType, subject: PASS_SUBJECT, accountId: 'short' }),
        400,
        'invalid_request',
      );
    });

    test('demonstration items are marked, and the list says fixtures', async () => {
      const key = await newHolderKey();
      const account = thumbprint(key);
      await enrol('demo-transit', account);
      const res = await post('/api/offers', {
        tenant: 'demo-transit',
        typeId: demoType,
        subject: PASS_SUBJECT,
        accountId: account,
      });
      assert.equal(res.statusCode, 201, res.body);
      const page = (await list(account)).json();
      assert.equal(page.fixtures, true);
      assert.equal(page.items[0].demo, true);
      assert.equal(page.items[0].tenant.name, 'Metro Transit (Demo)');
    });
  });
}
