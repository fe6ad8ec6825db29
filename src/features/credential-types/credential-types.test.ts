import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { PASS_CLAIMS, PASS_SUBJECT, PRE_AUTH, redeem } from '../../../test/helpers/issuance.ts';
import { bearer, owner, PUBLIC_URL, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import type { Clock } from '../../core/clock.ts';

/** Interface spec, "Credential type and claim specifications", rule 6. */
const RESERVED = ['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'jti', 'cnf', 'vct', 'status', '_sd', '_sd_alg'];
const TYPE_ID = /^[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?$/;
const OFFER_SCHEME = 'openid-credential-offer://';

/** The claims view PASS_CLAIMS registers to. */
const PASS_VIEW = [
  { name: 'holder_name', kind: 'text', mandatory: true },
  { name: 'birth_date', kind: 'date', mandatory: true },
  { name: 'balance', kind: 'number', mandatory: true },
  { name: 'fare', kind: 'money', mandatory: true },
  { name: 'student', kind: 'bool', mandatory: true },
  { name: 'zones', kind: 'array(text)', mandatory: true },
  { name: 'trips', kind: 'array(object)', mandatory: true },
  { name: 'class', kind: 'enum', mandatory: true, options: ['first', 'second'] },
];

function assertRefusal(res: LightMyRequestResponse, status: number, code: string, what = '') {
  assert.equal(res.statusCode, status, `${what}: ${res.body}`);
  assert.equal(res.headers['content-type'], 'application/json; charset=utf-8', what);
  const body = res.json();
  assert.deepEqual(Object.keys(body).sort(), ['error', 'message'], what);
  assert.equal(body.error, code, `${what}: ${res.body}`);
  return body.message as string;
}

/** The Credential Offer a by-value offerUri carries, and the URI's parameters. */
function offerByValue(offerUri: string) {
  assert.ok(offerUri.startsWith(`${OFFER_SCHEME}?`), offerUri);
  const params = new URL(offerUri).searchParams;
  assert.deepEqual([...params.keys()], ['credential_offer'], 'by value: credential_offer only');
  return JSON.parse(params.get('credential_offer') ?? 'null');
}

for (const factory of testDatabases()) {
  describe(`credential types, offers, manifest and type metadata over HTTP (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    // A clock the suite moves forward by hand, so expiry times are exact.
    let now = Date.UTC(2030, 0, 15, 9, 30, 0);
    const clock: Clock = { now: () => now };
    let slug: string; // a tenant of the suite's own
    let otherSlug: string; // a second tenant
    let scoped: Record<string, string>; // an issuer scoped to `slug`
    let verifierOnly: Record<string, string>; // a platform-wide operator without the issuer role
    const PASS = 'pass'; // typeId of the type registered in before() for `slug`
    let counter = 0;

    const post = (url: string, headers: Record<string, string>, payload: unknown) =>
      rail.app.inject({ method: 'POST', url, headers, payload: payload as object });
    const get = (url: string) => rail.app.inject({ method: 'GET', url });
    const typeCount = async () => (await rail.db.selectFrom('credential_types').select('type_id').execute()).length;
    const offerCount = async () => (await rail.db.selectFrom('offers').select('id').execute()).length;
    const typeRow = (tenant: string, typeId: string) =>
      rail.db
        .selectFrom('credential_types')
        .selectAll()
        .where('tenant', '=', tenant)
        .where('type_id', '=', typeId)
        .executeTakeFirst();
    const offerRow = (id: string) => rail.db.selectFrom('offers').selectAll().where('id', '=', id).executeTakeFirst();

    const operator = async (username: string, roles: string[], tenant?: string) => {
      const password = `Pw-${++counter}-correct-horse-battery-staple`;
      const created = await post('/api/operators', owner, { username, password, roles, ...(tenant ? { tenant } : {}) });
      assert.equal(created.statusCode, 201, created.body);
      const login = await post('/api/login', {}, { username, password });
      assert.equal(login.statusCode, 200, login.body);
      return bearer(login.json().token);
    };

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, {}, clock);
      const tenant = await post('/api/tenants', owner, { name: 'Transit Co' });
      assert.equal(tenant.statusCode, 201, tenant.body);
      slug = tenant.json().slug;
      const other = await post('/api/tenants', owner, { name: 'Other Co' });
      assert.equal(other.statusCode, 201, other.body);
      otherSlug = other.json().slug;
      const pass = await post('/api/types', owner, { tenant: slug, name: 'Pass', claims: PASS_CLAIMS });
      assert.equal(pass.statusCode, 201, pass.body);
      assert.equal(pass.json().typeId, PASS);
      scoped = await operator('scoped-issuer', ['issuer'], slug);
      verifierOnly = await operator('verifier-only', ['verifier']);
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    describe('POST /api/types', () => {
      test('registers a type: 201 {tenant, typeId, name, vct, claims} and one stored row', async () => {
        const before = await typeCount();
        const res = await post('/api/types', owner, { tenant: slug, name: 'Transit Pass', claims: PASS_CLAIMS });
        assert.equal(res.statusCode, 201, res.body);
        assert.deepEqual(res.json(), {
          tenant: slug,
          typeId: 'transit-pass',
          name: 'Transit Pass',
          vct: `${PUBLIC_URL}/t/${slug}/types/transit-pass`,
          claims: PASS_VIEW,
        });
        assert.equal(await typeCount(), before + 1);
        const row = await typeRow(slug, 'transit-pass');
        assert.equal(row?.name, 'Transit Pass');
      });

      test('/v1/types is the same operation', async () => {
        const res = await post('/v1/types', owner, {
          tenant: slug,
          name: 'Season Ticket',
          claims: ['holder_name', 'valid_until:date'],
        });
        assert.equal(res.statusCode, 201, res.body);
        assert.deepEqual(res.json(), {
          tenant: slug,
          typeId: 'season-ticket',
          name: 'Season Ticket',
          vct: `${PUBLIC_URL}/t/${slug}/types/season-ticket`,
          claims: [
            { name: 'holder_name', kind: 'text', mandatory: true },
            { name: 'valid_until', kind: 'date', mandatory: true },
          ],
        });
        const before = await typeCount();
        const refused = await post(
          '/v1/types',
          { 'content-type': 'application/json' },
          { tenant: slug, name: 'X', claims: ['a'] },
        );
        assertRefusal(refused, 401, 'unauthorized', '/v1 without bearer');
        const bad = await post('/v1/types', owner, { tenant: slug, name: 'V1 Bad', claims: ['a:float'] });
        assert.match(assertRefusal(bad, 400, 'invalid_claim_spec', '/v1 bad spec'), /"a:float"/);
        assert.equal(await typeCount(), before);
      });

      test('the typeId is the slug of the name; the name is kept with its spaces collapsed', async () => {
        const cases: Array<[string, string, string]> = [
          ['Café  Crème Card!', 'cafe-creme-card', 'Café Crème Card!'],
          ['  Spaced   Out  ', 'spaced-out', 'Spaced Out'],
          ['ID 2024 / Employee', 'id-2024-employee', 'ID 2024 / Employee'],
          [`${'a'.repeat(47)} ${'b'.repeat(52)}`, 'a'.repeat(47), `${'a'.repeat(47)} ${'b'.repeat(52)}`],
        ];
        for (const [name, typeId, kept] of cases) {
          const res = await post('/api/types', owner, { tenant: slug, name, claims: ['holder_name'] });
          assert.equal(res.statusCode, 201, `${name}: ${res.body}`);
          assert.equal(res.json().typeId, typeId, name);
          assert.match(res.json().typeId, TYPE_ID);
          assert.equal(res.json().name, kept, name);
          assert.equal(res.json().vct, `${PUBLIC_URL}/t/${slug}/types/${typeId}`);
          assert.equal((await typeRow(slug, typeId))?.name, kept);
        }
        const before = await typeCount();
        for (const name of ['!!!', '東京', '   ', '', 'x'.repeat(101)]) {
          assertRefusal(
            await post('/api/types', owner, { tenant: slug, name, claims: ['holder_name'] }),
            400,
            'invalid_request',
            name,
          );
        }
        assert.equal(await typeCount(), before, 'a name without a typeId registers nothing');
      });

      test('409 conflict for a second type with the same typeId; the first stays as it was', async () => {
        const first = await post('/api/types', owner, { tenant: slug, name: 'Library Card', claims: ['holder_name'] });
        assert.equal(first.statusCode, 201, first.body);
        const stored = await typeRow(slug, 'library-card');
        const before = await typeCount();
        for (const name of ['Library Card', 'library  card!', 'LIBRARY-CARD']) {
          const res = await post('/api/types', owner, { tenant: slug, name, claims: ['holder_name', 'expires:date'] });
          const message = assertRefusal(res, 409, 'conflict', name);
          assert.match(message, /library-card/);
        }
        assert.equal(await typeCount(), before);
        assert.deepEqual(await typeRow(slug, 'library-card'), stored, 'types are immutable');
        // The same name in another tenant is another type.
        const elsewhere = await post('/api/types', owner, { tenant: otherSlug, name: 'Library Card', claims: ['holder_name'] });
        assert.equal(elsewhere.statusCode, 201, elsewhere.body);
        assert.equal(elsewhere.json().vct, `${PUBLIC_URL}/t/${otherSlug}/types/library-card`);
      });

      test('every claim rule answers 400 with its code and a message naming the spec; nothing is written', async () => {
        const cases: Array<[string[], string, string, RegExp]> = [
          [['a:float'], 'invalid_claim_spec', '"a:float"', /not recognised/],
          [['a:Date'], 'invalid_claim_spec', '"a:Date"', /kind after ":" must be one of/],
          [['a:array(number)'], 'invalid_claim_spec', '"a:array(number)"', /kind after ":" must be one of/],
          [['a:'], 'invalid_claim_spec', '"a:"', /kind after ":" must be one of/],
          [['a:enum()'], 'invalid_claim_spec', '"a:enum()"', /enum option/],
          [['a:enum(a||b)'], 'invalid_claim_spec', '"a:enum(a||b)"', /enum option/],
          [['a:enum(a|a)'], 'invalid_claim_spec', '"a:enum(a|a)"', /listed twice/],
          [[' a'], 'invalid_claim_spec', '" a"', /a key is 1 to 64 letters/],
          [['1a'], 'invalid_claim_spec', '"1a"', /a key is 1 to 64 letters/],
          [['a.b'], 'invalid_claim_spec', '"a.b"', /a key is 1 to 64 letters/],
          [[''], 'invalid_claim_spec', '""', /a key is 1 to 64 letters/],
          [['holder_name', 'fare:money', 'weight:float'], 'invalid_claim_spec', '"weight:float"', /not recognised/],
          [['a', 'a:date'], 'invalid_claim_spec', '"a"', /declared twice/],
          [[], 'invalid_claim_spec', '', /at least one claim/],
          [Array.from({ length: 101 }, (_, i) => `c${i}`), 'invalid_claim_spec', '', /at most 100 claims/],
          ...RESERVED.map((key): [string[], string, string, RegExp] => [
            ['holder_name', key],
            'reserved_claim',
            `"${key}"`,
            /reserved/,
          ]),
          [['exp:date'], 'reserved_claim', '"exp"', /reserved/],
        ];
        const before = await typeCount();
        for (const [claims, code, names, rule] of cases) {
          const name = `Refused ${++counter}`;
          const res = await post('/api/types', owner, { tenant: slug, name, claims });
          const message = assertRefusal(res, 400, code, JSON.stringify(claims));
          assert.ok(message.includes(names), `${JSON.stringify(claims)}: ${message} names ${names}`);
          assert.match(message, rule, JSON.stringify(claims));
          assert.equal(await typeRow(slug, `refused-${counter}`), undefined);
        }
        assert.equal(await typeCount(), before, 'a refused registration writes no row');
      });

      test('schema refusals: non-string claims, unknown fields, missing fields, malformed JSON', async () => {
        const before = await typeCount();
        for (const body of [
          { tenant: slug, name: 'Schema 1', claims: [1] },
          { tenant: slug, name: 'Schema 2', claims: 'holder_name' },
          { tenant: slug, name: 'Schema 3', claims: ['holder_name'], typeId: 'chosen' },
          { tenant: slug, name: 'Schema 4' },
          { name: 'Schema 5', claims: ['holder_name'] },
          { tenant: 'Not A Slug', name: 'Schema 6', claims: ['holder_name'] },
        ]) {
          assertRefusal(await post('/api/types', owner, body), 400, 'invalid_request', JSON.stringify(body));
        }
        const malformed = await post('/api/types', { ...owner, 'content-type': 'application/json' }, '{"tenant": ');
        assertRefusal(malformed, 400, 'malformed_json');
        assert.equal(await typeCount(), before);
      });

      test('404 unknown_tenant for a tenant that does not exist', async () => {
        const before = await typeCount();
        const res = await post('/api/types', owner, { tenant: 'no-such-tenant', name: 'Orphan', claims: ['holder_name'] });
        assert.match(assertRefusal(res, 404, 'unknown_tenant'), /no-such-tenant/);
        assert.equal(await typeCount(), before);
      });

      test('401 without a bearer or with an unknown one; 403 for a role without issue rights', async () => {
        const before = await typeCount();
        const body = { tenant: slug, name: 'Unauthorised Type', claims: ['holder_name'] };
        for (const url of ['/api/types', '/v1/types']) {
          for (const headers of [{}, bearer('not-a-token-anyone-issued'), { authorization: 'Basic b3duZXI6b3duZXI=' }]) {
            const res = await post(url, headers, body);
            assertRefusal(res, 401, 'unauthorized', `${url} ${JSON.stringify(headers)}`);
            assert.match(String(res.headers['www-authenticate']), /^Bearer realm="openrail"/);
          }
          assertRefusal(await post(url, verifierOnly, body), 403, 'forbidden', `${url} verifier`);
        }
        assert.equal(await typeCount(), before);
      });

      test('a tenant-scoped issuer registers types for its own tenant only (403 elsewhere)', async () => {
        const own = await post('/api/types', scoped, { tenant: slug, name: 'Scoped Own', claims: ['holder_name'] });
        assert.equal(own.statusCode, 201, own.body);
        assert.equal(own.json().tenant, slug);
        const before = await typeCount();
        for (const url of ['/api/types', '/v1/types']) {
          for (const tenant of [otherSlug, 'root', 'demo-transit', 'no-such-tenant']) {
            const res = await post(url, scoped, { tenant, name: 'Scoped Foreign', claims: ['holder_name'] });
            assert.match(assertRefusal(res, 403, 'forbidden', `${url} ${tenant}`), new RegExp(tenant));
          }
        }
        assertRefusal(await post('/api/types', scoped, { name: 'No Tenant', claims: ['holder_name'] }), 400, 'invalid_request');
        assert.equal(await typeCount(), before);
        assert.equal(await typeRow(otherSlug, 'scoped-foreign'), undefined);
      });
    });

    describe('POST /api/offers', () => {
      const offer = (body: Record<string, unknown>, headers: Record<string, string> = owner, url = '/api/offers') =>
        post(url, headers, body);
      const passOffer = (extra: Record<string, unknown> = {}) => ({
        tenant: slug,
        typeId: PASS,
        subject: PASS_SUBJECT,
        ...extra,
      });

      test('each subject rule answers 400 with its code and a message naming the claim and the rule; nothing is written', async () => {
        const set = (key: string, value: unknown) => ({ ...PASS_SUBJECT, [key]: value });
        const without = (key: string) => Object.fromEntries(Object.entries(PASS_SUBJECT).filter(([k]) => k !== key));
        const cases: Array<[Record<string, unknown>, string, string, RegExp]> = [
          [set('balance', '12.5'), 'invalid_subject', 'balance', /number must be a JSON number, never a string/],
          [set('fare', '450'), 'invalid_subject', 'fare', /money must be a JSON number of minor units, never a string/],
          [set('fare', 450.5), 'invalid_subject', 'fare', /money must be a whole number of minor units/],
          [set('fare', 2 ** 53), 'invalid_subject', 'fare', /money must be a whole number of minor units/],
          [set('student', 'true'), 'invalid_subject', 'student', /bool must be a JSON boolean/],
          [set('student', 1), 'invalid_subject', 'student', /bool must be a JSON boolean/],
          [
            set('class', 'third'),
            'invalid_subject',
            'class',
            /enum value "third" must be one of the registered options: first, second/,
          ],
          [set('birth_date', '2023-02-29'), 'invalid_subject', 'birth_date', /YYYY-MM-DD/],
          [set('birth_date', '2024-13-01'), 'invalid_subject', 'birth_date', /YYYY-MM-DD/],
          [set('birth_date', '2024-02-29T00:00:00Z'), 'invalid_subject', 'birth_date', /YYYY-MM-DD/],
          [set('holder_name', 42), 'invalid_subject', 'holder_name', /text must be a JSON string/],
          [set('zones', 'A'), 'invalid_subject', 'zones', /must be a JSON array/],
          [set('zones', ['A', 2]), 'invalid_subject', 'zones', /array\(text\) element 1 must be a JSON string/],
          [set('trips', ['Ghent']), 'invalid_subject', 'trips', /array\(object\) element 0 must be a JSON object/],
          [set('trips', [{ leg: { _sd: ['x'] } }]), 'invalid_subject', 'trips', /uses "_sd", which SD-JWT reserves/],
          [set('trips', [{ '...': 'x' }]), 'invalid_subject', 'trips', /uses "\.\.\.", which SD-JWT reserves/],
          [set('trips', [{}, { a: [{ _sd_alg: 'sha-256' }] }]), 'invalid_subject', 'trips', /element 1 uses "_sd_alg"/],
          [set('nickname', 'Ada'), 'invalid_subject', 'nickname', /is not a claim of this credential type/],
          [without('student'), 'invalid_subject', 'student', /is required by this credential type and missing/],
          ...RESERVED.map((key): [Record<string, unknown>, string, string, RegExp] => [
            set(key, 'x'),
            'reserved_claim',
            key,
            /reserved/,
          ]),
        ];
        const before = await offerCount();
        for (const [subject, code, claim, rule] of cases) {
          for (const url of ['/api/offers', '/v1/offers']) {
            const res = await offer({ tenant: slug, typeId: PASS, subject }, owner, url);
            const message = assertRefusal(res, 400, code, `${url} ${JSON.stringify(subject)}`);
            assert.ok(message.includes(`"${claim}"`), `${message} names "${claim}"`);
            assert.match(message, rule);
          }
        }
        assert.equal(await offerCount(), before, 'a refused offer writes nothing');
      });

      test('values at the edges of the rules are accepted', async () => {
        for (const subject of [
          { ...PASS_SUBJECT, fare: -450, balance: -3.25 },
          { ...PASS_SUBJECT, fare: 0, balance: 0, student: true, class: 'second' },
          { ...PASS_SUBJECT, birth_date: '2024-02-29', zones: [], trips: [] },
          { ...PASS_SUBJECT, fare: Number.MAX_SAFE_INTEGER, trips: [{ note: '_sd', nested: { list: [{ a: 1 }] } }] },
        ]) {
          const res = await offer({ tenant: slug, typeId: PASS, subject });
          assert.equal(res.statusCode, 201, `${JSON.stringify(subject)}: ${res.body}`);
        }
      });

      test('404 unknown_type for a type the tenant does not have; 404 unknown_tenant for a tenant that does not exist', async () => {
        const before = await offerCount();
        for (const body of [
          { tenant: slug, typeId: 'no-such-type', subject: PASS_SUBJECT },
          { tenant: otherSlug, typeId: PASS, subject: PASS_SUBJECT },
          { tenant: 'root', typeId: PASS, subject: PASS_SUBJECT },
        ]) {
          const message = assertRefusal(await offer(body), 404, 'unknown_type', JSON.stringify(body));
          assert.match(message, new RegExp(body.typeId));
        }
        const unknown = { tenant: 'no-such-tenant', typeId: PASS, subject: PASS_SUBJECT };
        assert.match(assertRefusal(await offer(unknown), 404, 'unknown_tenant', 'an unknown tenant'), /no-such-tenant/);
        assert.equal(await offerCount(), before);
      });

      test('201 {offerUri, offerId, expiresAt}: the offer by value, redeemable once at the tenant token endpoint', async () => {
        const before = await offerCount();
        const res = await offer(passOffer());
        assert.equal(res.statusCode, 201, res.body);
        const body = res.json();
        assert.deepEqual(Object.keys(body).sort(), ['expiresAt', 'offerId', 'offerUri']);
        assert.match(body.offerId, /^off_[A-Za-z0-9_-]+$/);
        assert.equal(body.expiresAt, new Date(now + 900_000).toISOString(), 'default lifetime 15 minutes');
        const credentialOffer = offerByValue(body.offerUri);
        assert.deepEqual(Object.keys(credentialOffer).sort(), ['credential_configuration_ids', 'credential_issuer', 'grants']);
        assert.equal(credentialOffer.credential_issuer, `${PUBLIC_URL}/t/${slug}`);
        assert.deepEqual(credentialOffer.credential_configuration_ids, [PASS]);
        assert.deepEqual(Object.keys(credentialOffer.grants), [PRE_AUTH]);
        const grant = credentialOffer.grants[PRE_AUTH];
        assert.deepEqual(Object.keys(grant), ['pre-authorized_code'], 'no tx_code unless asked for');
        const code = grant['pre-authorized_code'] as string;
        assert.ok(code.length >= 32, code);

        assert.equal(await offerCount(), before + 1);
        const row = await offerRow(body.offerId);
        assert.equal(row?.tenant, slug);
        assert.equal(row?.type_id, PASS);
        assert.equal(row?.tx_code, null);
        assert.equal(row?.ref_hash, null);
        assert.ok(!JSON.stringify(row).includes(code), 'the code is stored only as a hash');

        const token = await redeem(rail.app, slug, { grant_type: PRE_AUTH, 'pre-authorized_code': code });
        assert.equal(token.statusCode, 200, token.body);
        assert.equal(typeof token.json().access_token, 'string');
        const again = await redeem(rail.app, slug, { grant_type: PRE_AUTH, 'pre-authorized_code': code });
        assert.equal(again.statusCode, 400, again.body);
        assert.equal(again.json().error, 'invalid_grant');
      });

      test('/v1/offers is the same operation', async () => {
        const res = await offer(passOffer(), owner, '/v1/offers');
        assert.equal(res.statusCode, 201, res.body);
        assert.deepEqual(offerByValue(res.json().offerUri).credential_configuration_ids, [PASS]);
        const before = await offerCount();
        assertRefusal(await offer(passOffer(), {}, '/v1/offers'), 401, 'unauthorized');
        assert.equal(await offerCount(), before);
      });

      test('a transaction code only when asked: shown once, described in the offer, required at the token endpoint', async () => {
        const plain = await offer(passOffer({ txCode: false }));
        assert.equal(plain.statusCode, 201, plain.body);
        assert.equal(plain.json().txCode, undefined);
        assert.equal(offerByValue(plain.json().offerUri).grants[PRE_AUTH].tx_code, undefined);

        const numeric = await offer(passOffer({ txCode: true }));
        assert.equal(numeric.statusCode, 201, numeric.body);
        assert.deepEqual(Object.keys(numeric.json()).sort(), ['expiresAt', 'offerId', 'offerUri', 'txCode']);
        const txCode = numeric.json().txCode as string;
        assert.match(txCode, /^[0-9]{6}$/);
        const grant = offerByValue(numeric.json().offerUri).grants[PRE_AUTH];
        assert.deepEqual(grant.tx_code, { input_mode: 'numeric', length: 6 });
        assert.ok(!decodeURIComponent(numeric.json().offerUri).includes(`"${txCode}"`), 'the tx code is not in the offer');
        const row = await offerRow(numeric.json().offerId);
        assert.ok(row?.tx_code_hash && !row.tx_code_hash.includes(txCode));
        const code = grant['pre-authorized_code'];
        const missing = await redeem(rail.app, slug, { grant_type: PRE_AUTH, 'pre-authorized_code': code });
        assert.equal(missing.statusCode, 400, missing.body);
        const ok = await redeem(rail.app, slug, { grant_type: PRE_AUTH, 'pre-authorized_code': code, tx_code: txCode });
        assert.equal(ok.statusCode, 200, ok.body);

        const text = await offer(passOffer({ txCode: { length: 8, inputMode: 'text', description: 'Sent to you by SMS' } }));
        assert.equal(text.statusCode, 201, text.body);
        assert.match(text.json().txCode, /^[A-Z2-9]{8}$/);
        assert.deepEqual(offerByValue(text.json().offerUri).grants[PRE_AUTH].tx_code, {
          input_mode: 'text',
          length: 8,
          description: 'Sent to you by SMS',
        });

        const before = await offerCount();
        for (const txCode of [{ length: 3 }, { length: 13 }, { inputMode: 'alpha' }, { description: '' }, 'yes', { size: 6 }]) {
          assertRefusal(await offer(passOffer({ txCode })), 400, 'invalid_request', JSON.stringify(txCode));
        }
        assert.equal(await offerCount(), before);
      });

      test('by reference: credential_offer_uri serves the same offer, no-store, until the code is redeemed', async () => {
        const res = await offer(passOffer({ byReference: true, txCode: true }));
        assert.equal(res.statusCode, 201, res.body);
        const body = res.json();
        assert.deepEqual(Object.keys(body).sort(), ['expiresAt', 'offerId', 'offerUri', 'txCode']);
        assert.ok(body.offerUri.startsWith(`${OFFER_SCHEME}?`), body.offerUri);
        const params = new URL(body.offerUri).searchParams;
        assert.deepEqual([...params.keys()], ['credential_offer_uri'], 'by reference: credential_offer_uri only');
        const uri = new URL(params.get('credential_offer_uri') ?? '');
        assert.equal(uri.origin, PUBLIC_URL);
        assert.ok(uri.href.startsWith(`${PUBLIC_URL}/t/${slug}/credential-offer/`), 'under the tenant issuer identifier');
        assert.match(uri.pathname, new RegExp(`^/t/${slug}/credential-offer/[A-Za-z0-9_-]{43}$`));
        const handle = uri.pathname.split('/').at(-1) ?? '';
        const row = await offerRow(body.offerId);
        assert.ok(row?.ref_hash && row.ref_hash !== handle);
        assert.ok(!JSON.stringify(row).includes(handle), 'the handle is stored only as a hash');

        const fetched = await get(uri.pathname);
        assert.equal(fetched.statusCode, 200, fetched.body);
        assert.equal(fetched.headers['cache-control'], 'no-store');
        const credentialOffer = fetched.json();
        assert.deepEqual(Object.keys(credentialOffer).sort(), ['credential_configuration_ids', 'credential_issuer', 'grants']);
        assert.equal(credentialOffer.credential_issuer, `${PUBLIC_URL}/t/${slug}`);
        assert.deepEqual(credentialOffer.credential_configuration_ids, [PASS]);
        assert.deepEqual(Object.keys(credentialOffer.grants), [PRE_AUTH]);
        const grant = credentialOffer.grants[PRE_AUTH];
        assert.deepEqual(grant.tx_code, { input_mode: 'numeric', length: 6 });
        const code = grant['pre-authorized_code'];
        assert.equal(typeof code, 'string');
        assert.ok(!JSON.stringify(row).includes(code), 'the code is stored only as a hash');

        const refetched = await get(uri.pathname);
        assert.equal(refetched.statusCode, 200, 'refetchable while unredeemed');
        assert.equal(refetched.headers['cache-control'], 'no-store');
        assert.deepEqual(refetched.json(), credentialOffer, 'the same offer every time');

        const token = await redeem(rail.app, slug, { grant_type: PRE_AUTH, 'pre-authorized_code': code, tx_code: body.txCode });
        assert.equal(token.statusCode, 200, token.body);
        const spent = await get(uri.pathname);
        assertRefusal(spent, 404, 'unknown_offer', 'after redemption');
        assert.equal(spent.headers['cache-control'], 'no-store');
      });

      test("a by-reference offer answers at its own issuer's address only", async () => {
        const res = await offer(passOffer({ byReference: true }));
        assert.equal(res.statusCode, 201, res.body);
        const uri = new URL(new URL(res.json().offerUri).searchParams.get('credential_offer_uri') ?? '');
        const handle = uri.pathname.split('/').at(-1) ?? '';
        assertRefusal(await get(`/credential-offer/${handle}`), 404, 'unknown_offer', 'at the platform issuer');
        assertRefusal(await get(`/t/${otherSlug}/credential-offer/${handle}`), 404, 'unknown_offer', 'at another tenant');
        assertRefusal(await get(`/t/root/credential-offer/${handle}`), 404, 'unknown_tenant', '/t/root');
        assert.equal((await get(uri.pathname)).statusCode, 200, 'still open at its own address');

        const badge = await post('/api/types', owner, { tenant: 'root', name: 'Root Ref Badge', claims: ['holder_name'] });
        assert.equal(badge.statusCode, 201, badge.body);
        const rootOffer = await offer({
          tenant: 'root',
          typeId: 'root-ref-badge',
          subject: { holder_name: 'Ada' },
          byReference: true,
        });
        assert.equal(rootOffer.statusCode, 201, rootOffer.body);
        const rootUri = new URL(new URL(rootOffer.json().offerUri).searchParams.get('credential_offer_uri') ?? '');
        assert.match(rootUri.href, new RegExp(`^${PUBLIC_URL}/credential-offer/[A-Za-z0-9_-]{43}$`), 'root issues at the base');
        const fetched = await get(rootUri.pathname);
        assert.equal(fetched.statusCode, 200, fetched.body);
        assert.equal(fetched.json().credential_issuer, PUBLIC_URL);
        assert.deepEqual(fetched.json().credential_configuration_ids, ['root-ref-badge']);
      });

      test('by reference without a transaction code; an unknown handle is 404 unknown_offer', async () => {
        const res = await offer(passOffer({ byReference: true }));
        assert.equal(res.statusCode, 201, res.body);
        assert.equal(res.json().txCode, undefined);
        const uri = new URL(new URL(res.json().offerUri).searchParams.get('credential_offer_uri') ?? '');
        const fetched = await get(uri.pathname);
        assert.equal(fetched.statusCode, 200, fetched.body);
        assert.deepEqual(Object.keys(fetched.json().grants[PRE_AUTH]), ['pre-authorized_code']);
        assertRefusal(await get(`/t/${slug}/credential-offer/${randomBytes(32).toString('base64url')}`), 404, 'unknown_offer');
        assertRefusal(await get(`/credential-offer/${randomBytes(32).toString('base64url')}`), 404, 'unknown_offer');
      });

      test('expiresIn sets the lifetime within 60 s and 7 days; a by-reference offer is gone when it expires', async () => {
        for (const expiresIn of [60, 3600, 604_800]) {
          const res = await offer(passOffer({ expiresIn }));
          assert.equal(res.statusCode, 201, res.body);
          assert.equal(res.json().expiresAt, new Date(now + expiresIn * 1000).toISOString(), String(expiresIn));
          const row = await offerRow(res.json().offerId);
          assert.equal(Number(row?.expires_at), now + expiresIn * 1000);
        }
        const before = await offerCount();
        for (const expiresIn of [59, 0, -60, 604_801, 90.5, '900', null]) {
          assertRefusal(await offer(passOffer({ expiresIn })), 400, 'invalid_request', String(expiresIn));
        }
        assert.equal(await offerCount(), before);

        const short = await offer(passOffer({ byReference: true, expiresIn: 60 }));
        assert.equal(short.statusCode, 201, short.body);
        const path = new URL(new URL(short.json().offerUri).searchParams.get('credential_offer_uri') ?? '').pathname;
        now += 59_999;
        assert.equal((await get(path)).statusCode, 200, 'open until its expiry');
        now += 1;
        assertRefusal(await get(path), 404, 'unknown_offer', 'at its expiry');
      });

      test('schema refusals: unknown fields, missing subject, a subject that is not an object', async () => {
        const before = await offerCount();
        for (const body of [
          { ...passOffer(), note: 'x' },
          { tenant: slug, typeId: PASS },
          { tenant: slug, subject: PASS_SUBJECT },
          { typeId: PASS, subject: PASS_SUBJECT },
          { tenant: slug, typeId: PASS, subject: [PASS_SUBJECT] },
          { tenant: slug, typeId: PASS, subject: 'x' },
          { tenant: slug, typeId: 'Not_A_Type', subject: PASS_SUBJECT },
          { ...passOffer(), byReference: 'yes' },
        ]) {
          assertRefusal(await offer(body), 400, 'invalid_request', JSON.stringify(body));
        }
        assert.equal(await offerCount(), before);
      });

      test('auth: 401 without a bearer, 403 without the issuer role or outside a tenant scope', async () => {
        const before = await offerCount();
        for (const url of ['/api/offers', '/v1/offers']) {
          for (const headers of [{}, bearer('not-a-token-anyone-issued')]) {
            const res = await offer(passOffer(), headers, url);
            assertRefusal(res, 401, 'unauthorized', url);
            assert.match(String(res.headers['www-authenticate']), /^Bearer realm="openrail"/);
          }
          assertRefusal(await offer(passOffer(), verifierOnly, url), 403, 'forbidden', `${url} verifier`);
          for (const tenant of [otherSlug, 'root', 'demo-transit']) {
            const res = await offer({ tenant, typeId: PASS, subject: PASS_SUBJECT }, scoped, url);
            assert.match(assertRefusal(res, 403, 'forbidden', `${url} ${tenant}`), new RegExp(tenant));
          }
        }
        assert.equal(await offerCount(), before);
        const own = await offer(passOffer(), scoped);
        assert.equal(own.statusCode, 201, own.body);
        assert.equal(offerByValue(own.json().offerUri).credential_issuer, `${PUBLIC_URL}/t/${slug}`);
      });

      test('the platform (root) issues at the base: issuer, vct and token endpoint carry no /t/ prefix', async () => {
        const type = await post('/api/types', owner, { tenant: 'root', name: 'Platform Badge', claims: ['holder_name'] });
        assert.equal(type.statusCode, 201, type.body);
        assert.equal(type.json().vct, `${PUBLIC_URL}/types/platform-badge`);
        const res = await offer({ tenant: 'root', typeId: 'platform-badge', subject: { holder_name: 'Ada' } });
        assert.equal(res.statusCode, 201, res.body);
        const credentialOffer = offerByValue(res.json().offerUri);
        assert.equal(credentialOffer.credential_issuer, PUBLIC_URL);
        const code = credentialOffer.grants[PRE_AUTH]['pre-authorized_code'];
        const wrongIssuer = await redeem(rail.app, slug, { grant_type: PRE_AUTH, 'pre-authorized_code': code });
        assert.equal(wrongIssuer.statusCode, 400, 'a code is redeemed at its own issuer only');
        const token = await redeem(rail.app, 'root', { grant_type: PRE_AUTH, 'pre-authorized_code': code });
        assert.equal(token.statusCode, 200, token.body);
      });
    });

    describe('GET /manifest', () => {
      test("a tenant's manifest with ?tenant=<slug>: name, did and every type's claims", async () => {
        const fresh = await post('/api/tenants', owner, { name: 'Manifest Museum' });
        assert.equal(fresh.statusCode, 201, fresh.body);
        const museum = fresh.json().slug as string;
        const empty = await get(`/manifest?tenant=${museum}`);
        assert.equal(empty.statusCode, 200, empty.body);
        assert.deepEqual(empty.json(), { name: 'Manifest Museum', did: `did:web:rail.example.test:t:${museum}`, types: [] });

        for (const [name, claims] of [
          ['Museum Pass', PASS_CLAIMS],
          ['Guide Badge', ['guide_name', 'languages:array(text)', 'level:enum(junior|senior)']],
        ] as const) {
          now += 1000;
          const res = await post('/api/types', owner, { tenant: museum, name, claims });
          assert.equal(res.statusCode, 201, res.body);
        }
        const res = await get(`/manifest?tenant=${museum}`);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['access-control-allow-origin'], '*');
        const manifest = res.json();
        assert.equal(manifest.name, 'Manifest Museum');
        assert.equal(manifest.did, `did:web:rail.example.test:t:${museum}`);
        const byId = Object.fromEntries((manifest.types as Array<{ typeId: string }>).map((t) => [t.typeId, t]));
        assert.deepEqual(Object.keys(byId), ['museum-pass', 'guide-badge'], 'types in registration order');
        assert.deepEqual(byId['museum-pass'], {
          typeId: 'museum-pass',
          name: 'Museum Pass',
          vct: `${PUBLIC_URL}/t/${museum}/types/museum-pass`,
          manifest: { claims: PASS_VIEW },
        });
        assert.deepEqual(byId['guide-badge'], {
          typeId: 'guide-badge',
          name: 'Guide Badge',
          vct: `${PUBLIC_URL}/t/${museum}/types/guide-badge`,
          manifest: {
            claims: [
              { name: 'guide_name', kind: 'text', mandatory: true },
              { name: 'languages', kind: 'array(text)', mandatory: true },
              { name: 'level', kind: 'enum', mandatory: true, options: ['junior', 'senior'] },
            ],
          },
        });
        for (const t of manifest.types as Array<{ manifest: { claims: Array<Record<string, unknown>> } }>) {
          for (const c of t.manifest.claims) {
            assert.equal(typeof c.kind, 'string');
            assert.equal(typeof c.name, 'string');
            assert.equal(typeof c.mandatory, 'boolean');
          }
        }
      });

      test('without ?tenant the platform (root) answers', async () => {
        const type = await post('/api/types', owner, {
          tenant: 'root',
          name: 'Root Manifest Card',
          claims: ['member_since:date'],
        });
        assert.equal(type.statusCode, 201, type.body);
        const res = await get('/manifest');
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['access-control-allow-origin'], '*');
        const manifest = res.json();
        assert.equal(manifest.name, 'openrail');
        assert.equal(manifest.did, 'did:web:rail.example.test');
        const card = (manifest.types as Array<{ typeId: string }>).find((t) => t.typeId === 'root-manifest-card');
        assert.deepEqual(card, {
          typeId: 'root-manifest-card',
          name: 'Root Manifest Card',
          vct: `${PUBLIC_URL}/types/root-manifest-card`,
          manifest: { claims: [{ name: 'member_since', kind: 'date', mandatory: true }] },
        });
        assert.ok(
          !(manifest.types as Array<{ typeId: string }>).some((t) => t.typeId === PASS),
          "another tenant's type is not listed",
        );
        assert.deepEqual((await get('/manifest?tenant=root')).json(), manifest);
      });

      test("the manifest names the tenant by its profile's display name when one is set", async () => {
        const fresh = await post('/api/tenants', owner, { name: 'Branded Org' });
        assert.equal(fresh.statusCode, 201, fresh.body);
        const branded = fresh.json().slug as string;
        const update = await post('/api/tenants/update', owner, { tenant: branded, displayName: 'Branded Organisation' });
        assert.equal(update.statusCode, 200, update.body);
        const res = await get(`/manifest?tenant=${branded}`);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().name, 'Branded Organisation');
        assert.equal(res.json().did, `did:web:rail.example.test:t:${branded}`);
      });

      test('404 unknown_tenant for an unknown tenant; 400 for a malformed query', async () => {
        const res = await get('/manifest?tenant=no-such-tenant');
        assert.match(assertRefusal(res, 404, 'unknown_tenant'), /no-such-tenant/);
        assert.equal(res.headers['access-control-allow-origin'], '*', 'errors are CORS-open too');
        assertRefusal(await get('/manifest?tenant=Not%20A%20Slug'), 400, 'invalid_request');
        assertRefusal(await get(`/manifest?tenant=${slug}&lang=en`), 400, 'invalid_request');
      });
    });

    describe('Type Metadata at the vct URL', () => {
      test("a tenant type's vct resolves to its Type Metadata", async () => {
        const vct = `${PUBLIC_URL}/t/${slug}/types/${PASS}`;
        const res = await get(new URL(vct).pathname);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['access-control-allow-origin'], '*');
        const meta = res.json();
        assert.equal(meta.vct, vct);
        assert.equal(meta.name, 'Pass');
        assert.deepEqual(meta.display, [{ locale: 'en', name: 'Pass' }]);
        assert.deepEqual(
          meta.claims.map((c: { path: unknown[]; mandatory: boolean; sd: string }) => [c.path, c.mandatory, c.sd]),
          [
            [['holder_name'], true, 'always'],
            [['birth_date'], true, 'always'],
            [['balance'], true, 'always'],
            [['fare'], true, 'always'],
            [['student'], true, 'always'],
            [['zones'], true, 'always'],
            [['zones', null], false, 'always'],
            [['trips'], true, 'always'],
            [['trips', null], false, 'always'],
            [['class'], true, 'always'],
          ],
        );
        assert.deepEqual(meta.claims[0].display, [{ locale: 'en', label: 'Holder name' }]);
        assert.deepEqual(meta.claims[6].display, [{ locale: 'en', label: 'Zones (item)' }]);
      });

      test('the vct a registration returns is the address that serves it, for a tenant and for root', async () => {
        for (const tenant of [slug, 'root']) {
          const reg = await post('/api/types', owner, { tenant, name: `Resolvable ${tenant}`, claims: ['holder_name'] });
          assert.equal(reg.statusCode, 201, reg.body);
          const { vct, typeId } = reg.json();
          assert.equal(vct, tenant === 'root' ? `${PUBLIC_URL}/types/${typeId}` : `${PUBLIC_URL}/t/${tenant}/types/${typeId}`);
          const res = await get(new URL(vct).pathname);
          assert.equal(res.statusCode, 200, res.body);
          assert.equal(res.json().vct, vct);
          assert.equal(res.json().name, `Resolvable ${tenant}`);
        }
      });

      test('/t/root/types/<id> is 404 (root answers at /types/<id>); unknown types and tenants are 404', async () => {
        const reg = await post('/api/types', owner, { tenant: 'root', name: 'Root Only', claims: ['holder_name'] });
        assert.equal(reg.statusCode, 201, reg.body);
        assert.equal((await get('/types/root-only')).statusCode, 200);
        assertRefusal(await get('/t/root/types/root-only'), 404, 'unknown_tenant', '/t/root');
        assertRefusal(await get('/t/root/types/x'), 404, 'unknown_tenant', '/t/root/types/x');
        assertRefusal(await get(`/t/${slug}/types/no-such-type`), 404, 'unknown_type');
        assertRefusal(await get(`/types/${PASS}`), 404, 'unknown_type', "a tenant's type is not root's");
        assertRefusal(await get(`/t/${otherSlug}/types/${PASS}`), 404, 'unknown_type', "another tenant's type");
      });

      test('an unknown tenant in the vct path is 404 unknown_tenant, as /t/<unknown>/did.json is', async () => {
        assertRefusal(await get('/t/no-such-tenant/did.json'), 404, 'unknown_tenant', 'did.json');
        const res = await get('/t/no-such-tenant/types/pass');
        assert.match(assertRefusal(res, 404, 'unknown_tenant', 'type metadata'), /no-such-tenant/);
      });
    });
  });
}
