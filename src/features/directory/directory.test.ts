import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { accountOf, type HolderKey, holderJws, newHolderKey } from '../../../test/helpers/holder.ts';
import { owner, PUBLIC_URL, startRail, type TestRail } from '../../../test/helpers/rail.ts';

const PEPPER = 'directory-pepper-0123456789abcdefghijklmnop';
const OTHER_PEPPER = 'directory-pepper-rotated-0123456789abcdefgh';
const ROUTES: Array<[method: 'GET' | 'POST' | 'DELETE', url: string, body?: Record<string, unknown>]> = [
  ['POST', '/directory/descriptor', { kind: 'email', value: 'ada@example.org' }],
  ['POST', '/directory/listing', { displayName: 'Ada', community: 'alpha', contacts: [] }],
  ['DELETE', '/directory/listing'],
  ['GET', '/directory/listing/me'],
  ['POST', '/directory/lookup', { entry: 'A'.repeat(43) }],
  ['POST', '/directory/search/community', { community: 'alpha' }],
  ['POST', '/directory/search/name', { query: 'ad' }],
];

const as = async (key: HolderKey) => ({ authorization: `Holder ${await holderJws({ aud: PUBLIC_URL }, { key })}` });

for (const factory of testDatabases()) {
  describe(`the holder directory (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let alpha: string;
    let beta: string;
    let ada: HolderKey;
    let bob: HolderKey;
    let cyd: HolderKey;
    let stranger: HolderKey;

    const call = async (key: HolderKey, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
      rail.app.inject({ method, url, headers: await as(key), ...(payload ? { payload } : {}) });
    const enrol = async (tenant: string, key: HolderKey) => {
      const res = await rail.app.inject({
        method: 'POST',
        url: '/api/members/enroll',
        headers: owner,
        payload: { tenant, accountId: accountOf(key) },
      });
      assert.equal(res.statusCode, 201, res.body);
    };
    const list = async (
      key: HolderKey,
      displayName: string,
      contacts: Array<{ kind: string; value: string }> = [],
      community = alpha,
    ) => {
      const res = await call(key, 'POST', '/directory/listing', { displayName, community, contacts });
      assert.ok(res.statusCode === 201 || res.statusCode === 200, res.body);
      return res.json();
    };

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, { OPENRAIL_DIRECTORY_PEPPER: PEPPER });
      alpha = (
        await rail.app.inject({ method: 'POST', url: '/api/tenants', headers: owner, payload: { name: 'Alpha Club' } })
      ).json().slug;
      beta = (
        await rail.app.inject({ method: 'POST', url: '/api/tenants', headers: owner, payload: { name: 'Beta Club' } })
      ).json().slug;
      [ada, bob, cyd, stranger] = await Promise.all([newHolderKey(), newHolderKey(), newHolderKey(), newHolderKey()]);
      for (const key of [ada, bob, cyd]) await enrol(alpha, key);
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('a listing keeps its contacts only as keyed hashes; nothing of them is in the database in clear', async () => {
      const made = await call(ada, 'POST', '/directory/listing', {
        displayName: 'Ada Lovelace',
        community: alpha,
        contacts: [
          { kind: 'email', value: '  Ada.Lovelace@Example.ORG ' },
          { kind: 'phone', value: '+32 (470) 12.34-56' },
        ],
      });
      assert.equal(made.statusCode, 201, made.body);
      const me = (await call(ada, 'GET', '/directory/listing/me')).json();
      assert.equal(me.displayName, 'Ada Lovelace');
      assert.deepEqual(me.contacts.map((c: { kind: string; current: boolean }) => [c.kind, c.current]).sort(), [
        ['email', true],
        ['phone', true],
      ]);
      const rows = JSON.stringify([
        ...(await sql`select * from directory_contacts`.execute(rail.db)).rows,
        ...(await sql`select * from directory_listings`.execute(rail.db)).rows,
      ]).toLowerCase();
      for (const clear of ['ada.lovelace@example.org', 'lovelace@', '32470123456', '470 12'])
        assert.ok(!rows.includes(clear), `${clear} is not stored`);
      const again = await call(ada, 'POST', '/directory/listing', {
        displayName: 'Ada L.',
        community: alpha,
        contacts: me.contacts.length ? [{ kind: 'email', value: 'ada.lovelace@example.org' }] : [],
      });
      assert.equal(again.statusCode, 200, 'a second put replaces the listing');
      assert.equal(again.json().contacts.length, 1);
      assert.equal(again.json().createdAt, me.createdAt);
    });

    test('a descriptor normalises the contact, and a lookup by it finds the listing', async () => {
      const res = await call(bob, 'POST', '/directory/descriptor', { kind: 'email', value: 'ADA.LOVELACE@example.org' });
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['ratelimit-policy']), /^"directory";q=60;w=3600$/);
      const { entry } = res.json();
      const mine = (await call(ada, 'GET', '/directory/listing/me')).json();
      assert.equal(entry, mine.contacts[0].entry);
      const found = await call(bob, 'POST', '/directory/lookup', { entry });
      assert.deepEqual(found.json().listings, [
        { accountId: accountOf(ada), community: alpha, communityName: 'Alpha Club', displayName: 'Ada L.' },
      ]);
      const wrong = await call(bob, 'POST', '/directory/descriptor', { kind: 'phone', value: '0470 12 34 56' });
      assert.equal(wrong.statusCode, 400);
      assert.equal(wrong.json().error, 'invalid_contact');
    });

    test('only enrolled holders use it, and a listing is in one of the holder’s own communities', async () => {
      for (const [method, url, body] of ROUTES.filter(
        ([, u]) => u !== '/directory/listing/me' && !(u === '/directory/listing'),
      )) {
        const res = await call(stranger, method, url, body && ('community' in body ? { ...body, community: alpha } : body));
        assert.equal(res.statusCode, 403, `${method} ${url}: ${res.body}`);
        assert.equal(res.json().error, 'not_enrolled');
      }
      const elsewhere = await call(bob, 'POST', '/directory/listing', { displayName: 'Bob', community: beta, contacts: [] });
      assert.equal(elsewhere.statusCode, 403);
      assert.equal(elsewhere.json().error, 'not_enrolled');
      const foreign = await call(bob, 'POST', '/directory/search/community', { community: beta });
      assert.equal(foreign.json().error, 'not_enrolled');
    });

    test('a holder changes only its own listing', async () => {
      const removed = await call(bob, 'DELETE', '/directory/listing');
      assert.equal(removed.statusCode, 404, 'bob has none; ada’s is not his to remove');
      assert.equal((await call(ada, 'GET', '/directory/listing/me')).statusCode, 200);
      assert.equal((await call(bob, 'GET', '/directory/listing/me')).statusCode, 404);
    });

    test('searches are bounded, paginated, and show active members only', async () => {
      await list(bob, 'Adam Bede');
      await list(cyd, 'Adele Hugo');
      const first = (await call(bob, 'POST', '/directory/search/community', { community: alpha, limit: 2 })).json();
      assert.deepEqual(
        first.listings.map((l: { displayName: string }) => l.displayName),
        ['Ada L.', 'Adam Bede'],
      );
      const rest = (
        await call(bob, 'POST', '/directory/search/community', { community: alpha, limit: 2, cursor: first.nextCursor })
      ).json();
      assert.deepEqual(
        rest.listings.map((l: { displayName: string }) => l.displayName),
        ['Adele Hugo'],
      );
      assert.equal(rest.nextCursor, null);
      const byName = (await call(cyd, 'POST', '/directory/search/name', { query: 'ADA' })).json();
      assert.deepEqual(
        byName.listings.map((l: { displayName: string }) => l.displayName),
        ['Ada L.', 'Adam Bede'],
      );
      const wild = (await call(cyd, 'POST', '/directory/search/name', { query: 'a%' })).json();
      assert.deepEqual(wild.listings, [], 'a % in the query is a character, not a wildcard');
      const tooShort = await call(cyd, 'POST', '/directory/search/name', { query: 'a' });
      assert.equal(tooShort.statusCode, 400);
      const badCursor = await call(cyd, 'POST', '/directory/search/community', { community: alpha, cursor: 'not-a-cursor' });
      assert.equal(badCursor.statusCode, 400);
      const tooMany = await call(cyd, 'POST', '/directory/search/community', { community: alpha, limit: 51 });
      assert.equal(tooMany.statusCode, 400);

      const suspended = await rail.app.inject({
        method: 'POST',
        url: '/api/members/update',
        headers: owner,
        payload: { tenant: alpha, accountId: accountOf(bob), status: 'suspended' },
      });
      assert.equal(suspended.statusCode, 200, suspended.body);
      const after = (await call(cyd, 'POST', '/directory/search/name', { query: 'ad' })).json();
      assert.deepEqual(
        after.listings.map((l: { displayName: string }) => l.displayName),
        ['Ada L.', 'Adele Hugo'],
        'a suspended member is not shown',
      );
    });

    test('descriptors and lookups are limited per holder and hour', async () => {
      const heavy = await newHolderKey();
      await enrol(alpha, heavy);
      let last = await call(heavy, 'POST', '/directory/lookup', { entry: 'B'.repeat(43) });
      for (let i = 1; i < 60; i++) last = await call(heavy, 'POST', '/directory/lookup', { entry: 'B'.repeat(43) });
      assert.equal(last.statusCode, 200);
      assert.match(String(last.headers.ratelimit), /^"directory";r=0;t=\d+$/);
      const over = await call(heavy, 'POST', '/directory/descriptor', { kind: 'email', value: 'x@example.org' });
      assert.equal(over.statusCode, 429);
      assert.equal(over.json().error, 'rate_limited');
      assert.ok(Number(over.headers['retry-after']) > 0);
      const other = await call(cyd, 'POST', '/directory/lookup', { entry: 'B'.repeat(43) });
      assert.equal(other.statusCode, 200, 'another holder has its own budget');
    });

    test('removing a listing removes its contacts', async () => {
      const removed = await call(cyd, 'DELETE', '/directory/listing');
      assert.equal(removed.statusCode, 204);
      const rows = await rail.db
        .selectFrom('directory_contacts')
        .select('entry')
        .where('account_id', '=', accountOf(cyd))
        .execute();
      assert.deepEqual(rows, []);
    });
  });
}

describe('the holder directory without a pepper, and after the pepper changes', () => {
  test('every route answers 503 directory_unconfigured to a holder, and 401 without one', async () => {
    const [factory] = testDatabases();
    assert.ok(factory);
    const db = await factory.create();
    const rail = await startRail(db);
    try {
      const key = await newHolderKey();
      for (const [method, url, body] of ROUTES) {
        const res = await rail.app.inject({ method, url, headers: await as(key), ...(body ? { payload: body } : {}) });
        assert.equal(res.statusCode, 503, `${method} ${url}: ${res.body}`);
        assert.equal(res.json().error, 'directory_unconfigured');
        const anonymous = await rail.app.inject({ method, url, ...(body ? { payload: body } : {}) });
        assert.equal(anonymous.statusCode, 401, `${method} ${url}`);
      }
    } finally {
      await rail.stop();
      await db.drop();
    }
  });

  test('entries made under an earlier pepper are shown as stale and no longer match', async () => {
    const [factory] = testDatabases();
    assert.ok(factory);
    const db = await factory.create();
    let rail = await startRail(db, { OPENRAIL_DIRECTORY_PEPPER: PEPPER });
    try {
      const tenant = (
        await rail.app.inject({ method: 'POST', url: '/api/tenants', headers: owner, payload: { name: 'Pepper Club' } })
      ).json().slug;
      const key = await newHolderKey();
      await rail.app.inject({
        method: 'POST',
        url: '/api/members/enroll',
        headers: owner,
        payload: { tenant, accountId: accountOf(key) },
      });
      const made = await rail.app.inject({
        method: 'POST',
        url: '/directory/listing',
        headers: await as(key),
        payload: { displayName: 'Pat', community: tenant, contacts: [{ kind: 'email', value: 'pat@example.org' }] },
      });
      assert.equal(made.statusCode, 201, made.body);
      await rail.stop();
      rail = await startRail(db, { OPENRAIL_DIRECTORY_PEPPER: OTHER_PEPPER });
      const me = (await rail.app.inject({ method: 'GET', url: '/directory/listing/me', headers: await as(key) })).json();
      assert.equal(me.contacts[0].current, false);
      const descriptor = (
        await rail.app.inject({
          method: 'POST',
          url: '/directory/descriptor',
          headers: await as(key),
          payload: { kind: 'email', value: 'pat@example.org' },
        })
      ).json();
      assert.notEqual(descriptor.entry, me.contacts[0].entry);
      const found = await rail.app.inject({
        method: 'POST',
        url: '/directory/lookup',
        headers: await as(key),
        payload: { entry: me.contacts[0].entry },
      });
      assert.deepEqual(found.json().listings, []);
    } finally {
      await rail.stop();
      await db.drop();
    }
  });
});
