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

    test('every read shows only listings in the caller’s own communities; naming another is refused and changes nothing', async () => {
      const gamma = (
        await rail.app.inject({ method: 'POST', url: '/api/tenants', headers: owner, payload: { name: 'Gamma Club' } })
      ).json().slug;
      // fay: alpha only. dan: beta only. eve: alpha and beta, listed in beta. gus: gamma only.
      const [fay, dan, eve, gus] = await Promise.all([newHolderKey(), newHolderKey(), newHolderKey(), newHolderKey()]);
      await enrol(alpha, fay);
      await enrol(beta, dan);
      await enrol(alpha, eve);
      await enrol(beta, eve);
      await enrol(gamma, gus);
      const shared = [{ kind: 'email', value: 'quill@example.org' }];
      await list(fay, 'Quill Alpha', shared, alpha);
      await list(dan, 'Quill Beta', shared, beta);
      await list(eve, 'Quill Both', shared, beta);
      await list(gus, 'Quill Gamma', shared, gamma);
      const { entry } = (await call(fay, 'POST', '/directory/descriptor', shared[0])).json();
      const names = (res: { json(): { listings: Array<{ displayName: string }> } }) =>
        res.json().listings.map((l) => l.displayName);
      const listed = new Map([
        [dan, 'Quill Beta'],
        [eve, 'Quill Both'],
        [gus, 'Quill Gamma'],
      ]);
      const hidden = (body: string, keys: HolderKey[], what: string) => {
        for (const key of keys) {
          assert.ok(!body.includes(accountOf(key)), `${what}: another community’s account id is not shown`);
          assert.ok(!body.includes(String(listed.get(key))), `${what}: another community’s display name is not shown`);
        }
      };

      const state = async () =>
        JSON.stringify([
          (await sql`select * from directory_listings order by account_id`.execute(rail.db)).rows,
          (await sql`select * from directory_contacts order by account_id, entry`.execute(rail.db)).rows,
          // The directory's own budget; every admitted holder request also counts in the
          // anonymous holder-request budget (docs/security.md), refused or not.
          (await sql`select * from rate_windows where key like 'directory:%' order by key, window_start`.execute(rail.db)).rows,
          (await sql`select * from members order by tenant, account_id`.execute(rail.db)).rows,
        ]);
      const before = await state();

      // The refusal search/community gives for a community that is not the caller's, and every read naming one.
      const refusal = await call(fay, 'POST', '/directory/search/community', { community: beta });
      assert.equal(refusal.statusCode, 403);
      assert.equal(refusal.json().error, 'not_enrolled');
      for (const community of [beta, gamma, 'no-such-club']) {
        for (const [url, body] of [
          ['/directory/search/community', { community }],
          ['/directory/search/name', { query: 'quill', community }],
          ['/directory/search/name', { query: 'quill', community, limit: 1 }],
        ] as const) {
          const res = await call(fay, 'POST', url, body);
          assert.equal(res.statusCode, 403, `${url} naming ${community}: ${res.body}`);
          assert.deepEqual(Object.keys(res.json()).sort(), ['error', 'message']);
          assert.equal(res.json().error, 'not_enrolled');
          assert.equal(res.json().message, `Only active members of ${community} search its directory.`);
          hidden(res.body, [dan, eve, gus], `${url} naming ${community}`);
          assert.ok(!res.body.includes('Quill'), `${url} naming ${community}: no display name is shown`);
        }
      }
      assert.equal(await state(), before, 'the refusals changed nothing, and spent no lookup budget');

      // Without a community, and by entry: the caller's own communities only.
      const byName = await call(fay, 'POST', '/directory/search/name', { query: 'quill' });
      assert.equal(byName.statusCode, 200, byName.body);
      assert.deepEqual(names(byName), ['Quill Alpha']);
      hidden(byName.body, [dan, eve, gus], 'search/name without a community');
      const own = await call(fay, 'POST', '/directory/search/name', { query: 'quill', community: alpha });
      assert.deepEqual(names(own), ['Quill Alpha']);
      const lookup = await call(fay, 'POST', '/directory/lookup', { entry });
      assert.equal(lookup.statusCode, 200, lookup.body);
      assert.deepEqual(lookup.json().listings, [
        { accountId: accountOf(fay), community: alpha, communityName: 'Alpha Club', displayName: 'Quill Alpha' },
      ]);
      hidden(lookup.body, [dan, eve, gus], 'lookup');

      // A holder of two communities sees both, merged into one order and paged across them, and never a third.
      const pages: string[][] = [];
      let cursor: string | undefined;
      do {
        const res = await call(eve, 'POST', '/directory/search/name', {
          query: 'quill',
          limit: 1,
          ...(cursor ? { cursor } : {}),
        });
        assert.equal(res.statusCode, 200, res.body);
        hidden(res.body, [gus], 'search/name across two communities');
        pages.push(names(res));
        cursor = res.json().nextCursor ?? undefined;
      } while (cursor !== undefined && pages.length < 10);
      assert.deepEqual(pages, [['Quill Alpha'], ['Quill Beta'], ['Quill Both']]);
      const eveLookup = (await call(eve, 'POST', '/directory/lookup', { entry })).json();
      assert.deepEqual(
        eveLookup.listings.map((l: { community: string; displayName: string }) => [l.community, l.displayName]),
        [
          [alpha, 'Quill Alpha'],
          [beta, 'Quill Beta'],
          [beta, 'Quill Both'],
        ],
      );
      const third = await call(eve, 'POST', '/directory/search/name', { query: 'quill', community: gamma });
      assert.equal(third.statusCode, 403);
      assert.equal(third.json().error, 'not_enrolled');

      // Membership decides, not the listing: once fay is suspended in alpha she has no community left.
      const suspended = await rail.app.inject({
        method: 'POST',
        url: '/api/members/update',
        headers: owner,
        payload: { tenant: alpha, accountId: accountOf(fay), status: 'suspended' },
      });
      assert.equal(suspended.statusCode, 200, suspended.body);
      const beforeSuspendedReads = await state();
      for (const [url, body] of [
        ['/directory/search/name', { query: 'quill' }],
        ['/directory/search/name', { query: 'quill', community: alpha }],
        ['/directory/search/community', { community: alpha }],
        ['/directory/lookup', { entry }],
      ] as const) {
        const res = await call(fay, 'POST', url, body);
        assert.equal(res.statusCode, 403, `${url}: ${res.body}`);
        assert.equal(res.json().error, 'not_enrolled');
        assert.ok(!res.body.includes('Quill'), `${url}: no display name is shown`);
      }
      assert.equal(await state(), beforeSuspendedReads, 'refused reads changed nothing');
    });

    test('listings elsewhere neither crowd the caller’s own out of a lookup nor reorder a search across its communities', async () => {
      const [kim, lee] = await Promise.all([newHolderKey(), newHolderKey()]);
      await enrol(alpha, kim);
      await enrol(beta, kim);
      await enrol(alpha, lee);
      const crowd = [{ kind: 'phone', value: '+32 470 99 88 77' }];
      await list(lee, 'Zz Lee', crowd, alpha);
      // More listings than a lookup answers, all in beta and all sorting before lee's.
      for (let i = 0; i < 12; i++) {
        const key = await newHolderKey();
        await enrol(beta, key);
        await list(key, `Aa Crowd ${String(i).padStart(2, '0')}`, crowd, beta);
      }
      const { entry } = (await call(lee, 'POST', '/directory/descriptor', crowd[0])).json();
      const found = await call(lee, 'POST', '/directory/lookup', { entry });
      assert.equal(found.statusCode, 200, found.body);
      assert.deepEqual(found.json().listings, [
        { accountId: accountOf(lee), community: alpha, communityName: 'Alpha Club', displayName: 'Zz Lee' },
      ]);
      const both = (await call(kim, 'POST', '/directory/lookup', { entry })).json().listings;
      assert.equal(both.length, 10, 'a lookup answers at most 10');
      assert.ok(
        both.every((l: { community: string }) => l.community === beta),
        'in name order, beta’s ten come before lee’s',
      );

      // U+FFFD sorts before U+1F600 in both engines (by code point) but after it in UTF-16 units.
      const [one, two] = await Promise.all([newHolderKey(), newHolderKey()]);
      await enrol(alpha, one);
      await enrol(beta, two);
      await list(one, 'Seam \u{1F600}', [], alpha);
      await list(two, 'Seam \uFFFD', [], beta);
      const pages: string[][] = [];
      let cursor: string | undefined;
      do {
        const res = await call(kim, 'POST', '/directory/search/name', { query: 'seam', limit: 1, ...(cursor ? { cursor } : {}) });
        assert.equal(res.statusCode, 200, res.body);
        pages.push(res.json().listings.map((l: { displayName: string }) => l.displayName));
        cursor = res.json().nextCursor ?? undefined;
      } while (cursor !== undefined && pages.length < 10);
      assert.deepEqual(pages, [['Seam \uFFFD'], ['Seam \u{1F600}']]);
      const whole = (await call(kim, 'POST', '/directory/search/name', { query: 'seam' })).json();
      assert.deepEqual(
        whole.listings.map((l: { displayName: string }) => l.displayName),
        ['Seam \uFFFD', 'Seam \u{1F600}'],
      );
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
