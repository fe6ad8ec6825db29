/**
 * Key attestation in the `jwt` proof (OID4VCI 1.0 Appendix D; HAIP 1.0 §"Credential Endpoint";
 * docs/haip.md, "Key attestation"), over real HTTP with the oid4vc-ts wallet: an issuer requires it
 * of a type, its metadata says so, and each proof must then carry a wallet provider's attestation
 * of the proof's key, trusted through the configured anchors, or be one key attestation alone
 * (the `attestation` proof type), a credential for each key it attests. Each refusal is
 * `invalid_proof` (or `invalid_nonce`) and leaves the access token and nonce as they were: the
 * honest request afterwards still collects.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeJwt, SignJWT } from 'jose';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { type HaipWallet, newHaipWallet, newWalletProvider, type WalletProvider } from '../../../test/helpers/haip-wallet.ts';
import { newHolderKey } from '../../../test/helpers/holder.ts';
import { CARD_CLAIMS, CARD_SUBJECT } from '../../../test/helpers/issuance.ts';
import { publicOnly } from '../../../test/helpers/oid4vp-wallet.ts';
import { jsonCaller, listenOnLoopback, owner, PUBLIC_URL, startRail, type TestRail } from '../../../test/helpers/rail.ts';

const STRICT = { keyStorage: ['iso_18045_high', 'iso_18045_moderate'] };

for (const factory of testDatabases()) {
  describe(`key attestation: in the jwt proof, and as the attestation proof type (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let origin: string;
    let provider: WalletProvider;
    let slug: string;
    let typeId: string;
    const call = jsonCaller(() => origin);
    const issuer = () => `${PUBLIC_URL}/t/${slug}`;

    before(async () => {
      provider = await newWalletProvider();
      db = await factory.create();
      rail = await startRail(db, { OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE: provider.anchorFile });
      origin = await listenOnLoopback(rail);
      slug = String((await call('POST', '/api/tenants', { name: 'Attested Issuer' }, owner)).json.slug);
      typeId = String(
        (await call('POST', '/api/types', { tenant: slug, name: 'Library Card', claims: CARD_CLAIMS }, owner)).json.typeId,
      );
    });
    after(async () => {
      await rail?.stop();
      await db?.drop();
    });

    const require = (required: unknown, headers: Record<string, string> = owner) =>
      call('POST', '/api/types/key-attestation', { tenant: slug, typeId, required }, headers);

    /** A wallet with a pre-authorized access token for a fresh offer, and what it needs to ask for the credential. */
    async function redeemed() {
      const wallet = await newHaipWallet(provider, origin);
      const made = await call('POST', '/api/offers', { tenant: slug, typeId, subject: CARD_SUBJECT }, owner);
      assert.equal(made.status, 201, made.text);
      const offer = await wallet.vci.resolveCredentialOffer(String(made.json.offerUri));
      const issuerMetadata = await wallet.vci.resolveIssuerMetadata(offer.credential_issuer);
      const { accessTokenResponse } = await wallet.oauth.retrievePreAuthorizedCodeAccessToken({
        authorizationServerMetadata: issuerMetadata.authorizationServers[0] as never,
        preAuthorizedCode: String(
          offer.grants?.['urn:ietf:params:oauth:grant-type:pre-authorized_code']?.['pre-authorized_code'],
        ),
      });
      const nonce = async () => (await wallet.vci.requestNonce({ issuerMetadata })).c_nonce;
      return { wallet, issuerMetadata, token: accessTokenResponse.access_token, nonce };
    }

    /** A proof by the holder key for `nonce`, its header as given (by hand, so that any header can be sent). */
    const proof = (wallet: HaipWallet, nonce: string, header: Record<string, unknown> = {}) =>
      new SignJWT({ aud: issuer(), iat: Math.floor(Date.now() / 1000), nonce })
        .setProtectedHeader({
          alg: 'ES256',
          typ: 'openid4vci-proof+jwt',
          jwk: publicOnly(wallet.holderKey.publicJwk),
          ...header,
        })
        .sign(wallet.holderKey.privateKey);

    const credential = (token: string, jwt: string) =>
      call(
        'POST',
        `/t/${slug}/credential`,
        { credential_configuration_id: typeId, proofs: { jwt: [jwt] } },
        { authorization: `Bearer ${token}` },
      );

    test('an issuer requires it of a type; the metadata says so; only the issuer plane may set it, audited', async () => {
      const anonymous = await require(STRICT, {});
      assert.equal(anonymous.status, 401);
      const bad = await require({ keyStorage: [] });
      assert.equal(bad.status, 400, bad.text);
      const unknown = await call(
        'POST',
        '/api/types/key-attestation',
        { tenant: slug, typeId: 'no-such-type', required: {} },
        owner,
      );
      assert.equal(unknown.status, 404, unknown.text);
      assert.equal(unknown.json.error, 'unknown_type');

      const set = await require(STRICT);
      assert.equal(set.status, 200, set.text);
      assert.deepEqual(set.json, { tenant: slug, typeId, required: STRICT, previous: null });
      const metadata = await call('GET', `/.well-known/openid-credential-issuer/t/${slug}`);
      const proofTypes = (
        metadata.json.credential_configurations_supported as Record<string, { proof_types_supported: unknown }>
      )[typeId]?.proof_types_supported;
      const listed = {
        proof_signing_alg_values_supported: ['ES256'],
        key_attestations_required: { key_storage: STRICT.keyStorage },
      };
      assert.deepEqual(proofTypes, { jwt: listed, attestation: listed }, 'in a jwt proof, or as the attestation proof type');
      const audit = await rail.db
        .selectFrom('audit_log')
        .select(['action', 'target'])
        .where('action', '=', 'type.key_attestation.set')
        .execute();
      assert.deepEqual(audit, [{ action: 'type.key_attestation.set', target: typeId }]);
    });

    test('the oid4vc-ts wallet sends its provider’s key attestation in the proof, and collects', async () => {
      assert.equal((await require(STRICT)).status, 200);
      const { wallet, issuerMetadata, token, nonce } = await redeemed();
      const cNonce = await nonce();
      const { jwt } = await wallet.vci.createCredentialRequestJwtProof({
        issuerMetadata,
        credentialConfigurationId: typeId,
        nonce: cNonce,
        signer: { method: 'jwk', alg: 'ES256', publicJwk: publicOnly(wallet.holderKey.publicJwk) },
        keyAttestationJwt: await wallet.keyAttestation({ nonce: cNonce }),
      });
      const { credentialResponse } = await wallet.vci.retrieveCredentials({
        issuerMetadata,
        accessToken: token,
        credentialConfigurationId: typeId,
        proofs: { jwt: [jwt] },
      });
      const [first] = credentialResponse.credentials ?? [];
      const issued = String((first as { credential: string }).credential);
      const payload = decodeJwt(issued.split('~')[0] as string);
      assert.deepEqual(
        (payload.cnf as { jwk: unknown }).jwk,
        publicOnly(wallet.holderKey.publicJwk),
        'bound to the attested key',
      );
    });

    test('a proof without an attestation, or with one that does not hold, is refused and spends nothing', async () => {
      assert.equal((await require(STRICT)).status, 200);
      const { wallet, token, nonce } = await redeemed();
      const cNonce = await nonce();
      const other = await newHolderKey();
      const past = Math.floor(Date.now() / 1000) - 60;
      const cases: Array<[string, Record<string, unknown>, RegExp]> = [
        ['no attestation', {}, /requires a key attestation/],
        ['not a JWT', { key_attestation: 'not-a-jwt' }, /not a JWT/],
        ['not a string', { key_attestation: { jwt: 'x' } }, /must be a key attestation JWT/],
        [
          'an untrusted provider',
          { key_attestation: await wallet.keyAttestation({ nonce: cNonce, signer: 'stranger' }) },
          /trusts/,
        ],
        [
          'a self-made attestation',
          { key_attestation: await wallet.keyAttestation({ nonce: cNonce, signer: 'self' }) },
          /trusts/,
        ],
        [
          'another typ',
          { key_attestation: await wallet.keyAttestation({ nonce: cNonce, header: { typ: 'JWT' } }) },
          /typ must be key-attestation\+jwt/,
        ],
        [
          'an expired one',
          { key_attestation: await wallet.keyAttestation({ nonce: cNonce, payload: { exp: past } }) },
          /expired/,
        ],
        [
          'one without exp',
          { key_attestation: await wallet.keyAttestation({ nonce: cNonce, payload: { exp: undefined } }) },
          /no exp/,
        ],
        ['another nonce', { key_attestation: await wallet.keyAttestation({ nonce: await nonce() }) }, /c_nonce of its proof/],
        ['another key attested', { key_attestation: await wallet.keyAttestation({ nonce: cNonce, keys: [other] }) }, /attests/],
        [
          'weaker key storage',
          { key_attestation: await wallet.keyAttestation({ nonce: cNonce, keyStorage: ['iso_18045_basic'] }) },
          /key_storage names none of the values this credential type accepts: iso_18045_high, iso_18045_moderate/,
        ],
        [
          'no key storage',
          { key_attestation: await wallet.keyAttestation({ nonce: cNonce, payload: { key_storage: undefined } }) },
          /key_storage/,
        ],
      ];
      for (const [name, header, why] of cases) {
        const res = await credential(token, await proof(wallet, cNonce, header));
        assert.equal(res.status, 400, `${name}: ${res.text}`);
        assert.equal(res.json.error, 'invalid_proof', name);
        assert.match(String(res.json.error_description), why, name);
      }
      assert.equal(
        Number(
          (
            await rail.db
              .selectFrom('issued_credentials')
              .select((e) => e.fn.countAll().as('n'))
              .where('tenant', '=', slug)
              .executeTakeFirstOrThrow()
          ).n,
        ),
        1,
        'nothing was issued by the refusals (the one credential is the previous test’s)',
      );
      // The token and the nonce are unspent: the honest proof collects with them.
      const honest = await credential(
        token,
        await proof(wallet, cNonce, { key_attestation: await wallet.keyAttestation({ nonce: cNonce }) }),
      );
      assert.equal(honest.status, 200, honest.text);
    });

    test('the attestation proof type: one key attestation, a credential bound to each key it attests', async () => {
      assert.equal((await require(STRICT)).status, 200);
      const { wallet, issuerMetadata, token, nonce } = await redeemed();
      const second = await newHolderKey();
      const attestation = await wallet.keyAttestation({ nonce: await nonce(), asProof: true, keys: [wallet.holderKey, second] });
      const { credentialResponse } = await wallet.vci.retrieveCredentials({
        issuerMetadata,
        accessToken: token,
        credentialConfigurationId: typeId,
        proofs: { attestation: [attestation] },
      });
      const bound = (credentialResponse.credentials ?? []).map(
        (c) => (decodeJwt(String((c as { credential: string }).credential).split('~')[0] as string).cnf as { jwk: unknown }).jwk,
      );
      assert.deepEqual(bound, [publicOnly(wallet.holderKey.publicJwk), publicOnly(second.publicJwk)]);
    });

    test('an attestation proof that does not hold is refused and spends nothing', async () => {
      assert.equal((await require(STRICT)).status, 200);
      const { wallet, token, nonce } = await redeemed();
      const cNonce = await nonce();
      const send = (proofs: unknown) =>
        call(
          'POST',
          `/t/${slug}/credential`,
          { credential_configuration_id: typeId, proofs },
          { authorization: `Bearer ${token}` },
        );
      const many = await Promise.all(Array.from({ length: 11 }, () => newHolderKey()));
      const cases: Array<[string, unknown, string, RegExp]> = [
        ['two attestations', { attestation: ['a', 'b'] }, 'invalid_proof', /exactly one/],
        [
          'no nonce',
          { attestation: [await wallet.keyAttestation({ nonce: cNonce, payload: { nonce: undefined } })] },
          'invalid_proof',
          /c_nonce/,
        ],
        [
          'a nonce not ours',
          { attestation: [await wallet.keyAttestation({ nonce: 'made-up-nonce' })] },
          'invalid_nonce',
          /nonce/,
        ],
        [
          'an untrusted provider',
          { attestation: [await wallet.keyAttestation({ nonce: cNonce, signer: 'stranger' })] },
          'invalid_proof',
          /trusts/,
        ],
        [
          'a key that is not P-256',
          {
            attestation: [
              await wallet.keyAttestation({
                nonce: cNonce,
                payload: { attested_keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'AAAA' }] },
              }),
            ],
          },
          'invalid_proof',
          /not a public P-256 key/,
        ],
        [
          'more keys than a batch',
          { attestation: [await wallet.keyAttestation({ nonce: cNonce, keys: many })] },
          'invalid_proof',
          /more than 10/,
        ],
        [
          'weaker key storage',
          { attestation: [await wallet.keyAttestation({ nonce: cNonce, keyStorage: ['iso_18045_basic'] })] },
          'invalid_proof',
          /key_storage/,
        ],
      ];
      for (const [name, proofs, error, why] of cases) {
        const res = await send(proofs);
        assert.equal(res.status, 400, `${name}: ${res.text}`);
        assert.equal(res.json.error, error, name);
        assert.match(String(res.json.error_description), why, name);
      }
      // A type that requires no key attestation takes jwt proofs only.
      assert.equal((await require(null)).status, 200);
      const plain = await send({ attestation: [await wallet.keyAttestation({ nonce: cNonce, asProof: true })] });
      assert.equal(plain.status, 400, plain.text);
      assert.match(String(plain.json.error_description), /takes jwt proofs/);
      // Nothing was spent: the honest attestation collects with the same token and nonce.
      assert.equal((await require(STRICT)).status, 200);
      const honest = await send({ attestation: [await wallet.keyAttestation({ nonce: cNonce, asProof: true })] });
      assert.equal(honest.status, 200, honest.text);
    });

    test('cleared, the type takes proofs without one again; a type that requires none ignores one', async () => {
      assert.equal((await require(STRICT)).status, 200);
      const cleared = await require(null);
      assert.deepEqual(cleared.json.previous, STRICT);
      const metadata = await call('GET', `/.well-known/openid-credential-issuer/t/${slug}`);
      assert.deepEqual(
        (metadata.json.credential_configurations_supported as Record<string, { proof_types_supported: unknown }>)[typeId]
          ?.proof_types_supported,
        { jwt: { proof_signing_alg_values_supported: ['ES256'] } },
      );
      const { wallet, token, nonce } = await redeemed();
      const res = await credential(token, await proof(wallet, await nonce(), { key_attestation: 'not-checked-here' }));
      assert.equal(res.status, 200, res.text);
    });

    test('a deployment that trusts no wallet provider refuses to require it', async () => {
      const other = await startRail(db);
      try {
        const res = await other.app.inject({
          method: 'POST',
          url: '/api/types/key-attestation',
          headers: { ...owner, 'content-type': 'application/json' },
          payload: { tenant: slug, typeId, required: {} },
        });
        assert.equal(res.statusCode, 409, res.body);
        assert.equal(res.json().error, 'wallet_trust_unconfigured');
        // Clearing is always possible.
        const clear = await other.app.inject({
          method: 'POST',
          url: '/api/types/key-attestation',
          headers: { ...owner, 'content-type': 'application/json' },
          payload: { tenant: slug, typeId, required: null },
        });
        assert.equal(clear.statusCode, 200, clear.body);
      } finally {
        await other.stop();
      }
    });
  });
}
