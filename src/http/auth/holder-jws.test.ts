import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createSign, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CompactSign, calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import pino from 'pino';
import { migratedDatabase, openTestDb, type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { type HolderKey, holderJws, newHolderKey } from '../../../test/helpers/holder.ts';
import { rowCount } from '../../../test/helpers/refusals.ts';
import { type Db, migrate } from '../../adapters/sql/connect.ts';
import { SqlHolderReplayStore } from '../../adapters/sql/holders/sql-holder-replay-store.ts';
import { SqlRateBudget } from '../../adapters/sql/kernel/sql-rate-budget.ts';
import type { DatabaseLocation } from '../../config/config.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import { AnonymousGate } from './anonymous-gate.ts';
import { HOLDER_FRESHNESS_SECONDS, HOLDER_JWS_TYP, HolderJwsAuthenticator, holderOf } from './holder-jws.ts';
import type { AuthInput } from './principal.ts';

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL('../../../test/fixtures/burn-jti.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../../../', import.meta.url));

const AUD = 'https://rail.example.test';
/** A fixed instant with a sub-second part, so second flooring is exercised too. */
const NOW_MS = Date.UTC(2031, 4, 6, 12, 0, 0) + 417;
const NOW_S = Math.floor(NOW_MS / 1000);
const clock: Clock = { now: () => NOW_MS };
const URL_ME = `${AUD}/member/me`;

/** A holder JWS that is valid at NOW_MS for AUD unless a claim or header is overridden (undefined drops it). */
const jws = (claims: Record<string, unknown> = {}, options: { key?: HolderKey; header?: Record<string, unknown> } = {}) =>
  holderJws({ aud: AUD, iat: NOW_S, jti: randomUUID(), ...claims }, options);

const holder = (token: string, method = 'POST', url = URL_ME): AuthInput => ({
  authorization: `Holder ${token}`,
  method,
  url,
});

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Signs an arbitrary protected header and payload with jose, bypassing the test helper's defaults. */
async function signRaw(header: Record<string, unknown>, payload: Record<string, unknown>, privateKey: HolderKey['privateKey']) {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader(header as { alg: string })
    .sign(privateKey);
}

async function p384Key() {
  const { privateKey, publicKey } = await generateKeyPair('ES384');
  return { privateKey, publicJwk: await exportJWK(publicKey) };
}

const jtiCount = (db: Db) => rowCount(db, 'holder_jti');

/** The promise rejects with a 401 `unauthorized` ServiceError carrying the expected challenge. */
async function assertUnauthorized(promise: Promise<unknown>, reason?: RegExp, challenge = /^Holder realm="openrail"/) {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof ServiceError, `expected a ServiceError, got ${String(err)}`);
    assert.equal(err.status, 401);
    assert.equal(err.code, 'unauthorized');
    assert.match(err.headers['www-authenticate'] ?? '', challenge);
    if (reason) assert.match(err.message, reason);
    return true;
  });
}

/** The anonymous budgets on `db`, as the kernel builds them. */
const gateOn = (db: Db) => new AnonymousGate(new SqlRateBudget(db), clock, pino({ level: 'silent' }));

/** Authenticates, then admits (burning the jti), as a route does for a caller at one address. */
async function acceptWith(auth: HolderJwsAuthenticator, input: AuthInput, audience?: string) {
  const principal = await auth.authenticate(input, audience);
  await auth.admit(principal, { address: '192.0.2.1' });
  return principal;
}

test('the holder plane declares its security scheme, and holderOf reads only a holder principal', () => {
  const auth = new HolderJwsAuthenticator(AUD, {} as never, clock, {} as never);
  assert.equal(auth.name, 'holder');
  assert.equal(auth.security.name, 'holderJws');
  // Described as the Authorization header's whole value, so API viewers can authorize with it.
  assert.deepEqual(
    { type: auth.security.scheme.type, in: auth.security.scheme.in, name: auth.security.scheme.name },
    { type: 'apiKey', in: 'header', name: 'Authorization' },
  );
  assert.match(auth.security.scheme.description, /^The whole header value, scheme included: "Holder </);
  const principal = { plane: 'holder', accountId: 'a', jwk: {}, claims: {} };
  assert.equal(holderOf({ principal } as never), principal);
  assert.throws(() => holderOf({ principal: { plane: 'public' } } as never), /expected a holder principal/);
});

for (const factory of testDatabases()) {
  describe(`holder JWS authenticator (${factory.name})`, () => {
    const on = migratedDatabase(factory);
    let auth: HolderJwsAuthenticator;
    before(async () => {
      auth = new HolderJwsAuthenticator(AUD, new SqlHolderReplayStore(on.db), clock, gateOn(on.db));
    });

    const accept = (input: AuthInput, audience?: string) => acceptWith(auth, input, audience);

    /** Refused with 401 and the Holder challenge, and no jti mark was written. */
    async function refused(input: AuthInput, reason?: RegExp, audience?: string) {
      const marks = await jtiCount(on.db);
      await assertUnauthorized(audience === undefined ? accept(input) : accept(input, audience), reason);
      assert.equal(await jtiCount(on.db), marks, 'a refused JWS burns nothing');
    }

    test('accepts a valid JWS: the account id is the RFC 7638 thumbprint and the jwk is public only', async () => {
      const key = await newHolderKey();
      const jti = randomUUID();
      const principal = await accept(holder(await jws({ jti }, { key })));
      assert.equal(principal.plane, 'holder');
      assert.equal(principal.accountId, await calculateJwkThumbprint(key.publicJwk, 'sha256'));
      assert.equal('d' in principal.jwk, false);
      assert.deepEqual(principal.jwk, { kty: 'EC', crv: 'P-256', x: key.publicJwk.x, y: key.publicJwk.y });
      assert.equal(principal.claims.jti, jti);
      assert.equal(principal.claims.aud, AUD);
      const mark = await on.db
        .selectFrom('holder_jti')
        .selectAll()
        .where('account_id', '=', principal.accountId)
        .where('jti', '=', jti)
        .executeTakeFirst();
      assert.ok(mark, 'the jti is burned on acceptance');
      assert.ok(mark.expires_at > NOW_MS, 'the mark outlives the request');
    });

    test('refuses the same JWS a second time (its jti is burned)', async () => {
      const token = await jws();
      await accept(holder(token));
      await refused(holder(token), /jti already used/);
      await refused(holder(token, 'GET', `${AUD}/other`), /jti already used/);
    });

    test('the same jti from a different key is accepted: marks are per account', async () => {
      const jti = randomUUID();
      const [a, b] = [await newHolderKey(), await newHolderKey()];
      const first = await accept(holder(await jws({ jti }, { key: a })));
      const second = await accept(holder(await jws({ jti }, { key: b })));
      assert.notEqual(first.accountId, second.accountId);
      await refused(holder(await jws({ jti }, { key: a })), /jti already used/);
      await refused(holder(await jws({ jti }, { key: b })), /jti already used/);
    });

    test('refuses a wrong or missing typ', async () => {
      for (const typ of ['JWT', 'svc-holder+JWT', 'dpop+jwt', undefined]) {
        await refused(holder(await jws({}, { header: { typ } })), /typ/);
      }
    });

    test('refuses any alg other than ES256, including a P-384 key in the header', async () => {
      const p384 = await p384Key();
      const payload = { aud: AUD, iat: NOW_S, jti: randomUUID() };
      const es384 = await signRaw({ alg: 'ES384', typ: HOLDER_JWS_TYP, jwk: p384.publicJwk }, payload, p384.privateKey);
      await refused(holder(es384), /alg must be ES256/);

      // A P-256 signature that claims ES256 but carries a P-384 public key in the header.
      const p256 = await newHolderKey();
      const mixed = await jws({}, { key: p256, header: { jwk: p384.publicJwk } });
      await refused(holder(mixed), /P-256/);

      // An unsecured JWS (alg none) with an empty signature.
      const none = `${b64url({ alg: 'none', typ: HOLDER_JWS_TYP, jwk: p256.publicJwk })}.${b64url(payload)}.`;
      await refused(holder(none), /alg must be ES256/);
    });

    test('refuses a header without a jwk', async () => {
      await refused(holder(await jws({}, { header: { jwk: undefined } })), /jwk/);
      await refused(holder(await jws({}, { header: { jwk: undefined, kid: 'device-1' } })), /jwk/);
    });

    test('refuses a header jwk that carries the private key', async () => {
      const { privateKey } = await generateKeyPair('ES256', { extractable: true });
      const privateJwk = await exportJWK(privateKey);
      assert.ok(privateJwk.d, 'the exported key is private');
      const token = await holderJws({ aud: AUD, iat: NOW_S, jti: randomUUID() }, { key: { privateKey, publicJwk: privateJwk } });
      await refused(holder(token), /private key/);
    });

    test('refuses unknown protected-header parameters (x5u, crit)', async () => {
      await refused(holder(await jws({}, { header: { x5u: 'https://attacker.example/cert.pem' } })), /x5u/);
      await refused(holder(await jws({}, { header: { crit: ['b64'], b64: true } })), /header parameter/);
      await refused(holder(await jws({}, { header: { x5c: ['MIIB'] } })), /x5c/);
    });

    test('refuses a signature by a different key than the header jwk, and a swapped payload', async () => {
      const [signer, claimed] = [await newHolderKey(), await newHolderKey()];
      const forged = await jws({}, { key: { privateKey: signer.privateKey, publicJwk: claimed.publicJwk } });
      await refused(holder(forged), /signature/);

      // Header and signature of one valid JWS with the payload of another.
      const [h, , s] = (await jws({}, { key: signer })).split('.');
      const [, p] = (await jws({}, { key: signer })).split('.');
      await refused(holder(`${h}.${p}.${s}`), /signature/);
    });

    test('refuses a wrong, missing or array aud', async () => {
      for (const aud of ['https://other.example', `${AUD}/`, 'rail.example.test', undefined, [AUD], [AUD, 'https://x.example']]) {
        await refused(holder(await jws({ aud })), /aud/);
      }
    });

    test('iat must be present and within five minutes either side of now', async () => {
      assert.equal(HOLDER_FRESHNESS_SECONDS, 300);
      await refused(holder(await jws({ iat: undefined })), /iat is missing/);
      await refused(holder(await jws({ iat: String(NOW_S) })), /iat is missing/);
      await refused(holder(await jws({ iat: NOW_S + 0.5 })), /iat is missing/);
      await refused(holder(await jws({ iat: NOW_S - 301 })), /five-minute window/);
      await refused(holder(await jws({ iat: NOW_S + 301 })), /five-minute window/);
      assert.equal((await accept(holder(await jws({ iat: NOW_S - 299 })))).plane, 'holder');
      assert.equal((await accept(holder(await jws({ iat: NOW_S + 299 })))).plane, 'holder');
    });

    test('a JWS accepted at the edge of the window (iat 300 s old) cannot be replayed', async () => {
      const token = await jws({ iat: NOW_S - HOLDER_FRESHNESS_SECONDS });
      await accept(holder(token));
      await assertUnauthorized(accept(holder(token)), /jti already used/);
    });

    test('refuses an exp in the past and accepts one in the future', async () => {
      await refused(holder(await jws({ exp: NOW_S - 1 })), /exp/);
      await refused(holder(await jws({ exp: NOW_S })), /exp/);
      await refused(holder(await jws({ exp: String(NOW_S + 60) })), /exp/);
      assert.equal((await accept(holder(await jws({ exp: NOW_S + 60 })))).plane, 'holder');
    });

    test('refuses an nbf in the future with a 401 (never a 500), and accepts one within the clock skew', async () => {
      await refused(holder(await jws({ nbf: NOW_S + 61 })), /nbf is in the future/);
      await refused(holder(await jws({ nbf: NOW_S + 3600 })), /nbf is in the future/);
      await refused(holder(await jws({ nbf: 'soon' })), /nbf is in the future/);
      assert.equal((await accept(holder(await jws({ nbf: NOW_S + 60 })))).plane, 'holder');
    });

    test('a jti of any length from 1 to 256 is accepted, and single-use: the interface asks for no minimum', async () => {
      const key = await newHolderKey();
      for (const jti of ['1', 'ab', '1234567', randomUUID().slice(0, 8), `${randomUUID()}${'x'.repeat(220)}`, 'y'.repeat(256)]) {
        const token = await jws({ jti }, { key });
        assert.equal((await accept(holder(token))).claims.jti, jti, `a jti of ${jti.length}`);
        await refused(holder(token), /jti already used/);
        // A new JWS with the same jti is the same mark: refused too, however short the jti.
        await refused(holder(await jws({ jti }, { key })), /jti already used/);
      }
      // One character, from two keys: marks are per account.
      assert.equal((await accept(holder(await jws({ jti: '1' }, { key: await newHolderKey() })))).plane, 'holder');
    });

    test('refuses a missing, empty, non-string or longer than 256 jti, burning nothing', async () => {
      for (const jti of [undefined, '', 12345678, 1, null, ['a'], 'x'.repeat(257), 'x'.repeat(10_000)]) {
        await refused(holder(await jws({ jti })), /jti must be a string of 1 to 256 characters/);
      }
    });

    test('refuses a payload that is not a JSON object, in its own words', async () => {
      const key = await newHolderKey();
      const [h] = (await jws({}, { key })).split('.');
      const input = `${h}.${Buffer.from('[1,2]').toString('base64url')}`;
      const signature = createSign('sha256')
        .update(input)
        .sign({ key: key.privateKey as never, dsaEncoding: 'ieee-p1363' });
      await refused(holder(`${input}.${signature.toString('base64url')}`), /payload is not a JSON object/);
    });

    test('htm and htu, when present, must match the request', async () => {
      const bound = { htm: 'POST', htu: URL_ME };
      assert.equal((await accept(holder(await jws(bound), 'POST', URL_ME))).plane, 'holder');
      // The query string is not part of htu.
      assert.equal((await accept(holder(await jws(bound), 'POST', `${URL_ME}?x=1`))).plane, 'holder');
      await refused(holder(await jws(bound), 'GET', URL_ME), /htm/);
      await refused(holder(await jws({ htm: 'post' }), 'POST', URL_ME), /htm/);
      await refused(holder(await jws(bound), 'POST', `${AUD}/member/vote`), /htu/);
      await refused(holder(await jws(bound), 'POST', `https://evil.example/member/me`), /htu/);
    });

    test('refuses another scheme, a missing or malformed header', async () => {
      const token = await jws();
      await refused({ authorization: `Bearer ${token}`, method: 'POST', url: URL_ME }, /Holder scheme/);
      await refused({ authorization: `DPoP ${token}`, method: 'POST', url: URL_ME }, /Holder scheme/);
      await refused({ authorization: undefined, method: 'POST', url: URL_ME });
      await refused({ authorization: '', method: 'POST', url: URL_ME });
      await refused({ authorization: 'Holder', method: 'POST', url: URL_ME });
      await refused(holder('not-a-jws'), /compact JWS/);
      // None of those spent the token.
      assert.equal((await accept(holder(token))).plane, 'holder');
    });

    test('a JWS refused before the burn keeps its jti: accepted once afterwards, then refused', async () => {
      const key = await newHolderKey();
      const jti = randomUUID();
      const token = await jws({ jti, htm: 'POST', htu: URL_ME }, { key });
      await refused(holder(token), /aud/, 'https://approve.rail.example.test');
      await refused(holder(token, 'GET', URL_ME), /htm/);
      await refused(holder(token, 'POST', `${AUD}/member/vote`), /htu/);
      const accountId = await calculateJwkThumbprint(key.publicJwk, 'sha256');
      const marks = await on.db.selectFrom('holder_jti').select('jti').where('account_id', '=', accountId).execute();
      assert.deepEqual(marks, [], 'no mark was written by the refusals');

      const principal = await accept(holder(token));
      assert.equal(principal.accountId, accountId);
      await refused(holder(token), /jti already used/);
    });

    test('the audience passed per call overrides the configured one', async () => {
      const approve = 'https://approve.rail.example.test';
      const token = await jws({ aud: approve });
      await refused(holder(token), /aud/);
      assert.equal((await accept(holder(token), approve)).plane, 'holder');
      await refused(holder(token), /jti already used/, approve);
    });
  });

  describe(`holder replay store across connections and processes (${factory.name})`, () => {
    let tdb: TestDatabase;
    let db: Db;
    let db2: Db;
    before(async () => {
      tdb = await factory.create();
      db = openTestDb(tdb);
      await migrate(db);
      // A second, independent Kysely instance (own connection or pool) on the same database.
      db2 = openTestDb(tdb);
    });
    after(async () => {
      await db2?.destroy();
      await db?.destroy();
      await tdb?.drop();
    });

    const childLocation = (): DatabaseLocation =>
      tdb.location.kind === 'sqlite' ? tdb.location : { kind: 'postgres', url: tdb.url };

    async function childBurn(accountId: string, jti: string, expiresAt: number, now: number): Promise<string> {
      const { stdout } = await run(
        process.execPath,
        ['--import', 'tsx', CHILD, JSON.stringify(childLocation()), accountId, jti, String(expiresAt), String(now)],
        { cwd: REPO, timeout: 60_000 },
      );
      return stdout.trim();
    }

    test('prune removes only expired marks', async () => {
      const store = new SqlHolderReplayStore(db);
      const account = `prune-${randomUUID()}`;
      assert.equal(await store.burn(account, 'expired-long-ago', NOW_MS - 600_000, NOW_MS - 900_000), true);
      assert.equal(await store.burn(account, 'expired-just-now', NOW_MS - 1, NOW_MS - 300_000), true);
      assert.equal(await store.burn(account, 'live-one-ms-left', NOW_MS + 1, NOW_MS - 1000), true);
      assert.equal(await store.burn(account, 'live-five-minutes', NOW_MS + 300_000, NOW_MS), true);

      assert.equal(await store.prune(NOW_MS), 2);
      const left = await db.selectFrom('holder_jti').select('jti').where('account_id', '=', account).orderBy('jti').execute();
      assert.deepEqual(
        left.map((r) => r.jti),
        ['live-five-minutes', 'live-one-ms-left'],
      );
      // The live marks still refuse a replay; pruning again removes nothing.
      assert.equal(await store.burn(account, 'live-five-minutes', NOW_MS + 300_000, NOW_MS), false);
      assert.equal(await store.burn(account, 'live-one-ms-left', NOW_MS + 1, NOW_MS), false);
      assert.equal(await store.prune(NOW_MS), 0);
    });

    test('a mark burned by one Kysely instance is refused by a second one', async () => {
      const [one, two] = [new SqlHolderReplayStore(db), new SqlHolderReplayStore(db2)];
      const account = `acct-${randomUUID()}`;
      const expires = NOW_MS + 300_000;
      assert.equal(await one.burn(account, 'jti-from-one', expires, NOW_MS), true);
      assert.equal(await two.burn(account, 'jti-from-one', expires, NOW_MS), false);
      assert.equal(await two.burn(account, 'jti-from-two', expires, NOW_MS), true);
      assert.equal(await one.burn(account, 'jti-from-two', expires, NOW_MS), false);
    });

    test('a JWS accepted through one instance is refused through the other', async () => {
      const first = new HolderJwsAuthenticator(AUD, new SqlHolderReplayStore(db), clock, gateOn(db));
      const second = new HolderJwsAuthenticator(AUD, new SqlHolderReplayStore(db2), clock, gateOn(db2));
      const token = await jws();
      assert.equal((await acceptWith(first, holder(token))).plane, 'holder');
      await assertUnauthorized(acceptWith(second, holder(token)), /jti already used/);
    });

    test('20 concurrent burns of one (account, jti) over two instances: exactly one wins', async () => {
      const stores = [new SqlHolderReplayStore(db), new SqlHolderReplayStore(db2)];
      const account = `race-${randomUUID()}`;
      const jti = randomUUID();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => stores[i % 2]?.burn(account, jti, NOW_MS + 300_000, NOW_MS)),
      );
      assert.equal(results.filter((r) => r === true).length, 1, JSON.stringify(results));
      assert.equal(results.filter((r) => r === false).length, 19);
      const rows = await db.selectFrom('holder_jti').select('jti').where('account_id', '=', account).execute();
      assert.equal(rows.length, 1);
    });

    test('a holder jti accepted by one process is refused by a second process on the same database', async () => {
      const key = await newHolderKey();
      const jti = randomUUID();
      const auth = new HolderJwsAuthenticator(AUD, new SqlHolderReplayStore(db), clock, gateOn(db));
      const accept = (input: AuthInput) => acceptWith(auth, input);
      const { accountId } = await accept(holder(await jws({ jti }, { key })));
      const expires = (NOW_S + HOLDER_FRESHNESS_SECONDS) * 1000;

      assert.equal(await childBurn(accountId, jti, expires, NOW_MS), 'false');

      const fresh = randomUUID();
      assert.equal(await childBurn(accountId, fresh, expires, NOW_MS), 'true');
      // And the child's mark is binding on this process in turn.
      await assertUnauthorized(accept(holder(await jws({ jti: fresh }, { key }))), /jti already used/);
    });
  });
}
