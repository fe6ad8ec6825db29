/**
 * ISO mdoc issuance over real HTTP (docs/mdoc.md): a type offered in both formats, collected as
 * `mso_mdoc` by the wallet library oid4vc-ts (@openid4vc/openid4vci) in a batch, read by an
 * independent mdoc library (@auth0/mdl: issuer chain to the published anchor, MSO signature, digests,
 * validity, its own device signature), then presented to openrail's mdoc verifier, before and after
 * revocation. Only the origin is rewritten: https://rail.example.test -> http://127.0.0.1:<port>.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { parseIssuerSigned } from '@animo-id/mdoc';
import { Openid4vciClient } from '@openid4vc/openid4vci';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { AUTH0_CORE_CHECKS, presentWithAuth0, verifyWithAuth0 } from '../../../test/helpers/auth0-mdl.ts';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { accountOf, type HolderKey } from '../../../test/helpers/holder.ts';
import { PASS_CLAIMS, PASS_SUBJECT } from '../../../test/helpers/issuance.ts';
import { listenOnLoopback, owner, PUBLIC_URL, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import { ChainVerifier } from '../../adapters/crypto/x509.ts';
import { presentMdoc } from '../../core/mdoc/device-response.ts';
import { redirectTranscript } from '../../core/mdoc/session-transcript.ts';
import { type ElementPath, verifyMdocPresentation } from '../../core/mdoc/verify-mdoc.ts';
import { certificatesOfPem } from '../../core/pem.ts';

const DOCTYPE = 'org.example.transit.pass';
const NS = 'org.example.transit.pass.1';
const CONFIGURATION = 'transit-pass.mdoc';
const publicOnly = (jwk: JWK) => ({ kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y });
type Callbacks = ConstructorParameters<typeof Openid4vciClient>[0]['callbacks'];

/** A device key whose private JWK the test holds, to sign DeviceResponses with. */
async function deviceKey(): Promise<HolderKey & { privateJwk: JWK; thumbprint: string }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const key = { privateKey, publicJwk: await exportJWK(publicKey) };
  return { ...key, privateJwk: await exportJWK(privateKey), thumbprint: accountOf(key) };
}

for (const factory of testDatabases()) {
  describe(`mdoc issuance to the oid4vc-ts wallet over HTTP (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let origin: string;
    let slug: string;

    const railFetch: typeof fetch = (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (!url.startsWith(`${PUBLIC_URL}/`)) return fetch(input, init);
      const target = `${origin}${url.slice(PUBLIC_URL.length)}`;
      return input instanceof Request ? fetch(new Request(target, input), init) : fetch(target, init);
    };
    const api = async (path: string, body: unknown) => {
      const res = await fetch(`${origin}${path}`, {
        method: 'POST',
        headers: { ...owner, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };
    const get = async (url: string, accept = 'application/json') => {
      const res = await railFetch(url, { headers: { accept } });
      assert.equal(res.status, 200, url);
      return res;
    };

    before(async () => {
      db = await factory.create();
      rail = await startRail(db);
      origin = await listenOnLoopback(rail);
      const tenant = await api('/api/tenants', { name: 'Mdoc Transit' });
      assert.equal(tenant.status, 201, JSON.stringify(tenant.json));
      slug = String(tenant.json.slug);
      const type = await api('/api/types', {
        tenant: slug,
        name: 'Transit Pass',
        claims: PASS_CLAIMS,
        mdoc: { doctype: DOCTYPE, namespace: NS },
      });
      assert.equal(type.status, 201, JSON.stringify(type.json));
      assert.deepEqual(type.json.formats, ['dc+sd-jwt', 'mso_mdoc']);
      assert.equal((type.json.mdoc as { doctype: string }).doctype, DOCTYPE);
    });
    after(async () => {
      await rail?.stop();
      await db?.drop();
    });

    test('the issuer metadata offers the type as two configurations, the mdoc one with its doctype and elements', async () => {
      const metadata = (await (await get(`${PUBLIC_URL}/t/${slug}/.well-known/openid-credential-issuer`)).json()) as {
        credential_configurations_supported: Record<string, Record<string, unknown>>;
      };
      const configs = metadata.credential_configurations_supported;
      assert.deepEqual(Object.keys(configs), ['transit-pass', CONFIGURATION]);
      const mdoc = configs[CONFIGURATION] as Record<string, unknown> & {
        credential_metadata: { claims: Array<{ path: string[] }> };
      };
      assert.equal(mdoc.format, 'mso_mdoc');
      assert.equal(mdoc.doctype, DOCTYPE);
      assert.equal(mdoc.scope, CONFIGURATION);
      assert.deepEqual(mdoc.cryptographic_binding_methods_supported, ['cose_key']);
      assert.deepEqual(mdoc.credential_signing_alg_values_supported, [-7]);
      assert.deepEqual(
        mdoc.credential_metadata.claims.map((c) => c.path),
        Object.keys(PASS_SUBJECT).map((k) => [NS, k]),
      );
      assert.equal(configs['transit-pass']?.format, 'dc+sd-jwt', 'the SD-JWT VC configuration is unchanged');
    });

    test('a wallet collects a batch of mdocs; @auth0/mdl verifies each; openrail’s verifier accepts it, then refuses it revoked', async () => {
      const offer = await api('/api/offers', { tenant: slug, typeId: 'transit-pass', subject: PASS_SUBJECT });
      assert.equal(offer.status, 201, JSON.stringify(offer.json));
      const keys = [await deviceKey(), await deviceKey()];
      const signJwt: Callbacks['signJwt'] = async (signer, { header, payload }) => {
        if (signer.method !== 'jwk') throw new Error('jwk signers only');
        const key = keys.find((k) => k.publicJwk.x === signer.publicJwk.x);
        if (!key) throw new Error('not a key of this wallet');
        const jwt = await new SignJWT(payload as Record<string, unknown>)
          .setProtectedHeader(header as Parameters<SignJWT['setProtectedHeader']>[0])
          .sign(key.privateKey);
        return { jwt, signerJwk: signer.publicJwk };
      };
      const client = new Openid4vciClient({
        callbacks: {
          fetch: railFetch,
          hash: (data, alg) => createHash(alg.replace('-', '')).update(data).digest(),
          generateRandom: (bytes) => randomBytes(bytes),
          signJwt,
          clientAuthentication: () => {},
        },
      });
      const offerObject = await client.resolveCredentialOffer(String(offer.json.offerUri));
      assert.deepEqual(offerObject.credential_configuration_ids, ['transit-pass', CONFIGURATION]);
      const metadata = await client.resolveIssuerMetadata(offerObject.credential_issuer);
      const { accessTokenResponse } = await client.retrievePreAuthorizedCodeAccessTokenFromOffer({
        credentialOffer: offerObject,
        issuerMetadata: metadata,
      });
      const { c_nonce: nonce } = await client.requestNonce({ issuerMetadata: metadata });
      const proofs: string[] = [];
      for (const key of keys) {
        const { jwt } = await client.createCredentialRequestJwtProof({
          issuerMetadata: metadata,
          credentialConfigurationId: CONFIGURATION,
          nonce,
          signer: { method: 'jwk', alg: 'ES256', publicJwk: publicOnly(key.publicJwk) },
        });
        proofs.push(jwt);
      }
      const { credentialResponse } = await client.retrieveCredentials({
        issuerMetadata: metadata,
        accessToken: accessTokenResponse.access_token,
        credentialConfigurationId: CONFIGURATION,
        proofs: { jwt: proofs },
      });
      const credentials = (credentialResponse.credentials ?? []).map((c) => (c as { credential: string }).credential);
      assert.equal(credentials.length, 2);

      const anchorPem = await (await get(`${PUBLIC_URL}/.well-known/openrail-ca.pem`, 'application/x-pem-file')).text();
      const didDocument = await (await get(`${PUBLIC_URL}/t/${slug}/did.json`)).json();
      const elements: ElementPath[] = Object.keys(PASS_SUBJECT).map((k) => [NS, k]);
      const transcript = redirectTranscript({
        clientId: 'decentralized_identifier:did:web:verifier.example',
        nonce: 'mdoc-nonce-1',
        responseUri: 'https://verifier.example/response',
        encryptionKeyThumbprint: null,
      });
      const statusRefs: Array<{ idx: number; uri: string }> = [];
      for (const [i, credential] of credentials.entries()) {
        const key = keys[i] as (typeof keys)[number];
        const document = parseIssuerSigned(Buffer.from(credential as string, 'base64url'), DOCTYPE);
        const mso = document.issuerSigned.issuerAuth.decodedPayload as unknown as { status: Map<string, Map<string, unknown>> };
        const ref = mso.status.get('status_list') as Map<string, unknown>;
        statusRefs.push({ idx: Number(ref.get('idx')), uri: String(ref.get('uri')) });
        assert.equal(statusRefs[i]?.uri, `${PUBLIC_URL}/t/${slug}/status/1`);

        // @auth0/mdl presents the mdoc and verifies it, on its own.
        const presented = await presentWithAuth0({
          issuerSigned: credential as string,
          doctype: DOCTYPE,
          namespace: NS,
          elements: Object.keys(PASS_SUBJECT),
          deviceKey: key.privateJwk,
          transcript,
        });
        const { passed, failed, elements: values = {} } = await verifyWithAuth0(presented, [anchorPem], transcript, NS);
        assert.deepEqual(failed, []);
        for (const made of AUTH0_CORE_CHECKS) assert.ok(passed.includes(made), `@auth0/mdl checked: ${made}`);
        assert.equal(values.holder_name, PASS_SUBJECT.holder_name);
        assert.deepEqual(values.zones, PASS_SUBJECT.zones);

        // openrail's own verifier, on a DeviceResponse built by its wallet code.
        const response = await presentMdoc({
          issuerSigned: credential as string,
          elements,
          deviceKey: key.privateJwk as JWK,
          sessionTranscript: transcript,
        });
        const list = await (await get(statusRefs[i]?.uri as string, 'application/statuslist+jwt')).text();
        const chains = new ChainVerifier(certificatesOfPem(anchorPem));
        const input = {
          presentation: response,
          didDocument,
          statusList: list,
          trustAnchors: certificatesOfPem(anchorPem),
          expected: { doctype: DOCTYPE, claims: elements, sessionTranscript: transcript },
          now: Math.floor(Date.now() / 1000),
        };
        const check = (chain: readonly string[], _anchors: readonly string[], now: number) =>
          chains.keyOf(chain, new Date(now * 1000));
        const result = await verifyMdocPresentation(input, check);
        assert.equal(result.verdict, 'accept', JSON.stringify(result.ledger));
        assert.deepEqual(result.claims?.[NS], PASS_SUBJECT, 'every element, a date as YYYY-MM-DD');
        assert.equal(result.holder, key.thumbprint);
      }
      assert.notEqual(statusRefs[0]?.idx, statusRefs[1]?.idx, 'each mdoc of the batch has its own status entry');
      assert.notEqual(credentials[0], credentials[1]);

      // Revoked: the same presentation fails on its status bit.
      const revoked = await api('/api/revoke', { tenant: slug, status: statusRefs[0] });
      assert.equal(revoked.status, 200, JSON.stringify(revoked.json));
      const list = await (await get(statusRefs[0]?.uri as string, 'application/statuslist+jwt')).text();
      const key = keys[0] as (typeof keys)[number];
      const response = await presentMdoc({
        issuerSigned: credentials[0] as string,
        elements,
        deviceKey: key.privateJwk as JWK,
        sessionTranscript: transcript,
      });
      const chains = new ChainVerifier(certificatesOfPem(anchorPem));
      const result = await verifyMdocPresentation(
        {
          presentation: response,
          didDocument,
          statusList: list,
          trustAnchors: certificatesOfPem(anchorPem),
          expected: { doctype: DOCTYPE, claims: elements, sessionTranscript: transcript },
          now: Math.floor(Date.now() / 1000),
        },
        (chain, _anchors, now) => chains.keyOf(chain, new Date(now * 1000)),
      );
      assert.equal(result.verdict, 'reject');
      assert.equal(result.failure, 'credential_revoked');
    });
  });
}
