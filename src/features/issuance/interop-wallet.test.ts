/**
 * Interop over real HTTP: the wallet library oid4vc-ts (@openid4vc/openid4vci) collects SD-JWT VCs
 * from a listening rail, and the issuer-side libraries of sd-jwt-js (@sd-jwt/sd-jwt-vc,
 * @sd-jwt/jwt-status-list) verify what it got. Only the origin is rewritten (the libraries insist on
 * https URLs): https://rail.example.test -> http://127.0.0.1:<port>. Everything else is the real
 * thing: sockets, HTTP, the database, the keys.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  type CredentialOfferObject,
  type IssuerMetadataResult,
  Openid4vciClient,
  Openid4vciVersion,
} from '@openid4vc/openid4vci';
import { digest, ES256 } from '@sd-jwt/crypto-nodejs';
import { getListFromStatusListJWT, type StatusList } from '@sd-jwt/jwt-status-list';
import { SDJwtVcInstance, type TypeMetadataFormat } from '@sd-jwt/sd-jwt-vc';
import { decodeJwt, decodeProtectedHeader, importJWK, type JWK, jwtVerify, SignJWT } from 'jose';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { type HolderKey, newHolderKey } from '../../../test/helpers/holder.ts';
import { PASS_CLAIMS, PASS_SUBJECT, PRE_AUTH } from '../../../test/helpers/issuance.ts';
import { listenOnLoopback, owner, PUBLIC_URL, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import { keyFromX5c, uriNames, verifyByX5c } from '../../../test/helpers/x5c.ts';

const TENANT_NAME = 'Flanders Transit Interop';
const TYPE_NAME = 'Transit Pass';
const TYPE_ID = 'transit-pass';
const SUBJECT: Record<string, unknown> = PASS_SUBJECT;
/** The claims of the type whose elements are disclosed one by one (array(text), array(object)). */
const ARRAY_CLAIMS = ['zones', 'trips'];
/** Claims a credential carries beside the subject; never selectively disclosed (SD-JWT VC §3.2.2.2). */
const ENVELOPE = ['cnf', 'iat', 'iss', 'status', 'vct'];

type Callbacks = ConstructorParameters<typeof Openid4vciClient>[0]['callbacks'];
type VerificationMethod = { id: string; type: string; controller: string; publicKeyJwk: JWK };
type DidDocument = { id: string; verificationMethod: VerificationMethod[]; assertionMethod: string[] };

const publicOnly = (jwk: JWK) => ({ kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y });

/** A wallet: oid4vc-ts with node:crypto and jose callbacks, holding the keys it is given. */
function newWallet(railFetch: typeof fetch) {
  const keys = new Map<string, HolderKey>();
  const signJwt: Callbacks['signJwt'] = async (signer, { header, payload }) => {
    if (signer.method !== 'jwk') throw new Error(`this wallet signs with jwk signers only, not ${signer.method}`);
    const key = keys.get(String(signer.publicJwk.x));
    if (!key) throw new Error('the wallet does not hold this key');
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
      // Anonymous pre-authorized access: no client authentication at all.
      clientAuthentication: () => {},
    },
  });
  return {
    client,
    hold: (key: HolderKey) => keys.set(String(key.publicJwk.x), key),
  };
}

for (const factory of testDatabases()) {
  describe(`OID4VCI issuance to the oid4vc-ts wallet over HTTP (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let origin: string;
    /** Every request a library made through the wallet fetch, as `METHOD https://rail.example.test/...`. */
    let requests: string[] = [];
    /** The JSON bodies the wallet POSTed to the credential endpoint. */
    let credentialRequests: Array<Record<string, unknown>> = [];
    let slug: string;
    let issuer: string;
    let did: string;
    let vct: string;
    let didDocument: DidDocument;
    /** The platform's trust anchor, as a relying party that resolves keys by x5c fetches it once. */
    let anchorPem: string;

    /** The wallet's fetch: the public origin goes to the socket, any other URL to the global fetch. */
    const railFetch: typeof fetch = (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
      requests.push(`${method} ${url}`);
      if (url.endsWith('/credential') && typeof init?.body === 'string') credentialRequests.push(JSON.parse(init.body));
      if (!url.startsWith(`${PUBLIC_URL}/`)) return fetch(input, init);
      const target = `${origin}${url.slice(PUBLIC_URL.length)}`;
      return input instanceof Request ? fetch(new Request(target, input), init) : fetch(target, init);
    };

    /** An operator call over the socket with the owner bearer. */
    async function api(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
      const res = await fetch(`${origin}${path}`, {
        method: 'POST',
        headers: { ...owner, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    }

    async function offer(extra: Record<string, unknown> = {}) {
      const res = await api('/api/offers', { tenant: slug, typeId: TYPE_ID, subject: PASS_SUBJECT, ...extra });
      assert.equal(res.status, 201, JSON.stringify(res.json));
      return res.json as { offerId: string; offerUri: string; expiresAt: string; txCode?: string };
    }

    async function getJson(url: string): Promise<Record<string, unknown>> {
      const res = await railFetch(url);
      assert.equal(res.status, 200, `GET ${url}`);
      assert.match(String(res.headers.get('content-type')), /^application\/json\b/);
      return (await res.json()) as Record<string, unknown>;
    }

    /** The tenant key a credential's header names (kid = DID URL of a verificationMethod). */
    function keyOf(kid: unknown): JWK {
      const method = didDocument.verificationMethod.find((m) => m.id === kid);
      assert.ok(method, `the DID document of ${did} has a verificationMethod ${String(kid)}`);
      assert.ok(didDocument.assertionMethod.includes(method.id), `${method.id} is an assertionMethod`);
      return method.publicKeyJwk;
    }

    /** A Status List Token fetched as a relying party does, its signature checked with the tenant key. */
    async function statusList(uri: string, key: JWK): Promise<{ jwt: string; list: StatusList }> {
      const res = await railFetch(uri, { headers: { accept: 'application/statuslist+jwt' } });
      assert.equal(res.status, 200, `GET ${uri}`);
      assert.equal(res.headers.get('content-type'), 'application/statuslist+jwt');
      const jwt = await res.text();
      assert.deepEqual(await verifyByX5c(jwt, anchorPem), decodeJwt(jwt), 'the token verifies by its x5c as well (HAIP 1.0)');
      const { payload, protectedHeader } = await jwtVerify(jwt, await importJWK(key, 'ES256'), {
        algorithms: ['ES256'],
        typ: 'statuslist+jwt',
      });
      assert.equal(protectedHeader.typ, 'statuslist+jwt');
      assert.equal(payload.sub, uri, 'sub is the URI the credential refers to');
      assert.equal(payload.iss, did);
      assert.equal(typeof payload.iat, 'number');
      assert.ok(typeof payload.exp === 'number' && payload.exp > Number(payload.iat));
      assert.deepEqual(Object.keys(payload.status_list as object).sort(), ['bits', 'lst']);
      assert.equal((payload.status_list as { bits: number }).bits, 1);
      const list = getListFromStatusListJWT(jwt);
      assert.equal(list.getBitsPerStatus(), 1);
      return { jwt, list };
    }

    /**
     * Verifies a credential as a relying party would, with @sd-jwt/sd-jwt-vc and the key from the
     * tenant's DID document, and checks every part of it against the offer. Returns its status reference.
     */
    async function checkCredential(credential: string, holder: JWK): Promise<{ idx: number; uri: string; salts: string[] }> {
      assert.ok(credential.endsWith('~'), 'an SD-JWT without key binding ends with ~');
      const issuerJwt = credential.slice(0, credential.indexOf('~'));
      const header = decodeProtectedHeader(issuerJwt);
      const key = keyOf(header.kid);
      const verifier = await ES256.getVerifier(key);
      const sdJwtVc = new SDJwtVcInstance({
        hasher: digest,
        verifier,
        statusVerifier: verifier,
        statusListFetcher: async (uri) => (await statusList(uri, key)).jwt,
        vctFetcher: async (uri) => (await getJson(uri)) as TypeMetadataFormat,
        loadTypeMetadataFormat: true,
      });
      // Signature, disclosure digests, the status bit (must be 0) and the type metadata at vct.
      const verified = await sdJwtVc.verify(credential);

      // The header names the key twice: by DID URL (kid) and by certificate chain (x5c, HAIP 1.0).
      const { x5c, ...byKid } = verified.header as Record<string, unknown>;
      assert.deepEqual(byKid, { typ: 'dc+sd-jwt', alg: 'ES256', kid: header.kid });
      // A relying party that resolves by x5c alone reaches the same key, and verifies the same credential.
      const { key: certified, leaf } = keyFromX5c(issuerJwt, anchorPem);
      assert.ok(Array.isArray(x5c) && x5c.length === 1, 'x5c: the key’s certificate; the platform root is the anchor, left out');
      assert.deepEqual(
        certified.export({ format: 'jwk' }),
        publicOnly(key as JWK),
        'the certificate certifies the DID document’s key',
      );
      assert.deepEqual(uriNames(leaf), [did, issuer], 'the certificate names the issuer’s DID and URL');
      const byCertificate = new SDJwtVcInstance({
        hasher: digest,
        verifier: await ES256.getVerifier(certified.export({ format: 'jwk' }) as JWK),
        statusVerifier: verifier,
        statusListFetcher: async (uri) => (await statusList(uri, key)).jwt,
      });
      assert.deepEqual((await byCertificate.verify(credential)).payload, verified.payload);
      const { iss, iat, vct: vctClaim, cnf, status, ...claims } = verified.payload;
      assert.equal(iss, did);
      assert.equal(vctClaim, vct);
      assert.deepEqual(cnf, { jwk: publicOnly(holder) }, 'cnf.jwk is the holder key of the proof');
      const now = Math.floor(Date.now() / 1000);
      assert.ok(typeof iat === 'number' && iat <= now && iat > now - 400, `iat ${iat} is recent`);
      assert.deepEqual(claims, PASS_SUBJECT, 'every subject claim, with its exact value');
      assert.ok(status);
      assert.deepEqual(Object.keys(status), ['status_list']);
      assert.deepEqual(Object.keys(status.status_list).sort(), ['idx', 'uri']);
      const { idx, uri } = status.status_list;
      assert.equal(uri, `${issuer}/status/1`);
      assert.ok(Number.isInteger(idx) && idx >= 0, `idx ${idx}`);

      // The issuer-signed part carries digests only: no subject claim in the clear.
      const signed = decodeJwt(issuerJwt);
      assert.deepEqual(Object.keys(signed).sort(), ['_sd', '_sd_alg', ...ENVELOPE].sort());
      assert.equal(signed._sd_alg, 'sha-256');

      // One disclosure per subject claim, and one per array element.
      const decoded = await sdJwtVc.decode(credential);
      const disclosures = decoded.disclosures ?? [];
      const named = disclosures.filter((d) => d.key !== undefined);
      assert.deepEqual(named.map((d) => d.key).sort(), Object.keys(SUBJECT).sort());
      for (const d of named) {
        const expected = SUBJECT[String(d.key)];
        if (ARRAY_CLAIMS.includes(String(d.key))) {
          assert.ok(Array.isArray(d.value) && Array.isArray(expected));
          assert.equal(d.value.length, expected.length);
          for (const element of d.value) assert.deepEqual(Object.keys(element as object), ['...']);
        } else {
          assert.deepEqual(d.value, expected, `disclosure of ${d.key}`);
        }
      }
      const elements = disclosures.filter((d) => d.key === undefined).map((d) => JSON.stringify(d.value));
      const expectedElements = ARRAY_CLAIMS.flatMap((c) => (SUBJECT[c] as unknown[]).map((v) => JSON.stringify(v)));
      assert.deepEqual(elements.sort(), expectedElements.sort());

      // The type metadata at the vct URL, as the verifier loaded it.
      const metadata = verified.typeMetadata?.mergedTypeMetadata;
      assert.equal(metadata?.vct, vct);
      assert.equal(metadata?.name, TYPE_NAME);

      assert.ok(idx < (await statusList(uri, key)).list.statusList.length, 'idx lies inside the list');
      return { idx, uri, salts: disclosures.map((d) => d.salt) };
    }

    interface Collected {
      offer: CredentialOfferObject;
      metadata: IssuerMetadataResult;
      proofs: string[];
      nonces: string[];
      credentials: string[];
      responseKeys: string[];
      cacheControl: string | null;
    }

    /**
     * The wallet's whole flow for one offer: resolve it, discover the issuer, redeem the code, get
     * nonce(s), sign one proof per key and collect. `shape` picks the 1.0 `proofs` or the older `proof`.
     */
    async function collect(
      offerUri: string,
      keys: HolderKey[],
      opts: { txCode?: string; shape?: 'proofs' | 'proof'; noncePerProof?: boolean } = {},
    ): Promise<Collected> {
      const wallet = newWallet(railFetch);
      for (const key of keys) wallet.hold(key);
      const offerObject = await wallet.client.resolveCredentialOffer(offerUri);
      const metadata = await wallet.client.resolveIssuerMetadata(offerObject.credential_issuer);
      const { accessTokenResponse } = await wallet.client.retrievePreAuthorizedCodeAccessTokenFromOffer({
        credentialOffer: offerObject,
        issuerMetadata: metadata,
        ...(opts.txCode ? { txCode: opts.txCode } : {}),
      });
      assert.equal(accessTokenResponse.token_type, 'Bearer');
      const configurationId = offerObject.credential_configuration_ids[0];
      assert.equal(configurationId, TYPE_ID);
      // A wallet asks the nonce endpoint once per credential request (as Credo does) ...
      const shared = opts.noncePerProof ? undefined : (await wallet.client.requestNonce({ issuerMetadata: metadata })).c_nonce;
      const proofs: string[] = [];
      const nonces: string[] = [];
      for (const key of keys) {
        // ... or, with noncePerProof, once per proof.
        const nonce = shared ?? (await wallet.client.requestNonce({ issuerMetadata: metadata })).c_nonce;
        const { jwt } = await wallet.client.createCredentialRequestJwtProof({
          issuerMetadata: metadata,
          credentialConfigurationId: configurationId,
          nonce,
          signer: { method: 'jwk', alg: 'ES256', publicJwk: publicOnly(key.publicJwk) },
        });
        proofs.push(jwt);
        nonces.push(nonce);
      }
      const [first] = proofs;
      assert.ok(first);
      const { credentialResponse, response } = await wallet.client.retrieveCredentials({
        issuerMetadata: metadata,
        accessToken: accessTokenResponse.access_token,
        credentialConfigurationId: configurationId,
        // oid4vc-ts 0.4.6 still sends the pre-1.0 singular `proof` when given one.
        ...(opts.shape === 'proof' ? { proof: { proof_type: 'jwt', jwt: first } } : { proofs: { jwt: proofs } }),
      });
      const credentials = (credentialResponse.credentials ?? []).map((c) =>
        typeof c === 'object' && c !== null && 'credential' in c ? c.credential : c,
      );
      for (const c of credentials) assert.equal(typeof c, 'string', 'dc+sd-jwt credentials are compact strings');
      return {
        offer: offerObject,
        metadata,
        proofs,
        nonces,
        credentials: credentials as string[],
        responseKeys: Object.keys(credentialResponse),
        cacheControl: response.headers.get('cache-control'),
      };
    }

    before(async () => {
      db = await factory.create();
      rail = await startRail(db);
      origin = await listenOnLoopback(rail);

      const tenant = await api('/api/tenants', { name: TENANT_NAME });
      assert.equal(tenant.status, 201, JSON.stringify(tenant.json));
      slug = String(tenant.json.slug);
      assert.equal(slug, 'flanders-transit-interop');
      issuer = `${PUBLIC_URL}/t/${slug}`;
      did = `did:web:rail.example.test:t:${slug}`;
      assert.equal(tenant.json.did, did);

      const type = await api('/api/types', { tenant: slug, name: TYPE_NAME, claims: PASS_CLAIMS });
      assert.equal(type.status, 201, JSON.stringify(type.json));
      assert.equal(type.json.typeId, TYPE_ID);
      vct = `${issuer}/types/${TYPE_ID}`;
      assert.equal(type.json.vct, vct);

      didDocument = (await getJson(`${issuer}/did.json`)) as unknown as DidDocument;
      assert.equal(didDocument.id, did);
      const anchor = await railFetch(`${PUBLIC_URL}/.well-known/openrail-ca.pem`);
      assert.equal(anchor.status, 200);
      assert.equal(anchor.headers.get('content-type'), 'application/pem-certificate-chain');
      anchorPem = await anchor.text();
    });

    after(async () => {
      await rail?.stop();
      await db?.drop();
    });

    test('the type metadata at the vct URL names the type and every claim', async () => {
      const metadata = await getJson(vct);
      assert.equal(metadata.vct, vct);
      assert.equal(metadata.name, TYPE_NAME);
      assert.deepEqual(metadata.display, [{ locale: 'en', name: TYPE_NAME }]);
      const paths = (metadata.claims as Array<{ path: unknown[]; sd: string }>).map((c) => JSON.stringify(c.path));
      const expected = Object.keys(SUBJECT).flatMap((k) =>
        ARRAY_CLAIMS.includes(k) ? [JSON.stringify([k]), JSON.stringify([k, null])] : [JSON.stringify([k])],
      );
      assert.deepEqual(paths.sort(), expected.sort());
      for (const c of metadata.claims as Array<{ sd: string }>) assert.equal(c.sd, 'always');
    });

    test('an offer by value: discovery at the 1.0 locations, proofs.jwt, a verified credential with status 0', async () => {
      const created = await offer();
      assert.match(created.offerUri, /^openid-credential-offer:\/\/\?credential_offer=/);
      const holder = await newHolderKey();
      requests = [];
      credentialRequests = [];
      const got = await collect(created.offerUri, [holder]);

      assert.equal(got.offer.credential_issuer, issuer);
      assert.deepEqual(got.offer.credential_configuration_ids, [TYPE_ID]);
      assert.equal(typeof got.offer.grants?.[PRE_AUTH]?.['pre-authorized_code'], 'string');
      assert.equal(got.offer.grants?.[PRE_AUTH]?.tx_code, undefined);
      // oid4vc-ts reads the issuer as OpenID4VCI 1.0 and understands the configuration.
      assert.equal(got.metadata.originalDraftVersion, Openid4vciVersion.V1);
      assert.equal(got.metadata.knownCredentialConfigurations[TYPE_ID]?.format, 'dc+sd-jwt');
      assert.equal((got.metadata.knownCredentialConfigurations[TYPE_ID] as { vct?: string }).vct, vct);
      assert.deepEqual(
        got.metadata.authorizationServers.map((s) => s.token_endpoint),
        [`${issuer}/token`],
      );
      assert.deepEqual(requests, [
        `GET ${PUBLIC_URL}/.well-known/openid-credential-issuer/t/${slug}`,
        `GET ${PUBLIC_URL}/.well-known/oauth-authorization-server/t/${slug}`,
        `POST ${issuer}/token`,
        `POST ${issuer}/nonce`,
        `POST ${issuer}/credential`,
      ]);

      // What the library put in the proof is what OID4VCI 1.0 Appendix F.1 asks for.
      const [proof] = got.proofs;
      assert.ok(proof);
      assert.deepEqual(credentialRequests, [{ credential_configuration_id: TYPE_ID, proofs: { jwt: [proof] } }]);
      assert.deepEqual(decodeProtectedHeader(proof), {
        alg: 'ES256',
        typ: 'openid4vci-proof+jwt',
        jwk: publicOnly(holder.publicJwk),
      });
      const proofClaims = decodeJwt(proof);
      assert.equal(proofClaims.aud, issuer);
      assert.equal(proofClaims.nonce, got.nonces[0]);
      assert.equal(proofClaims.iss, undefined, 'anonymous pre-authorized access: no iss');

      assert.deepEqual(got.responseKeys, ['credentials'], 'a 1.0 credential response has no other member');
      assert.equal(got.cacheControl, 'no-store');
      assert.equal(got.credentials.length, 1);
      const [credential] = got.credentials;
      assert.ok(credential);
      const { idx, uri } = await checkCredential(credential, holder.publicJwk);
      const key = keyOf(decodeProtectedHeader(credential.slice(0, credential.indexOf('~'))).kid);
      assert.equal((await statusList(uri, key)).list.getStatus(idx), 0);
    });

    test('an offer by reference with the older singular proof', async () => {
      const created = await offer({ byReference: true });
      const reference = new URL(created.offerUri).searchParams.get('credential_offer_uri');
      // docs/offers.md: credential_offer_uri=<issuer>/credential-offer/<handle>
      assert.match(String(reference), new RegExp(`^${issuer}/credential-offer/[A-Za-z0-9_-]{43}$`));
      const holder = await newHolderKey();
      requests = [];
      credentialRequests = [];
      const got = await collect(created.offerUri, [holder], { shape: 'proof' });
      assert.deepEqual(credentialRequests, [
        { credential_configuration_id: TYPE_ID, proof: { proof_type: 'jwt', jwt: got.proofs[0] } },
      ]);
      assert.equal(requests[0], `GET ${reference}`, 'the wallet fetched the offer at credential_offer_uri');
      assert.equal(got.offer.credential_issuer, issuer);
      assert.deepEqual(got.offer.credential_configuration_ids, [TYPE_ID]);
      assert.equal(got.credentials.length, 1);
      const [credential] = got.credentials;
      assert.ok(credential);
      await checkCredential(credential, holder.publicJwk);

      // Redeemed: the reference no longer resolves.
      await assert.rejects(newWallet(railFetch).client.resolveCredentialOffer(created.offerUri), /status '404'/);
    });

    test('an offer with a transaction code: the wrong code is invalid_grant, the right one issues', async () => {
      const created = await offer({ txCode: true });
      assert.match(String(created.txCode), /^[0-9]{6}$/);
      const wallet = newWallet(railFetch);
      const offerObject = await wallet.client.resolveCredentialOffer(created.offerUri);
      assert.deepEqual(offerObject.grants?.[PRE_AUTH]?.tx_code, { input_mode: 'numeric', length: 6 });
      const metadata = await wallet.client.resolveIssuerMetadata(offerObject.credential_issuer);
      const wrong = String((Number(created.txCode) + 1) % 1_000_000).padStart(6, '0');
      await assert.rejects(
        wallet.client.retrievePreAuthorizedCodeAccessTokenFromOffer({
          credentialOffer: offerObject,
          issuerMetadata: metadata,
          txCode: wrong,
        }),
        (err: { errorResponse?: { error?: string } }) => err.errorResponse?.error === 'invalid_grant',
      );

      const holder = await newHolderKey();
      const got = await collect(created.offerUri, [holder], { txCode: String(created.txCode) });
      assert.equal(got.credentials.length, 1);
      const [credential] = got.credentials;
      assert.ok(credential);
      await checkCredential(credential, holder.publicJwk);
    });

    async function checkBatch(got: Collected, keys: HolderKey[]) {
      assert.equal(got.credentials.length, 3, 'one credential per proof');
      const refs: Array<{ idx: number; uri: string; salts: string[] }> = [];
      const bound: string[] = [];
      for (const credential of got.credentials) {
        const cnf = decodeJwt(credential.slice(0, credential.indexOf('~'))).cnf as { jwk: JWK };
        const holder = keys.find((k) => k.publicJwk.x === cnf.jwk.x);
        assert.ok(holder, 'each credential is bound to one of the proof keys');
        bound.push(String(cnf.jwk.x));
        refs.push(await checkCredential(credential, holder.publicJwk));
      }
      assert.deepEqual(bound.sort(), keys.map((k) => String(k.publicJwk.x)).sort(), 'three distinct cnf keys');
      assert.equal(new Set(refs.map((r) => `${r.uri}#${r.idx}`)).size, 3, 'three distinct status references');
      const salts = refs.flatMap((r) => r.salts);
      assert.equal(new Set(salts).size, salts.length, 'no disclosure salt is reused across the batch');
    }

    // Credo (OpenId4VciHolderService) and the OIDF conformance suite (VCIGenerateJwtProof, used by
    // oid4vci-1_0-issuer-batch-issuance) both sign every proof of a batch with the one c_nonce they hold.
    test('a batch of 3 proofs sharing the c_nonce of one nonce request (how Credo sends a batch)', async () => {
      const created = await offer();
      const keys = [await newHolderKey(), await newHolderKey(), await newHolderKey()];
      const got = await collect(created.offerUri, keys);
      assert.equal(new Set(got.nonces).size, 1);
      await checkBatch(got, keys);
    });

    test('a batch of 3 proofs, each with its own c_nonce', async () => {
      const created = await offer();
      const keys = [await newHolderKey(), await newHolderKey(), await newHolderKey()];
      const got = await collect(created.offerUri, keys, { noncePerProof: true });
      assert.equal(new Set(got.nonces).size, 3);
      await checkBatch(got, keys);
    });

    test('revocation sets the bit of that credential only', async () => {
      const holders = [await newHolderKey(), await newHolderKey()];
      const issued: Array<{ credential: string; idx: number; uri: string }> = [];
      for (const holder of holders) {
        const got = await collect((await offer()).offerUri, [holder]);
        const [credential] = got.credentials;
        assert.ok(credential);
        issued.push({ credential, ...(await checkCredential(credential, holder.publicJwk)) });
      }
      const [revoked, kept] = issued;
      assert.ok(revoked && kept);
      assert.equal(revoked.uri, kept.uri);
      assert.notEqual(revoked.idx, kept.idx);
      const key = keyOf(decodeProtectedHeader(revoked.credential.slice(0, revoked.credential.indexOf('~'))).kid);
      const before = (await statusList(revoked.uri, key)).list;
      assert.equal(before.getStatus(revoked.idx), 0);
      assert.equal(before.getStatus(kept.idx), 0);

      const res = await api('/api/revoke', { tenant: slug, status: { uri: revoked.uri, idx: revoked.idx } });
      assert.equal(res.status, 200, JSON.stringify(res.json));
      const rows = res.json.revoked as Array<{ typeId: string; status: { uri: string; idx: number } }>;
      assert.equal(rows.length, 1);
      assert.equal(rows[0]?.typeId, TYPE_ID);
      assert.deepEqual(rows[0]?.status, { uri: revoked.uri, idx: revoked.idx });

      const afterRevocation = (await statusList(revoked.uri, key)).list;
      assert.equal(afterRevocation.getStatus(revoked.idx), 1);
      assert.equal(afterRevocation.getStatus(kept.idx), 0);
      // A relying party verifying with sd-jwt-vc now refuses the revoked one and accepts the other.
      await assert.rejects(checkCredential(revoked.credential, holders[0]?.publicJwk ?? {}), /Status is not valid/);
      await checkCredential(kept.credential, holders[1]?.publicJwk ?? {});
    });
  });
}
