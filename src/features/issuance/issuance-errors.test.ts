// Negative tests of the OID4VCI token, nonce and credential endpoints (OID4VCI 1.0 §6, §7, §8 and
// standards-notes §4 and §9), for a tenant created over the API and for the platform (root) issuer.
// Every refusal asserts its status and exact OAuth body, and that nothing changed: the five tables
// of the issuance rail are read before and after, and the same code, token or nonce then completes a
// successful collection.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { type HolderKey, newHolderKey } from '../../../test/helpers/holder.ts';
import {
  accessToken,
  createOffer,
  freshNonce,
  issuerId,
  issuerPath,
  PASS_SUBJECT,
  PRE_AUTH,
  proofJwt,
  redeem,
  registerType,
  requestCredential,
} from '../../../test/helpers/issuance.ts';
import { OWNER_TOKEN, owner, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import type { Clock } from '../../core/clock.ts';
import { hashToken } from '../../core/secrets.ts';

const TENANT = 'harbour-line';
const OTHER_TENANT = 'river-ferries';
/** The issuers every case runs at: a tenant created with POST /api/tenants, and the platform. */
const ISSUERS = [TENANT, 'root'];
const ALL_ISSUERS = [TENANT, OTHER_TENANT, 'root'];
const othersOf = (issuer: string) => ALL_ISSUERS.filter((i) => i !== issuer);

const BATCH_SIZE = 10;
/** Access token and c_nonce lifetime, and how old a proof's iat may be (token-service.ts, verify-proof.ts). */
const TTL_S = 300;
const PROOF_MAX_AGE_S = 300;
const PROOF_TYP = 'openid4vci-proof+jwt';
const FORM = 'application/x-www-form-urlencoded';

const CHALLENGE = 'Bearer realm="openrail"';
const INVALID_TOKEN_CHALLENGE = `${CHALLENGE}, error="invalid_token"`;
const TOKEN_PROBLEM = 'The access token is unknown, spent or expired.';
const BAD_CODE = 'The pre-authorized code is unknown, already used or expired.';
const NONCE_PROBLEM = 'A proof carries a c_nonce that is unknown, used or expired; fetch a fresh one.';
const BAD_SIGNATURE = 'The proof signature does not verify with its jwk.';
const BAD_IAT = `The proof iat must be within the last ${PROOF_MAX_AGE_S} seconds.`;

type Response = LightMyRequestResponse;

function assertOAuthError(res: Response, status: number, error: string, description: string, challenge?: string) {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.deepEqual(res.json(), { error, error_description: description });
  // RFC 6750 §3: a 401 carries its challenge; other refusals carry none.
  assert.equal(res.headers['www-authenticate'], challenge);
}

/** A different transaction code of the same shape: every digit shifted by `shift` (1..9). */
const wrongTxCode = (right: string, shift: number) =>
  right
    .split('')
    .map((c) => String((Number(c) + shift) % 10))
    .join('');

for (const factory of testDatabases()) {
  describe(`OID4VCI issuance refusals over HTTP (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    /** The service's clock: real time plus an offset a test moves (and always puts back). */
    let offsetMs = 0;
    const clock: Clock = { now: () => Date.now() + offsetMs };
    const nowS = () => Math.floor(clock.now() / 1000);
    /** Runs `fn` with the service clock `seconds` away from real time. */
    const at = async <T>(seconds: number, fn: () => Promise<T>): Promise<T> => {
      offsetMs = seconds * 1000;
      try {
        return await fn();
      } finally {
        offsetMs = 0;
      }
    };
    /** Per issuer: the type offers grant, and a second type of the same issuer nobody is offered. */
    const pass: Record<string, string> = {};
    const bike: Record<string, string> = {};
    /** A type that exists at OTHER_TENANT only. */
    let ferry = '';

    before(async () => {
      db = await factory.create();
      // No background jobs: a sweep run while a test has moved the clock on would prune what it compares.
      rail = await startRail(db, {}, clock, { runJobs: false });
      for (const [name, slug] of [
        ['Harbour Line', TENANT],
        ['River Ferries', OTHER_TENANT],
      ]) {
        const res = await rail.app.inject({ method: 'POST', url: '/api/tenants', headers: owner, payload: { name } });
        assert.equal(res.statusCode, 201, res.body);
        assert.equal(res.json().slug, slug);
      }
      for (const issuer of ALL_ISSUERS) pass[issuer] = (await registerType(rail.app, issuer, 'Rail Pass')).typeId;
      for (const issuer of ISSUERS) bike[issuer] = (await registerType(rail.app, issuer, 'Bike Pass', ['holder_name'])).typeId;
      ferry = (await registerType(rail.app, OTHER_TENANT, 'Ferry Pass', ['holder_name'])).typeId;
      assert.ok(!Object.values(pass).includes(ferry) && !Object.values(bike).includes(ferry));
    });
    after(async () => {
      await rail?.stop();
      await db?.drop();
    });

    /** Everything a refusal must leave as it was. */
    const snapshot = async () => ({
      offers: await rail.db.selectFrom('offers').selectAll().orderBy('id').execute(),
      access_tokens: await rail.db.selectFrom('access_tokens').selectAll().orderBy('token_hash').execute(),
      nonces: await rail.db.selectFrom('spent_nonces').selectAll().orderBy('nonce_hash').execute(),
      issued_credentials: await rail.db.selectFrom('issued_credentials').selectAll().orderBy('id').execute(),
      status_lists: await rail.db.selectFrom('status_lists').selectAll().orderBy('tenant').orderBy('seq').execute(),
    });
    type Snapshot = Awaited<ReturnType<typeof snapshot>>;
    const assertUnchanged = async (before: Snapshot, what = 'a refused request changes nothing') =>
      assert.deepEqual(await snapshot(), before, what);

    const offer = (issuer: string, extra: Record<string, unknown> = {}) =>
      createOffer(rail.app, { tenant: issuer, typeId: pass[issuer], subject: PASS_SUBJECT, ...extra });
    /** A fresh access token (and its c_nonce) of `issuer`. */
    const grant = async (issuer: string) => accessToken(rail.app, issuer, (await offer(issuer)).code);
    const nonce = (issuer: string) => freshNonce(rail.app, issuer);
    /** A key proof for `issuer` (a fresh key, iat now by the service clock); no nonce when undefined. */
    const proof = async (
      issuer: string,
      nonceValue: string | undefined,
      opts: { key?: HolderKey; iat?: number; aud?: string | string[]; header?: Record<string, unknown> } = {},
    ) =>
      proofJwt(opts.key ?? (await newHolderKey()), {
        aud: opts.aud ?? issuerId(issuer),
        iat: opts.iat ?? nowS(),
        ...(nonceValue !== undefined ? { nonce: nonceValue } : {}),
        ...(opts.header ? { header: opts.header } : {}),
      });
    const validBody = async (issuer: string, nonceValue: string) => ({
      credential_configuration_id: pass[issuer],
      proofs: { jwt: [await proof(issuer, nonceValue)] },
    });
    const postToken = (issuer: string, payload: string, contentType = FORM) =>
      rail.app.inject({
        method: 'POST',
        url: `${issuerPath(issuer)}/token`,
        headers: { 'content-type': contentType },
        payload,
      });

    /**
     * A successful collection with `token` and `nonces` (one proof each, fresh keys): the proof that
     * an earlier refusal left them usable. Checks the token is then spent, one credential was written
     * per proof, and the lists' counts of handed-out entries cover every credential (they are
     * reserved a block at a time, STATUS_BLOCK).
     */
    const collectOk = async (issuer: string, token: string, nonces: string[]) => {
      const issued = async () =>
        (await rail.db.selectFrom('issued_credentials').select('id').where('tenant', '=', issuer).execute()).length;
      const allocated = async () =>
        (await rail.db.selectFrom('status_lists').select('allocated').where('tenant', '=', issuer).execute()).reduce(
          (sum, r) => sum + Number(r.allocated),
          0,
        );
      const issuedBefore = await issued();
      const res = await requestCredential(rail.app, issuer, token, {
        credential_configuration_id: pass[issuer],
        proofs: { jwt: await Promise.all(nonces.map((n) => proof(issuer, n))) },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().credentials.length, nonces.length);
      const tokenRow = await rail.db
        .selectFrom('access_tokens')
        .selectAll()
        .where('token_hash', '=', hashToken(token))
        .executeTakeFirstOrThrow();
      assert.notEqual(tokenRow.spent_at, null, 'the collection spends the token');
      assert.equal(await issued(), issuedBefore + nonces.length);
      assert.ok((await allocated()) >= (await issued()), 'every credential is counted against its list');
    };

    /**
     * A credential request with `token` refused with 401 invalid_token, leaving everything as it was:
     * the nonce `n` it carried is then collected with a fresh token.
     */
    const refusedToken = async (issuer: string, token: string, n: string) => {
      const before = await snapshot();
      assertOAuthError(
        await requestCredential(rail.app, issuer, token, await validBody(issuer, n)),
        401,
        'invalid_token',
        TOKEN_PROBLEM,
        INVALID_TOKEN_CHALLENGE,
      );
      await assertUnchanged(before);
      await collectOk(issuer, (await grant(issuer)).access_token, [n]);
    };

    // ---------------------------------------------------------------- token endpoint (§6)

    for (const issuer of ISSUERS) {
      describe(`token endpoint of ${issuer}`, () => {
        test('answers a redemption with a Bearer token, expires_in and c_nonce, never cached; unknown parameters are ignored', async () => {
          const { code } = await offer(issuer);
          const res = await redeem(rail.app, issuer, {
            grant_type: PRE_AUTH,
            'pre-authorized_code': code,
            resource: issuerId(issuer),
          });
          assert.equal(res.statusCode, 200, res.body);
          assert.equal(res.headers['cache-control'], 'no-store');
          assert.equal(res.headers.pragma, 'no-cache');
          assert.match(String(res.headers['content-type']), /^application\/json/);
          const body = res.json();
          assert.deepEqual(Object.keys(body).sort(), [
            'access_token',
            'c_nonce',
            'c_nonce_expires_in',
            'expires_in',
            'token_type',
          ]);
          assert.equal(body.token_type, 'Bearer');
          assert.equal(body.expires_in, TTL_S);
          assert.equal(body.c_nonce_expires_in, TTL_S);
          assert.equal(typeof body.access_token, 'string');
          assert.equal(typeof body.c_nonce, 'string');
          assert.ok(body.c_nonce.length >= 22, 'the c_nonce carries at least 128 bits');
          await collectOk(issuer, body.access_token, [body.c_nonce]);
        });

        const formCases: { name: string; form: (code: string) => Record<string, string>; error: string; description: string }[] =
          [
            {
              name: 'missing grant_type',
              form: (code) => ({ 'pre-authorized_code': code }),
              error: 'invalid_request',
              description: 'grant_type is required.',
            },
            {
              name: 'empty grant_type',
              form: (code) => ({ grant_type: '', 'pre-authorized_code': code }),
              error: 'invalid_request',
              description: 'grant_type is required.',
            },
            {
              name: 'grant_type authorization_code',
              form: (code) => ({ grant_type: 'authorization_code', code, 'pre-authorized_code': code }),
              error: 'unsupported_grant_type',
              description: `Only ${PRE_AUTH} is supported.`,
            },
            {
              name: 'grant_type client_credentials',
              form: (code) => ({ grant_type: 'client_credentials', 'pre-authorized_code': code }),
              error: 'unsupported_grant_type',
              description: `Only ${PRE_AUTH} is supported.`,
            },
            {
              name: 'missing pre-authorized_code',
              form: (code) => ({ grant_type: PRE_AUTH, code }),
              error: 'invalid_request',
              description: 'pre-authorized_code is required.',
            },
            {
              name: 'empty pre-authorized_code',
              form: () => ({ grant_type: PRE_AUTH, 'pre-authorized_code': '' }),
              error: 'invalid_request',
              description: 'pre-authorized_code is required.',
            },
            {
              name: 'unknown pre-authorized_code',
              form: () => ({ grant_type: PRE_AUTH, 'pre-authorized_code': `pac_${randomBytes(32).toString('base64url')}` }),
              error: 'invalid_grant',
              description: BAD_CODE,
            },
            {
              name: 'a tx_code the offer does not use',
              form: (code) => ({ grant_type: PRE_AUTH, 'pre-authorized_code': code, tx_code: '123456' }),
              error: 'invalid_request',
              description: 'This offer does not use a tx_code.',
            },
          ];
        for (const c of formCases) {
          test(`${c.name}: 400 ${c.error}, and the code stays redeemable`, async () => {
            const { code } = await offer(issuer);
            const before = await snapshot();
            assertOAuthError(await redeem(rail.app, issuer, c.form(code)), 400, c.error, c.description);
            await assertUnchanged(before);
            const { access_token, c_nonce } = await accessToken(rail.app, issuer, code);
            await collectOk(issuer, access_token, [c_nonce]);
          });
        }

        test('a parameter sent twice: 400 invalid_request, and the code stays redeemable', async () => {
          const { code } = await offer(issuer);
          const before = await snapshot();
          const pac = encodeURIComponent(code);
          const grantType = encodeURIComponent(PRE_AUTH);
          for (const [payload, name] of [
            [`grant_type=${grantType}&grant_type=${grantType}&pre-authorized_code=${pac}`, 'grant_type'],
            [`grant_type=${grantType}&pre-authorized_code=${pac}&pre-authorized_code=${pac}`, 'pre-authorized_code'],
            [`grant_type=${grantType}&pre-authorized_code=${pac}&pre-authorized_code=pac_other`, 'pre-authorized_code'],
          ] as const) {
            assertOAuthError(
              await postToken(issuer, payload),
              400,
              'invalid_request',
              `The parameter "${name}" is sent more than once.`,
            );
          }
          await assertUnchanged(before);
          const { access_token, c_nonce } = await accessToken(rail.app, issuer, code);
          await collectOk(issuer, access_token, [c_nonce]);
        });

        test('a JSON body: 415, and the code stays redeemable', async () => {
          const { code } = await offer(issuer);
          const before = await snapshot();
          const res = await postToken(
            issuer,
            JSON.stringify({ grant_type: PRE_AUTH, 'pre-authorized_code': code }),
            'application/json',
          );
          assertOAuthError(res, 415, 'unsupported_media_type', `This operation accepts ${FORM} bodies only.`);
          await assertUnchanged(before);
          const { access_token, c_nonce } = await accessToken(rail.app, issuer, code);
          await collectOk(issuer, access_token, [c_nonce]);
        });

        test('the code of another issuer: 400 invalid_grant, and it stays redeemable at its own issuer', async () => {
          for (const other of othersOf(issuer)) {
            const { code } = await offer(other);
            const before = await snapshot();
            assertOAuthError(
              await redeem(rail.app, issuer, { grant_type: PRE_AUTH, 'pre-authorized_code': code }),
              400,
              'invalid_grant',
              BAD_CODE,
            );
            await assertUnchanged(before);
            const { access_token, c_nonce } = await accessToken(rail.app, other, code);
            await collectOk(other, access_token, [c_nonce]);
          }
        });

        test('an expired code: 400 invalid_grant, and the refusal does not spend it', async () => {
          const { code } = await offer(issuer, { expiresIn: 60 });
          const before = await snapshot();
          await at(61, async () => {
            assertOAuthError(
              await redeem(rail.app, issuer, { grant_type: PRE_AUTH, 'pre-authorized_code': code }),
              400,
              'invalid_grant',
              BAD_CODE,
            );
          });
          await assertUnchanged(before);
          // Back within its lifetime the code still redeems: the refusal wrote nothing.
          const { access_token, c_nonce } = await accessToken(rail.app, issuer, code);
          await collectOk(issuer, access_token, [c_nonce]);
        });

        test('a code already redeemed: 400 invalid_grant, and the first access token stays usable', async () => {
          const { code } = await offer(issuer);
          const first = await accessToken(rail.app, issuer, code);
          const before = await snapshot();
          assertOAuthError(
            await redeem(rail.app, issuer, { grant_type: PRE_AUTH, 'pre-authorized_code': code }),
            400,
            'invalid_grant',
            BAD_CODE,
          );
          await assertUnchanged(before);
          await collectOk(issuer, first.access_token, [first.c_nonce]);
          // Nor does it redeem once its credential is collected.
          assertOAuthError(
            await redeem(rail.app, issuer, { grant_type: PRE_AUTH, 'pre-authorized_code': code }),
            400,
            'invalid_grant',
            BAD_CODE,
          );
        });

        test('a tx_code required but missing: 400 invalid_request, counted as no attempt', async () => {
          const created = await offer(issuer, { txCode: true });
          assert.ok(created.txCode);
          assert.deepEqual(created.offer.grants[PRE_AUTH]?.tx_code, { input_mode: 'numeric', length: 6 });
          const before = await snapshot();
          for (let i = 0; i < 6; i++) {
            assertOAuthError(
              await redeem(rail.app, issuer, { grant_type: PRE_AUTH, 'pre-authorized_code': created.code }),
              400,
              'invalid_request',
              'This offer requires a tx_code.',
            );
          }
          await assertUnchanged(before);
          const { access_token, c_nonce } = await accessToken(rail.app, issuer, created.code, created.txCode);
          await collectOk(issuer, access_token, [c_nonce]);
        });

        test('a wrong tx_code: 400 invalid_grant, counted, and the right one still redeems', async () => {
          const created = await offer(issuer, { txCode: true });
          const right = created.txCode ?? assert.fail('no txCode');
          const before = await snapshot();
          assertOAuthError(
            await redeem(rail.app, issuer, {
              grant_type: PRE_AUTH,
              'pre-authorized_code': created.code,
              tx_code: wrongTxCode(right, 1),
            }),
            400,
            'invalid_grant',
            'The transaction code is wrong.',
          );
          // The one change is the attempt counter (OID4VCI 1.0 errata, transaction code guessing).
          await assertUnchanged(
            {
              ...before,
              offers: before.offers.map((o) => (o.id === created.offerId ? { ...o, tx_attempts: o.tx_attempts + 1 } : o)),
            },
            'a wrong tx_code only counts an attempt',
          );
          const { access_token, c_nonce } = await accessToken(rail.app, issuer, created.code, right);
          await collectOk(issuer, access_token, [c_nonce]);
        });

        test('four wrong tx_codes leave the right one usable', async () => {
          const created = await offer(issuer, { txCode: true });
          const right = created.txCode ?? assert.fail('no txCode');
          for (let shift = 1; shift <= 4; shift++) {
            assertOAuthError(
              await redeem(rail.app, issuer, {
                grant_type: PRE_AUTH,
                'pre-authorized_code': created.code,
                tx_code: wrongTxCode(right, shift),
              }),
              400,
              'invalid_grant',
              'The transaction code is wrong.',
            );
          }
          const { access_token, c_nonce } = await accessToken(rail.app, issuer, created.code, right);
          await collectOk(issuer, access_token, [c_nonce]);
        });

        test('after five wrong tx_codes even the right one is refused with invalid_grant', async () => {
          const created = await offer(issuer, { txCode: true });
          const right = created.txCode ?? assert.fail('no txCode');
          const before = await snapshot();
          for (let shift = 1; shift <= 5; shift++) {
            assertOAuthError(
              await redeem(rail.app, issuer, {
                grant_type: PRE_AUTH,
                'pre-authorized_code': created.code,
                tx_code: wrongTxCode(right, shift),
              }),
              400,
              'invalid_grant',
              'The transaction code is wrong.',
            );
          }
          const voided = {
            ...before,
            offers: before.offers.map((o) => (o.id === created.offerId ? { ...o, tx_attempts: 5 } : o)),
          };
          await assertUnchanged(voided, 'five wrong tx_codes only count five attempts');
          for (const txCode of [right, wrongTxCode(right, 6)]) {
            assertOAuthError(
              await redeem(rail.app, issuer, { grant_type: PRE_AUTH, 'pre-authorized_code': created.code, tx_code: txCode }),
              400,
              'invalid_grant',
              'Too many wrong transaction codes: this offer can no longer be redeemed.',
            );
          }
          await assertUnchanged(voided, 'a voided offer issues no access token');
        });

        test('one code redeemed twice at once: one access token, the other request invalid_grant', async () => {
          const { code, offerId } = await offer(issuer);
          const results = await Promise.all(
            [0, 1].map(() => redeem(rail.app, issuer, { grant_type: PRE_AUTH, 'pre-authorized_code': code })),
          );
          const won = results.filter((r) => r.statusCode === 200);
          const lost = results.filter((r) => r.statusCode !== 200);
          assert.equal(won.length, 1, results.map((r) => r.body).join('\n'));
          for (const r of lost) assertOAuthError(r, 400, 'invalid_grant', BAD_CODE);
          const tokens = await rail.db.selectFrom('access_tokens').select('token_hash').where('grant_id', '=', offerId).execute();
          assert.equal(tokens.length, 1, 'one redemption, one access token');
          const body = won[0]?.json();
          await collectOk(issuer, body.access_token, [body.c_nonce]);
        });
      });
    }

    // ---------------------------------------------------------------- nonce endpoint (§7)

    for (const issuer of ISSUERS) {
      test(`nonce endpoint of ${issuer}: 200 {c_nonce}, no-store, unpredictable`, async () => {
        const seen = new Set<string>();
        for (let i = 0; i < 20; i++) {
          const res = await rail.app.inject({ method: 'POST', url: `${issuerPath(issuer)}/nonce` });
          assert.equal(res.statusCode, 200, res.body);
          assert.equal(res.headers['cache-control'], 'no-store');
          assert.match(String(res.headers['content-type']), /^application\/json/);
          const body = res.json();
          assert.deepEqual(Object.keys(body), ['c_nonce']);
          assert.equal(typeof body.c_nonce, 'string');
          assert.ok(body.c_nonce.length >= 22, 'at least 128 bits');
          seen.add(body.c_nonce);
        }
        assert.equal(seen.size, 20, 'every c_nonce is new');
        const values = [...seen];
        assert.ok(
          values.every((v) => !values.some((w) => w !== v && w.slice(0, 8) === v.slice(0, 8))),
          'no shared prefix',
        );
        // Each is good for one collection at this issuer.
        await collectOk(issuer, (await grant(issuer)).access_token, values.slice(0, BATCH_SIZE));
      });
    }

    test('the token and nonce endpoints of an unknown tenant, and /t/root: 404 unknown_tenant, nothing written', async () => {
      const { code } = await offer(TENANT);
      const before = await snapshot();
      for (const [path, description] of [
        ['/t/no-such-line', 'No tenant has the slug "no-such-line".'],
        ['/t/root', 'No tenant answers at /t/root.'],
      ] as const) {
        assertOAuthError(await rail.app.inject({ method: 'POST', url: `${path}/nonce` }), 404, 'unknown_tenant', description);
        const form = new URLSearchParams({ grant_type: PRE_AUTH, 'pre-authorized_code': code }).toString();
        const res = await rail.app.inject({
          method: 'POST',
          url: `${path}/token`,
          headers: { 'content-type': FORM },
          payload: form,
        });
        assertOAuthError(res, 404, 'unknown_tenant', description);
      }
      await assertUnchanged(before);
      const { access_token, c_nonce } = await accessToken(rail.app, TENANT, code);
      await collectOk(TENANT, access_token, [c_nonce]);
    });

    // ---------------------------------------------------------------- credential endpoint (§8): the access token

    for (const issuer of ISSUERS) {
      describe(`credential endpoint of ${issuer}: the access token`, () => {
        test('no Authorization: 401 with a Bearer challenge; token and nonce stay usable', async () => {
          const { access_token } = await grant(issuer);
          const n = await nonce(issuer);
          const body = await validBody(issuer, n);
          const before = await snapshot();
          const res = await rail.app.inject({
            method: 'POST',
            url: `${issuerPath(issuer)}/credential`,
            headers: { 'content-type': 'application/json' },
            payload: JSON.stringify(body),
          });
          assertOAuthError(res, 401, 'invalid_token', 'This operation needs an OID4VCI access token.', CHALLENGE);
          await assertUnchanged(before);
          await collectOk(issuer, access_token, [n]);
        });

        test('another scheme than Bearer: 401 invalid_token; the token stays usable', async () => {
          const { access_token } = await grant(issuer);
          const n = await nonce(issuer);
          const before = await snapshot();
          for (const scheme of ['DPoP', 'Basic', 'Holder']) {
            const res = await rail.app.inject({
              method: 'POST',
              url: `${issuerPath(issuer)}/credential`,
              headers: { authorization: `${scheme} ${access_token}`, 'content-type': 'application/json' },
              payload: JSON.stringify(await validBody(issuer, n)),
            });
            assertOAuthError(res, 401, 'invalid_token', 'Only a Bearer access token is accepted here.', INVALID_TOKEN_CHALLENGE);
          }
          await assertUnchanged(before);
          await collectOk(issuer, access_token, [n]);
        });

        test('an unknown token, or the operator owner token: 401 invalid_token', async () => {
          const n = await nonce(issuer);
          const before = await snapshot();
          for (const token of [`oat_${randomBytes(32).toString('base64url')}`, OWNER_TOKEN]) {
            assertOAuthError(
              await requestCredential(rail.app, issuer, token, await validBody(issuer, n)),
              401,
              'invalid_token',
              TOKEN_PROBLEM,
              INVALID_TOKEN_CHALLENGE,
            );
          }
          await assertUnchanged(before);
          await collectOk(issuer, (await grant(issuer)).access_token, [n]);
        });

        test('a spent token: 401 invalid_token, and the nonce it carried stays usable', async () => {
          const { access_token, c_nonce } = await grant(issuer);
          await collectOk(issuer, access_token, [c_nonce]);
          const n = await nonce(issuer);
          await refusedToken(issuer, access_token, n);
        });

        test('an expired token: 401 invalid_token, and the nonce stays usable', async () => {
          const { access_token } = await grant(issuer);
          await at(TTL_S + 1, async () => {
            const n = await nonce(issuer);
            await refusedToken(issuer, access_token, n);
          });
        });

        test('the token in the query string: refused with 401 even beside a valid header; the token stays usable', async () => {
          const { access_token } = await grant(issuer);
          const n = await nonce(issuer);
          const before = await snapshot();
          const url = `${issuerPath(issuer)}/credential?access_token=${encodeURIComponent(access_token)}`;
          for (const headers of [
            { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
            { 'content-type': 'application/json' },
          ]) {
            const res = await rail.app.inject({
              method: 'POST',
              url,
              headers,
              payload: JSON.stringify(await validBody(issuer, n)),
            });
            assertOAuthError(
              res,
              401,
              'invalid_request',
              'The access token must be sent in the Authorization header, never in the URL.',
              `${CHALLENGE}, error="invalid_request"`,
            );
          }
          await assertUnchanged(before);
          await collectOk(issuer, access_token, [n]);
        });

        test("a token of this issuer at every other issuer's credential endpoint: 401 invalid_token", async () => {
          const { access_token, c_nonce } = await grant(issuer);
          for (const other of othersOf(issuer)) {
            // Right in every other respect there: its configuration, audience and nonce.
            const n = await nonce(other);
            await refusedToken(other, access_token, n);
          }
          await collectOk(issuer, access_token, [c_nonce]);
        });

        test('one token used twice at once: one credential, the other request invalid_token, its nonce unused', async () => {
          const { access_token } = await grant(issuer);
          const nonces = [await nonce(issuer), await nonce(issuer)];
          const bodies = await Promise.all(nonces.map((n) => validBody(issuer, n)));
          const issuedBefore = (await rail.db.selectFrom('issued_credentials').select('id').execute()).length;
          const results = await Promise.all(bodies.map((b) => requestCredential(rail.app, issuer, access_token, b)));
          const won = results.findIndex((r) => r.statusCode === 200);
          assert.notEqual(won, -1, results.map((r) => r.body).join('\n'));
          const lost = won === 0 ? 1 : 0;
          assertOAuthError(results[lost] as Response, 401, 'invalid_token', TOKEN_PROBLEM, INVALID_TOKEN_CHALLENGE);
          assert.equal((await rail.db.selectFrom('issued_credentials').select('id').execute()).length, issuedBefore + 1);
          await collectOk(issuer, (await grant(issuer)).access_token, [nonces[lost] ?? '']);
        });
      });
    }

    // ---------------------------------------------------------------- credential endpoint (§8): the request

    interface Ctx {
      issuer: string;
      /** A fresh c_nonce of the issuer that the refusal must leave unused. */
      nonce(): Promise<string>;
      proof(nonceValue: string | undefined, opts?: Parameters<typeof proof>[2]): Promise<string>;
    }
    interface RequestCase {
      name: string;
      body(c: Ctx): Promise<unknown>;
      error: string;
      description: string | ((issuer: string) => string);
    }

    const signedWith = async (alg: 'ES384', issuer: string, nonceValue: string) => {
      const { privateKey, publicKey } = await generateKeyPair(alg);
      return new SignJWT({ aud: issuerId(issuer), iat: nowS(), nonce: nonceValue })
        .setProtectedHeader({ alg, typ: PROOF_TYP, jwk: await exportJWK(publicKey) })
        .sign(privateKey);
    };
    const alterSignature = (jwt: string) => {
      const [h, p, s] = jwt.split('.');
      const sig = Buffer.from(s ?? '', 'base64url');
      sig.writeUInt8(sig.readUInt8(10) ^ 0xff, 10);
      return `${h}.${p}.${sig.toString('base64url')}`;
    };
    const jwtProofs = (configId: string, jwts: string[]) => ({ credential_configuration_id: configId, proofs: { jwt: jwts } });

    const requestCases: RequestCase[] = [
      {
        name: 'both proof and proofs',
        body: async (c) => {
          const jwt = await c.proof(await c.nonce());
          return { credential_configuration_id: pass[c.issuer], proof: { proof_type: 'jwt', jwt }, proofs: { jwt: [jwt] } };
        },
        error: 'invalid_credential_request',
        description: 'Send proofs or the older proof, not both.',
      },
      {
        name: 'neither proof nor proofs',
        body: async (c) => ({ credential_configuration_id: pass[c.issuer] }),
        error: 'invalid_proof',
        description: 'A key proof is required: this issuer binds every credential.',
      },
      {
        name: 'no credential_configuration_id',
        body: async (c) => ({ proofs: { jwt: [await c.proof(await c.nonce())] } }),
        error: 'invalid_credential_request',
        description: 'credential_configuration_id is required.',
      },
      {
        name: 'an unknown credential configuration',
        body: async (c) => jwtProofs('no-such-pass', [await c.proof(await c.nonce())]),
        error: 'unknown_credential_configuration',
        description: 'This issuer has no configuration "no-such-pass".',
      },
      {
        name: 'a configuration of another tenant',
        body: async (c) => jwtProofs(ferry, [await c.proof(await c.nonce())]),
        error: 'unknown_credential_configuration',
        description: () => `This issuer has no configuration "${ferry}".`,
      },
      {
        name: 'a configuration of the same issuer the token was not granted for',
        body: async (c) => jwtProofs(bike[c.issuer] ?? '', [await c.proof(await c.nonce())]),
        error: 'invalid_credential_request',
        description: (issuer) => `The access token grants "${pass[issuer]}", not "${bike[issuer]}".`,
      },
      {
        name: 'a credential_identifier',
        body: async (c) => ({ credential_identifier: 'rail-pass-1', proofs: { jwt: [await c.proof(await c.nonce())] } }),
        error: 'unknown_credential_identifier',
        description: 'This issuer issues no credential identifiers.',
      },
      {
        name: 'a credential_identifier and a credential_configuration_id',
        body: async (c) => ({ ...jwtProofs(pass[c.issuer] ?? '', [await c.proof(await c.nonce())]), credential_identifier: 'x' }),
        error: 'invalid_credential_request',
        description: 'Send credential_identifier or credential_configuration_id, not both.',
      },
      {
        name: 'credential_response_encryption',
        body: async (c) => {
          const { publicJwk } = await newHolderKey();
          return {
            ...jwtProofs(pass[c.issuer] ?? '', [await c.proof(await c.nonce())]),
            credential_response_encryption: { jwk: { ...publicJwk, alg: 'ECDH-ES', use: 'enc' }, enc: 'A128GCM' },
          };
        },
        error: 'invalid_encryption_parameters',
        description: 'This issuer does not encrypt credential responses.',
      },
      {
        name: 'proofs of another proof type',
        body: async (c) => ({
          credential_configuration_id: pass[c.issuer],
          proofs: { ldp_vp: [await c.proof(await c.nonce())] },
        }),
        error: 'invalid_proof',
        description: 'Proof type "ldp_vp" is not supported; use jwt.',
      },
      {
        name: 'proofs of two proof types',
        body: async (c) => {
          const jwt = await c.proof(await c.nonce());
          return { credential_configuration_id: pass[c.issuer], proofs: { jwt: [jwt], attestation: [jwt] } };
        },
        error: 'invalid_credential_request',
        description: 'proofs must have exactly one proof type.',
      },
      {
        name: 'an empty proofs.jwt',
        body: async (c) => jwtProofs(pass[c.issuer] ?? '', []),
        error: 'invalid_proof',
        description: 'proofs.jwt must be a non-empty array of proof JWTs.',
      },
      {
        name: 'an older proof of another proof_type',
        body: async (c) => ({
          credential_configuration_id: pass[c.issuer],
          proof: { proof_type: 'cwt', cwt: await c.proof(await c.nonce()) },
        }),
        error: 'invalid_proof',
        description: 'proof must be {"proof_type": "jwt", "jwt": "<proof JWT>"}.',
      },
      {
        name: `more than batch_size (${BATCH_SIZE}) proofs`,
        body: async (c) => {
          const jwts: string[] = [];
          for (let i = 0; i <= BATCH_SIZE; i++) jwts.push(await c.proof(await c.nonce()));
          return jwtProofs(pass[c.issuer] ?? '', jwts);
        },
        error: 'invalid_credential_request',
        description: `At most ${BATCH_SIZE} proofs fit in one request (batch_size).`,
      },
      // Appendix F.4: the proof JWT itself.
      {
        name: 'a proof that is not a JWS',
        body: async (c) => jwtProofs(pass[c.issuer] ?? '', ['not-a-jwt']),
        error: 'invalid_proof',
        description: 'The proof is not a compact JWS.',
      },
      {
        name: 'a proof typ JWT',
        body: async (c) => jwtProofs(pass[c.issuer] ?? '', [await c.proof(await c.nonce(), { header: { typ: 'JWT' } })]),
        error: 'invalid_proof',
        description: `The proof header typ must be ${PROOF_TYP}.`,
      },
      {
        name: 'a proof signed with ES384 by a P-384 key',
        body: async (c) => jwtProofs(pass[c.issuer] ?? '', [await signedWith('ES384', c.issuer, await c.nonce())]),
        error: 'invalid_proof',
        description: 'The proof must be signed with ES256.',
      },
      {
        name: 'a proof jwk with the private d',
        body: async (c) => {
          const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
          const key: HolderKey = { privateKey, publicJwk: await exportJWK(publicKey) };
          const privateJwk = await exportJWK(privateKey);
          assert.ok(privateJwk.d);
          return jwtProofs(pass[c.issuer] ?? '', [await c.proof(await c.nonce(), { key, header: { jwk: privateJwk } })]);
        },
        error: 'invalid_proof',
        description: 'The proof jwk header must not contain private key material.',
      },
      {
        name: 'a proof with a kid beside its jwk',
        body: async (c) =>
          jwtProofs(pass[c.issuer] ?? '', [await c.proof(await c.nonce(), { header: { kid: 'did:example:holder#key-1' } })]),
        error: 'invalid_proof',
        description: 'The proof must identify its key by a jwk header only (no kid or x5c).',
      },
      {
        name: 'a proof signed by another key than its jwk',
        body: async (c) => {
          const signer = await newHolderKey();
          const other = await newHolderKey();
          return jwtProofs(pass[c.issuer] ?? '', [
            await c.proof(await c.nonce(), { key: signer, header: { jwk: other.publicJwk } }),
          ]);
        },
        error: 'invalid_proof',
        description: BAD_SIGNATURE,
      },
      {
        name: 'a proof with an altered signature',
        body: async (c) => jwtProofs(pass[c.issuer] ?? '', [alterSignature(await c.proof(await c.nonce()))]),
        error: 'invalid_proof',
        description: BAD_SIGNATURE,
      },
      {
        name: 'a proof for another audience',
        body: async (c) =>
          jwtProofs(pass[c.issuer] ?? '', [
            await c.proof(await c.nonce(), { aud: issuerId(othersOf(c.issuer)[0] ?? OTHER_TENANT) }),
          ]),
        error: 'invalid_proof',
        description: (issuer) => `The proof aud must be the credential issuer ${issuerId(issuer)}.`,
      },
      {
        name: 'a proof whose aud is a one-element array naming another issuer',
        body: async (c) =>
          jwtProofs(pass[c.issuer] ?? '', [
            await c.proof(await c.nonce(), { aud: [issuerId(othersOf(c.issuer)[0] ?? OTHER_TENANT)] }),
          ]),
        error: 'invalid_proof',
        description: (issuer) => `The proof aud must be the credential issuer ${issuerId(issuer)}.`,
      },
      {
        name: 'a proof whose aud is the origin with a trailing slash',
        body: async (c) => jwtProofs(pass[c.issuer] ?? '', [await c.proof(await c.nonce(), { aud: `${issuerId(c.issuer)}/` })]),
        error: 'invalid_proof',
        description: (issuer) => `The proof aud must be the credential issuer ${issuerId(issuer)}.`,
      },
      {
        name: 'a proof issued 10 minutes ago',
        body: async (c) => jwtProofs(pass[c.issuer] ?? '', [await c.proof(await c.nonce(), { iat: nowS() - 600 })]),
        error: 'invalid_proof',
        description: BAD_IAT,
      },
      {
        name: 'a proof issued 5 minutes in the future',
        body: async (c) => jwtProofs(pass[c.issuer] ?? '', [await c.proof(await c.nonce(), { iat: nowS() + 300 })]),
        error: 'invalid_proof',
        description: BAD_IAT,
      },
      {
        name: 'a proof without nonce',
        body: async (c) => jwtProofs(pass[c.issuer] ?? '', [await c.proof(undefined)]),
        error: 'invalid_proof',
        description: 'The proof must carry a c_nonce from the nonce endpoint.',
      },
      {
        name: 'the same key twice in a batch',
        body: async (c) => {
          const key = await newHolderKey();
          return jwtProofs(pass[c.issuer] ?? '', [
            await c.proof(await c.nonce(), { key }),
            await c.proof(await c.nonce(), { key }),
          ]);
        },
        error: 'invalid_proof',
        description: 'Each proof of a batch must use its own key.',
      },
      {
        name: 'a batch whose second proof is bad',
        body: async (c) =>
          jwtProofs(pass[c.issuer] ?? '', [
            await c.proof(await c.nonce()),
            await c.proof(await c.nonce(), { header: { typ: 'JWT' } }),
          ]),
        error: 'invalid_proof',
        description: `The proof header typ must be ${PROOF_TYP}.`,
      },
      // The c_nonce (invalid_nonce: the wallet should fetch a fresh one).
      {
        name: 'a random nonce',
        body: async (c) => jwtProofs(pass[c.issuer] ?? '', [await c.proof(randomBytes(24).toString('base64url'))]),
        error: 'invalid_nonce',
        description: NONCE_PROBLEM,
      },
      {
        name: 'a nonce of ours whose MAC is one character longer',
        body: async (c) => jwtProofs(pass[c.issuer] ?? '', [await c.proof(`${await c.nonce()}A`)]),
        error: 'invalid_nonce',
        description: NONCE_PROBLEM,
      },
      {
        name: 'a nonce already used by a successful collection',
        body: async (c) => {
          const used = await nonce(c.issuer);
          await collectOk(c.issuer, (await grant(c.issuer)).access_token, [used]);
          return jwtProofs(pass[c.issuer] ?? '', [await c.proof(used)]);
        },
        error: 'invalid_nonce',
        description: NONCE_PROBLEM,
      },
      {
        name: 'a batch whose second proof has a random nonce (the first nonce stays unused)',
        body: async (c) =>
          jwtProofs(pass[c.issuer] ?? '', [await c.proof(await c.nonce()), await c.proof(randomBytes(24).toString('base64url'))]),
        error: 'invalid_nonce',
        description: NONCE_PROBLEM,
      },
    ];

    for (const issuer of ISSUERS) {
      describe(`credential endpoint of ${issuer}: the request and its proofs`, () => {
        for (const rc of requestCases) {
          test(`${rc.name}: 400 ${rc.error}; token and nonces stay usable`, async () => {
            const { access_token } = await grant(issuer);
            const unused: string[] = [];
            const ctx: Ctx = {
              issuer,
              nonce: async () => {
                const n = await nonce(issuer);
                unused.push(n);
                return n;
              },
              proof: (nonceValue, opts) => proof(issuer, nonceValue, opts),
            };
            const body = await rc.body(ctx);
            const before = await snapshot();
            const res = await requestCredential(rail.app, issuer, access_token, body);
            const description = typeof rc.description === 'function' ? rc.description(issuer) : rc.description;
            assertOAuthError(res, 400, rc.error, description);
            await assertUnchanged(before);
            const distinct = [...new Set(unused)];
            await collectOk(issuer, access_token, distinct.length > 0 ? distinct.slice(0, BATCH_SIZE) : [await nonce(issuer)]);
          });
        }

        test('a form body: 415; token and nonce stay usable', async () => {
          const { access_token } = await grant(issuer);
          const n = await nonce(issuer);
          const before = await snapshot();
          const res = await rail.app.inject({
            method: 'POST',
            url: `${issuerPath(issuer)}/credential`,
            headers: { authorization: `Bearer ${access_token}`, 'content-type': FORM },
            payload: new URLSearchParams({
              credential_configuration_id: pass[issuer] ?? '',
              proof: await proof(issuer, n),
            }).toString(),
          });
          assertOAuthError(res, 415, 'unsupported_media_type', 'This operation accepts application/json bodies only.');
          await assertUnchanged(before);
          await collectOk(issuer, access_token, [n]);
        });

        test('a body that is not JSON: 400 invalid_credential_request (OID4VCI 1.0 §8.3.1.2, "otherwise malformed")', async () => {
          const { access_token } = await grant(issuer);
          const n = await nonce(issuer);
          const before = await snapshot();
          for (const payload of ['{"credential_configuration_id": ', '']) {
            const res = await rail.app.inject({
              method: 'POST',
              url: `${issuerPath(issuer)}/credential`,
              headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
              payload,
            });
            assert.equal(res.statusCode, 400, res.body);
            const body = res.json();
            assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description']);
            assert.equal(typeof body.error_description, 'string');
            assert.equal(body.error, 'invalid_credential_request', `a malformed credential request: ${res.body}`);
          }
          await assertUnchanged(before);
          await collectOk(issuer, access_token, [n]);
        });

        test('a nonce of another issuer: 400 invalid_nonce; it stays usable at its own issuer', async () => {
          for (const other of othersOf(issuer)) {
            const { access_token } = await grant(issuer);
            const foreign = await nonce(other);
            const fromToken = (await grant(other)).c_nonce;
            for (const n of [foreign, fromToken]) {
              const before = await snapshot();
              assertOAuthError(
                await requestCredential(rail.app, issuer, access_token, await validBody(issuer, n)),
                400,
                'invalid_nonce',
                NONCE_PROBLEM,
              );
              await assertUnchanged(before);
            }
            await collectOk(issuer, access_token, [await nonce(issuer)]);
            await collectOk(other, (await grant(other)).access_token, [foreign, fromToken]);
          }
        });

        test('an expired nonce: 400 invalid_nonce; the token stays usable', async () => {
          // The nonce expires 100 s from now, the token 300 s from now; the request is made at +150 s.
          const expired = await at(-200, () => nonce(issuer));
          const { access_token } = await grant(issuer);
          await at(150, async () => {
            const before = await snapshot();
            assertOAuthError(
              await requestCredential(rail.app, issuer, access_token, await validBody(issuer, expired)),
              400,
              'invalid_nonce',
              NONCE_PROBLEM,
            );
            await assertUnchanged(before);
            await collectOk(issuer, access_token, [await nonce(issuer)]);
          });
        });
      });
    }
  });
}
