/**
 * Hosted verification under the HAIP 1.0 profile, over real HTTP, answered by the oid4vc-ts wallet
 * (@openid4vc/openid4vp, dcql, sd-jwt-js; test/helpers/oid4vp-wallet.ts): the request is signed
 * with the verifier's certificate in x5c and names the verifier by that certificate's hash
 * (`x509_hash`); the wallet encrypts its answer to a key of the transaction's own
 * (`direct_post.jwt`, ECDH-ES P-256, A128GCM or A256GCM). The negative cases mirror the HAIP test
 * plans' modules that apply to a verifier: a response encrypted to another key, with another
 * algorithm, carrying another transaction's state, sent in the clear, or replayed. Each refusal
 * leaves the transaction pending, and an honest answer still completes it.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, type JWK } from 'jose';
import { certifierOn } from '../../../test/helpers/certifier.ts';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { newWalletProvider } from '../../../test/helpers/haip-wallet.ts';
import { keyBindingOf, presentHolding, type WalletOverrides } from '../../../test/helpers/oid4vp-wallet.ts';
import { PUBLIC_URL, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import { rowCount } from '../../../test/helpers/refusals.ts';
import { encryptAnswer, startVerifierRail, type VerifierRail, verifierCalls } from '../../../test/helpers/verifier-rail.ts';
import { keyFromX5c } from '../../../test/helpers/x5c.ts';
import { AesKeyVault } from '../../adapters/crypto/key-vault.ts';
import { SealedKeyBackend } from '../../adapters/crypto/keys/sealed-backend.ts';
import { TenantKeyStore } from '../../adapters/crypto/tenant-key-store.ts';
import { SqlKeyCertificateRenewals, SqlSigningKeyStore } from '../../adapters/sql/kernel/sql-signing-key-store.ts';
import { systemClock } from '../../core/clock.ts';

const ASKED = ['holder_name', 'student'];
const freshNonce = () => randomBytes(24).toString('base64url');

for (const factory of testDatabases()) {
  describe(`hosted verification under HAIP 1.0: x509_hash and direct_post.jwt (${factory.name})`, () => {
    let v: VerifierRail;
    let db: TestDatabase;
    let rail: TestRail;
    let origin: string;
    let vct: string;
    let holding: VerifierRail['holding'];
    const { call, poll } = verifierCalls(() => v);

    interface Opened {
      requestUri: string;
      transactionId: string;
      resultToken: string;
    }

    async function open(profile?: 'haip' | 'openid4vp', extra: Record<string, unknown> = {}): Promise<Opened> {
      const body = {
        vct,
        claims: ASKED,
        nonce: freshNonce(),
        aud: 'https://rp.example.test',
        ...(profile ? { profile } : {}),
        ...extra,
      };
      const res = await call('POST', '/verify/request', body);
      assert.equal(res.status, 201, res.text);
      return res.json as unknown as Opened;
    }

    /** The request object as served: the compact JWS, its header and its payload. */
    async function requestObject(o: Opened) {
      const res = await call('GET', `/oid4vp/request/${o.transactionId}`);
      assert.equal(res.status, 200, res.text);
      return { jws: res.text, header: decodeProtectedHeader(res.text), payload: decodeJwt(res.text) };
    }

    const present = (o: Opened, overrides?: WalletOverrides) => presentHolding(holding, o.requestUri, origin, overrides);

    /** Posts a direct_post.jwt body as a wallet does: `response=<JWE>`, form-encoded. */
    const postResponse = (jwe: string) => v.postResponse({ response: jwe });

    /** The honest wallet's presentation for `o`, then proof that the refusals before it changed nothing. */
    async function stillCompletes(o: Opened) {
      assert.equal(await poll(o), null, 'the refused response left the transaction pending');
      const run = await present(o);
      assert.equal(run.status, 200, JSON.stringify(run.body));
      assert.equal((await poll(o))?.ok, true);
    }

    before(async () => {
      v = await startVerifierRail(factory, { tenant: 'Leuven Library', type: 'Library Card' });
      ({ db, rail, origin, vct, holding } = v);
    });

    after(async () => {
      await v?.stop();
    });

    test('the request: signed with the verifier’s certificate, named by its hash, asking for an encrypted answer', async () => {
      const o = await open('haip');
      const { jws, header, payload } = await requestObject(o);
      assert.deepEqual(Object.keys(header).sort(), ['alg', 'typ', 'x5c'], 'x5c names the key; no DID kid');
      const { leaf } = keyFromX5c(jws, v.anchorPem);
      const hash = createHash('sha256').update(leaf.raw).digest('base64url');
      assert.equal(payload.client_id, `x509_hash:${hash}`);
      assert.equal(new URL(o.requestUri).searchParams.get('client_id'), payload.client_id, 'the QR code names the same client');
      assert.ok(o.requestUri.startsWith('haip://?'), `a HAIP wallet is invoked by haip:// (HAIP 1.0 §5): ${o.requestUri}`);
      assert.equal(payload.response_mode, 'direct_post.jwt');
      const metadata = payload.client_metadata as { jwks: { keys: JWK[] }; encrypted_response_enc_values_supported: string[] };
      assert.deepEqual(metadata.encrypted_response_enc_values_supported, ['A128GCM', 'A256GCM']);
      assert.equal(metadata.jwks.keys.length, 1);
      const [jwk] = metadata.jwks.keys;
      assert.deepEqual(
        { kty: jwk?.kty, crv: jwk?.crv, alg: jwk?.alg, use: jwk?.use, kid: jwk?.kid, d: jwk?.d },
        { kty: 'EC', crv: 'P-256', alg: 'ECDH-ES', use: 'enc', kid: o.transactionId, d: undefined },
      );
      // trusted_authorities: the key identifier of the authority that certified the issuer (the anchor, here).
      const query = (payload.dcql_query as { credentials: { trusted_authorities: unknown }[] }).credentials[0];
      // (The wallet matches the value against its credential's own chain: the presentations below would fail otherwise.)
      const [authority] = query?.trusted_authorities as { type: string; values: string[] }[];
      assert.equal(authority?.type, 'aki');
      assert.match(authority?.values.join() ?? '', /^[A-Za-z0-9_-]{20,}$/);
      const other = await requestObject(await open('haip'));
      const otherKey = (other.payload.client_metadata as { jwks: { keys: JWK[] } }).jwks.keys[0];
      assert.notEqual(otherKey?.x, jwk?.x, 'each transaction has a key of its own');
    });

    test('the oid4vc-ts wallet answers encrypted, with A128GCM; the result API is unchanged', async () => {
      const o = await open('haip');
      const run = await present(o);
      assert.equal(run.status, 200, JSON.stringify(run.body));
      assert.ok(run.responseJwe, 'the answer went as a JWE');
      const jweHeader = decodeProtectedHeader(run.responseJwe);
      assert.deepEqual([jweHeader.alg, jweHeader.enc, jweHeader.kid], ['ECDH-ES', 'A128GCM', o.transactionId]);
      assert.equal(run.form.vp_token, undefined, 'nothing was posted in the clear');
      assert.equal(
        keyBindingOf(run.presentation).payload.aud,
        run.request.client_id,
        'the holder signed for the x509_hash client',
      );
      const outcome = await poll(o);
      assert.equal(outcome?.ok, true, JSON.stringify(outcome));
      assert.deepEqual(Object.keys((outcome?.presentation as { claims: object }).claims).sort(), [...ASKED].sort());

      // The key is gone with the transaction's completion: no request is served, a replay is refused.
      const row = await rail.db
        .selectFrom('presentation_transactions')
        .select(['response_key', 'profile'])
        .where('id', '=', o.transactionId)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { response_key: null, profile: 'haip' });
      assert.equal((await call('GET', `/oid4vp/request/${o.transactionId}`)).status, 404);
      const replay = await postResponse(run.responseJwe);
      assert.equal(replay.status, 400);
      assert.match(String(replay.json.error_description), /already complete/);
    });

    test('a renewal of the verifier’s certificate after the transaction opened changes nothing for it', async () => {
      const o = await open('haip');
      const before = await requestObject(o);
      // Another process renews the verifier key's certificate; a second rail (fresh caches) serves the wallet.
      const keys = new SqlSigningKeyStore(rail.db);
      const verifierKey = await keys.active('root', 'verifier');
      assert.ok(verifierKey);
      const certifier = await certifierOn(rail.db, new AesKeyVault(Buffer.alloc(32, 7)), systemClock, new URL(PUBLIC_URL));
      const fresh = await certifier.certify('root', 'verifier', verifierKey.publicJwk);
      assert.equal(await new SqlKeyCertificateRenewals(rail.db).renew(verifierKey, fresh), true);
      const other = await startRail(db);
      await other.app.listen({ port: 0, host: '127.0.0.1' });
      try {
        const otherOrigin = `http://127.0.0.1:${(other.app.server.address() as AddressInfo).port}`;
        const served = await fetch(`${otherOrigin}/oid4vp/request/${o.transactionId}`);
        const after = decodeJwt(await served.text());
        assert.equal(after.client_id, before.payload.client_id, 'the request names the certificate the QR code named');
        const run = await presentHolding(holding, o.requestUri, otherOrigin);
        assert.equal(run.status, 200, JSON.stringify(run.body));
        assert.equal((await poll(o))?.ok, true);
        // A transaction opened now names the new certificate (on a process whose key cache is fresh).
        const body = { vct, claims: ASKED, nonce: freshNonce(), aud: 'https://rp.example.test', profile: 'haip' };
        const later = await fetch(`${otherOrigin}/verify/request`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const laterUri = new URL(((await later.json()) as { requestUri: string }).requestUri);
        const freshHash = createHash('sha256')
          .update(Buffer.from(fresh.chain[0] ?? '', 'base64'))
          .digest('base64url');
        assert.equal(laterUri.searchParams.get('client_id'), `x509_hash:${freshHash}`);
        assert.notEqual(laterUri.searchParams.get('client_id'), before.payload.client_id);
      } finally {
        await other.stop();
      }
    });

    test('and with A256GCM', async () => {
      const o = await open('haip');
      const run = await present(o, { enc: 'A256GCM' });
      assert.equal(run.status, 200, JSON.stringify(run.body));
      assert.equal(decodeProtectedHeader(run.responseJwe ?? '').enc, 'A256GCM');
      assert.equal((await poll(o))?.ok, true);
    });

    test('a response encrypted to another key is refused and changes nothing', async () => {
      const o = await open('haip');
      const { privateKey: _unused, publicKey } = await generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true });
      const run = await present(o, { encryptTo: await exportJWK(publicKey) });
      assert.equal(run.status, 400);
      assert.deepEqual(run.body, {
        error: 'invalid_request',
        error_description: 'The response cannot be decrypted with this transaction’s key.',
      });
      await stillCompletes(o);
    });

    test('a content encryption the verifier did not list is refused and changes nothing', async () => {
      const o = await open('haip');
      const run = await present(o, { enc: 'A192GCM' });
      assert.equal(run.status, 400);
      assert.match(String((run.body as Record<string, unknown>).error_description), /ECDH-ES and one of A128GCM, A256GCM/);
      await stillCompletes(o);
    });

    test('a response carrying another transaction’s state, to this one’s key, is refused', async () => {
      const a = await open('haip');
      const b = await open('haip');
      const aObject = await requestObject(a);
      const bObject = await requestObject(b);
      const aKey = (aObject.payload.client_metadata as { jwks: { keys: JWK[] } }).jwks.keys[0] as JWK;
      const refused = await postResponse(
        await encryptAnswer(aKey, { vp_token: { credential: ['x~'] }, state: bObject.payload.state }),
      );
      assert.equal(refused.status, 400);
      assert.match(String(refused.json.error_description), /does not carry this transaction’s state/);
      // A kid naming no live transaction, and one that is not a JWE at all.
      assert.match(
        String((await postResponse(await encryptAnswer(aKey, {}, { kid: 'vtx_nope' }))).json.error_description),
        /No live/,
      );
      assert.equal((await postResponse('not.a.jwe')).status, 400);
      await stillCompletes(a);
      await stillCompletes(b);
    });

    test('a presentation in the clear to a HAIP transaction is refused; a wallet’s error may come in the clear', async () => {
      const o = await open('haip');
      const { payload } = await requestObject(o);
      const clear = await v.postResponse({ vp_token: JSON.stringify({ credential: ['x~'] }), state: String(payload.state) });
      assert.equal(clear.status, 400);
      assert.match(String(clear.json.error_description), /encrypted \(direct_post\.jwt\)/);
      await stillCompletes(o);

      const declined = await open('haip');
      const state = String((await requestObject(declined)).payload.state);
      const error = await v.postResponse({ error: 'access_denied', state });
      assert.equal(error.status, 400);
      assert.equal((await poll(declined))?.error, 'wallet_error');
    });

    test('an encrypted response to a transaction of the interface’s profile is refused; that profile is unchanged', async () => {
      const o = await open();
      const { header, payload } = await requestObject(o);
      assert.ok(typeof header.kid === 'string' && header.x5c === undefined, 'the interface’s profile names the key by DID');
      assert.equal(payload.response_mode, 'direct_post');
      assert.equal(String(payload.client_id), 'decentralized_identifier:did:web:rail.example.test');
      const { publicKey } = await generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true });
      const jwk = { ...(await exportJWK(publicKey)), kid: o.transactionId };
      const refused = await postResponse(await encryptAnswer(jwk, { state: payload.state }));
      assert.equal(refused.status, 400);
      assert.match(String(refused.json.error_description), /in the clear \(direct_post\)/);
      await stillCompletes(o);
    });

    test('a wallet on the same device returns the browser with a response code; the outcome is released only with it', async () => {
      const RETURN = 'https://rp.example.test/return?step=2';
      const result = (o: Opened, code?: string) =>
        call('GET', `/verify/result/${o.transactionId}`, undefined, {
          authorization: `Bearer ${o.resultToken}`,
          ...(code === undefined ? {} : { 'response-code': code }),
        });
      const codes: string[] = [];
      for (const profile of ['haip', 'openid4vp'] as const) {
        const o = await open(profile, { redirectUri: RETURN });
        const run = await present(o);
        assert.equal(run.status, 200, JSON.stringify(run.body));
        const redirect = String((run.body as Record<string, unknown>).redirect_uri);
        const code = /^https:\/\/rp\.example\.test\/return\?step=2#response_code=([A-Za-z0-9_-]{43})$/.exec(redirect)?.[1];
        assert.ok(code, `the wallet is sent back to the caller's page with a code: ${redirect}`);
        codes.push(code);

        // Without the code, or with another transaction's, the outcome stays private (the interface's
        // 200 with outcome null, the reason beside it) and nothing changes.
        const row = () => rail.db.selectFrom('presentation_transactions').selectAll().where('id', '=', o.transactionId).execute();
        const before = await row();
        const without = await result(o);
        assert.deepEqual([without.status, without.json], [200, { outcome: null, reason: 'response_code_required' }]);
        const wrong = await result(o, `${code.slice(0, -1)}${code.endsWith('A') ? 'B' : 'A'}`);
        assert.deepEqual([wrong.status, wrong.json], [200, { outcome: null, reason: 'wrong_response_code' }]);
        assert.deepEqual(await row(), before, 'the refused polls changed nothing');
        const right = await result(o, code);
        assert.equal(right.status, 200, right.text);
        assert.equal((right.json.outcome as { ok: boolean }).ok, true);
        // Kept as a hash only.
        const stored = await rail.db
          .selectFrom('presentation_transactions')
          .select(['response_code_hash', 'redirect_uri'])
          .where('id', '=', o.transactionId)
          .executeTakeFirstOrThrow();
        assert.equal(stored.redirect_uri, RETURN);
        assert.ok(stored.response_code_hash && !stored.response_code_hash.includes(code), 'the code is stored hashed');
      }
      assert.notEqual(codes[0], codes[1], 'each transaction hands out its own code');
      const [first] = codes;
      const another = await open('haip', { redirectUri: RETURN });
      await present(another);
      assert.deepEqual(
        (await result(another, first)).json,
        { outcome: null, reason: 'wrong_response_code' },
        'another transaction’s code opens nothing',
      );

      // Without redirectUri the wallet is answered {} and the result needs no code, as before.
      const plain = await open('haip');
      const plainRun = await present(plain);
      assert.deepEqual(plainRun.body, {});
      assert.equal((await result(plain)).status, 200);

      // A declined answer carries no presentation: no code is handed out, and its outcome needs none.
      const declined = await open('haip', { redirectUri: RETURN });
      const state = String((await requestObject(declined)).payload.state);
      const error = await v.postResponse({ error: 'access_denied', state });
      assert.equal(error.status, 400);
      assert.equal(error.json.redirect_uri, undefined);
      assert.equal(((await result(declined)).json.outcome as { error: string }).error, 'wallet_error');

      // A browser may send the code across origins: the preflight admits its header.
      const preflight = await fetch(`${origin}/verify/result/${plain.transactionId}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://rp.example.test', 'access-control-request-headers': 'authorization, response-code' },
      });
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /\bresponse-code\b/);
    });

    test('a redirectUri that is not an https page without fragment or credentials is refused and stores nothing', async () => {
      const count = () => rowCount(rail.db, 'presentation_transactions');
      const before = await count();
      for (const redirectUri of [
        'http://rp.example.test/return',
        'https://rp.example.test/return#already',
        'https://user:secret@rp.example.test/return',
        'javascript:alert(1)',
        'rp.example.test/return',
        `https://rp.example.test/${'a'.repeat(2000)}`,
      ]) {
        const res = await call('POST', '/verify/request', {
          vct,
          claims: ASKED,
          nonce: freshNonce(),
          aud: 'https://rp.example.test',
          redirectUri,
        });
        assert.equal(res.status, 400, `${redirectUri.slice(0, 40)}: ${res.text}`);
        assert.equal(res.json.error, 'invalid_request');
      }
      assert.equal(await count(), before);
      // http is for development on the loopback host only.
      await open('openid4vp', { redirectUri: 'http://127.0.0.1:8080/return' });
      await open('openid4vp', { redirectUri: 'http://localhost/return' });
    });

    test('under HAIP a credential of this deployment must carry x5c, ending at the trust anchor and certifying its DID key', async () => {
      const [issuerJwt = '', ...rest] = holding.credential.split('~');
      const { header, payload } = { header: decodeProtectedHeader(issuerJwt), payload: decodeJwt(issuerJwt) };
      assert.ok(Array.isArray(header.x5c), 'the issued credential carries x5c');
      const slug = String(payload.iss).split(':').pop() as string;
      const vault = new AesKeyVault(Buffer.alloc(32, 7));
      const certifier = await certifierOn(rail.db, vault, systemClock, new URL(PUBLIC_URL));
      const keys = new TenantKeyStore(new SqlSigningKeyStore(rail.db), new SealedKeyBackend(vault), systemClock, certifier);
      const issuer = await keys.signer(slug, 'issuer');
      const verifierChain = (await keys.signer('root', 'verifier')).x5c;
      const stranger = await newWalletProvider();
      const { x5c: _issued, ...withoutX5c } = header;
      const resigned = async (h: Record<string, unknown>) => [await issuer.sign(h, payload), ...rest].join('~');

      const cases: Array<[string, string, RegExp]> = [
        ['no x5c', await resigned(withoutX5c), /carries no certificate chain \(x5c\)/],
        [
          'a chain to another authority',
          await resigned({ ...withoutX5c, x5c: [stranger.leaf] }),
          /does not end at a trusted anchor/,
        ],
        ['a chain of ours for another key', await resigned({ ...withoutX5c, x5c: verifierChain }), /certifies another key/],
      ];
      for (const [name, credential, why] of cases) {
        // Sound under the interface's profile, which resolves the key by DID only ...
        const plain = await open('openid4vp');
        const accepted = await presentHolding({ credential, key: holding.key }, plain.requestUri, origin);
        assert.equal(accepted.status, 200, `${name}: ${JSON.stringify(accepted.body)}`);
        // ... and refused under HAIP, which resolves it by certificate too.
        const o = await open('haip');
        // (An honest wallet would not offer it: the request names the authority in trusted_authorities.)
        const run = await presentHolding({ credential, key: holding.key }, o.requestUri, origin, {
          ignoreTrustedAuthorities: true,
        });
        assert.equal(run.status, 400, name);
        const outcome = await poll(o);
        assert.equal(outcome?.error, 'issuer_key_unknown', name);
        assert.equal(outcome?.link, 'issuer_key', name);
        assert.match(String(outcome?.detail), why, name);
      }
    });
  });
}
