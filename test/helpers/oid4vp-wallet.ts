/**
 * A real wallet for tests, built only from the libraries a wallet would use: oid4vc-ts
 * (@openid4vc/openid4vci to collect a credential, @openid4vc/openid4vp to resolve a request and
 * answer it), dcql to evaluate the DCQL query, and sd-jwt-js (@sd-jwt/sd-jwt-vc) to build the
 * SD-JWT+KB presentation. Crypto is node:crypto (WebCrypto) and jose.
 *
 * Addresses: the rail's public origin (`publicUrl`, by default https://rail.example.test) is mapped
 * by the wallet's fetch to the socket the test listens on (`baseUrl`). did:web always resolves over
 * https, so the https form of the public host is mapped too: a rail whose PUBLIC_URL is a real
 * http://127.0.0.1:<port> has the DID did:web:127.0.0.1%3A<port>, whose document a wallet fetches at
 * https://127.0.0.1:<port>/.well-known/did.json. oid4vc-ts refuses http:// URLs (request_uri,
 * response_uri, credential_issuer, ...) unless its global `allowInsecureUrls` is set; the helper
 * sets it only for the duration of a call whose public origin is http:// (see `withInsecureUrls`).
 */
import 'reflect-metadata'; // before @peculiar/x509
import assert from 'node:assert/strict';
import { createHash, randomBytes, webcrypto, X509Certificate } from 'node:crypto';
import { getGlobalConfig, Openid4vciClient, type Openid4vciClientOptions, setGlobalConfig } from '@openid4vc/openid4vci';
import {
  type Openid4vpAuthorizationRequest,
  Openid4vpClient,
  type ResolvedOpenid4vpAuthorizationRequest,
} from '@openid4vc/openid4vp';
import * as x509 from '@peculiar/x509';
import { digest } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { DcqlQuery } from 'dcql';
import { CompactEncrypt, decodeJwt, decodeProtectedHeader, importJWK, type JWK, jwtVerify, SignJWT } from 'jose';
import type { HolderKey } from './holder.ts';
import { type DeviceKey, mdocPresentationFor } from './mdoc-wallet.ts';
import { PUBLIC_URL } from './rail.ts';
import { dnsNames, keyFromX5c, uriNames } from './x5c.ts';

// 0.4.6 does not export Openid4vpClientOptions.
type VpCallbacks = ConstructorParameters<typeof Openid4vpClient>[0]['callbacks'];
type VciCallbacks = Openid4vciClientOptions['callbacks'];
type VerificationMethod = { id: string; type: string; controller: string; publicKeyJwk: JWK };
type DidDocument = { id: string; verificationMethod?: VerificationMethod[]; authentication?: string[] };

/** The public P-256 key, in the shape both jose and oid4vc-ts (kty required) accept. */
export const publicOnly = (jwk: JWK) => ({ kty: 'EC', crv: 'P-256', x: String(jwk.x), y: String(jwk.y) });

/** Every request the wallet made, as `METHOD <url as the library asked for it>`. */
export type FetchLog = string[];

/**
 * The wallet's fetch: a URL on the public host (either scheme) goes to `baseUrl`; nothing else is
 * reachable (a test wallet has no business anywhere else).
 */
export function walletFetch(baseUrl: string, publicUrl: string = PUBLIC_URL, log: FetchLog = []): typeof fetch {
  const pub = new URL(publicUrl);
  const base = baseUrl.replace(/\/$/, '');
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    log.push(`${method.toUpperCase()} ${url.href}`);
    if (url.host !== pub.host || (url.protocol !== 'https:' && url.protocol !== pub.protocol)) {
      return Promise.reject(new Error(`the test wallet only talks to ${publicUrl}, not ${url.href}`));
    }
    const target = `${base}${url.pathname}${url.search}`;
    return input instanceof Request ? fetch(new Request(target, input), init) : fetch(target, init);
  };
}

/** oid4vc-ts insists on https URLs unless told otherwise, process-wide; set only around `run`. */
async function withInsecureUrls<T>(publicUrl: string, run: () => Promise<T>): Promise<T> {
  if (new URL(publicUrl).protocol !== 'http:') return run();
  const before = getGlobalConfig();
  setGlobalConfig({ ...before, allowInsecureUrls: true });
  try {
    return await run();
  } finally {
    setGlobalConfig(before);
  }
}

/** did:web resolution (w3c-ccg did-method-web): host (port as %3A), optional path, always https. */
export function didWebUrl(did: string): string {
  const match = /^did:web:([^:#?]+)((?::[^:#?]+)*)$/.exec(did);
  if (!match?.[1]) throw new Error(`not a did:web DID: ${did}`);
  const host = decodeURIComponent(match[1]);
  const path = match[2] ? match[2].slice(1).split(':').map(decodeURIComponent).join('/') : '.well-known';
  return `https://${host}/${path}/did.json`;
}

export async function resolveDidWeb(did: string, railFetch: typeof fetch): Promise<DidDocument> {
  const res = await railFetch(didWebUrl(did), { headers: { accept: 'application/did+json, application/json' } });
  assert.equal(res.status, 200, `GET ${didWebUrl(did)}`);
  const doc = (await res.json()) as DidDocument;
  assert.equal(doc.id, did, 'the DID document is the document of the DID it was resolved for');
  return doc;
}

/** A P1363 ES256 signature by a (possibly non-extractable) WebCrypto key, as sd-jwt-js wants it. */
function es256Signer(key: HolderKey) {
  return async (data: string): Promise<string> => {
    const signature = await webcrypto.subtle.sign(
      { name: 'ECDSA', hash: 'SHA-256' },
      key.privateKey as webcrypto.CryptoKey,
      new TextEncoder().encode(data),
    );
    return Buffer.from(signature).toString('base64url');
  };
}

const hash = (data: Uint8Array, alg: string) => createHash(alg.replace('-', '').toLowerCase()).update(data).digest();

const unsupported = (what: string) => () => {
  throw new Error(`the test wallet does not ${what}`);
};

// ---- Issuance: oid4vc-ts collects a dc+sd-jwt credential --------------------------------------

/**
 * Collects one credential from a pre-authorized offer (no tx_code) with oid4vc-ts, bound to
 * `holderKey`; returns the compact SD-JWT VC.
 */
export async function collectWithWallet(opts: {
  offerUri: string;
  holderKey: HolderKey;
  baseUrl: string;
  publicUrl?: string;
  /** The configuration to collect (an offer of a type in two formats names two); the offer's first by default. */
  configurationId?: string;
}): Promise<string> {
  const publicUrl = opts.publicUrl ?? PUBLIC_URL;
  const railFetch = walletFetch(opts.baseUrl, publicUrl);
  const signJwt: VciCallbacks['signJwt'] = async (signer, { header, payload }) => {
    if (signer.method !== 'jwk' || signer.publicJwk.x !== opts.holderKey.publicJwk.x) {
      throw new Error('the wallet signs proofs with its holder key only');
    }
    const jwt = await new SignJWT(payload as Record<string, unknown>)
      .setProtectedHeader(header as Parameters<SignJWT['setProtectedHeader']>[0])
      .sign(opts.holderKey.privateKey);
    return { jwt, signerJwk: signer.publicJwk };
  };
  const client = new Openid4vciClient({
    callbacks: {
      fetch: railFetch,
      hash,
      generateRandom: (bytes) => randomBytes(bytes),
      signJwt,
      clientAuthentication: () => {},
    },
  });
  return withInsecureUrls(publicUrl, async () => {
    const offer = await client.resolveCredentialOffer(opts.offerUri);
    const metadata = await client.resolveIssuerMetadata(offer.credential_issuer);
    const { accessTokenResponse } = await client.retrievePreAuthorizedCodeAccessTokenFromOffer({
      credentialOffer: offer,
      issuerMetadata: metadata,
    });
    const configurationId = opts.configurationId ?? offer.credential_configuration_ids[0];
    assert.ok(
      configurationId && offer.credential_configuration_ids.includes(configurationId),
      'the offer names the configuration',
    );
    const { c_nonce } = await client.requestNonce({ issuerMetadata: metadata });
    const { jwt } = await client.createCredentialRequestJwtProof({
      issuerMetadata: metadata,
      credentialConfigurationId: configurationId,
      nonce: c_nonce,
      signer: { method: 'jwk', alg: 'ES256', publicJwk: publicOnly(opts.holderKey.publicJwk) },
    });
    const { credentialResponse } = await client.retrieveCredentials({
      issuerMetadata: metadata,
      accessToken: accessTokenResponse.access_token,
      credentialConfigurationId: configurationId,
      proofs: { jwt: [jwt] },
    });
    const [first] = credentialResponse.credentials ?? [];
    const credential = typeof first === 'object' && first !== null && 'credential' in first ? first.credential : first;
    assert.equal(typeof credential, 'string', 'a credential is a string (compact SD-JWT, or base64url IssuerSigned)');
    return credential as string;
  });
}

// ---- Presentation: oid4vc-ts + dcql + sd-jwt-js --------------------------------------------

/** What a negative case changes; everything else is what an honest wallet does. */
export interface WalletOverrides {
  /** KB-JWT nonce instead of the request's nonce. */
  nonce?: string;
  /** KB-JWT aud instead of the request's client_id. */
  aud?: string;
  /** KB-JWT iat (Unix seconds) instead of now. */
  iat?: number;
  /** Signs the KB-JWT with this key instead of the credential's holder key (a stolen credential). */
  kbKey?: HolderKey;
  /** Claims to disclose instead of what the DCQL query selected. */
  disclose?: string[];
  /** Applied to the finished SD-JWT+KB before it goes into vp_token. */
  tamper?: (presentation: string) => string;
  /** direct_post.jwt: the content encryption to use instead of the first the verifier lists. */
  enc?: string;
  /** direct_post.jwt: encrypt to this key (a wrong one) instead of the request's, keeping its kid. */
  encryptTo?: JWK;
  /** Matches the DCQL query as if it named no trusted_authorities (a wallet that does not honour them). */
  ignoreTrustedAuthorities?: boolean;
}

export interface WalletRun {
  /** The response_uri's answer. */
  status: number;
  contentType: string | null;
  /** Parsed JSON when the answer is JSON, else the text. */
  body: unknown;
  /** The verified request object's parameters, as oid4vc-ts resolved them. */
  request: Openid4vpAuthorizationRequest;
  resolved: ResolvedOpenid4vpAuthorizationRequest;
  /** The DCQL credential query id the presentation was given under. */
  queryId: string;
  /** The claim names disclosed. */
  disclosed: string[];
  /** The SD-JWT+KB as sent (after any tamper). */
  presentation: string;
  /** The form fields as oid4vc-ts posted them. */
  form: Record<string, string>;
  /** Every request the wallet made. */
  requests: FetchLog;
  /** Posts the very same authorization response again, through the library. */
  resubmit(): Promise<{ status: number; contentType: string | null; body: unknown }>;
  /** direct_post.jwt: the JWE posted as `response`. */
  responseJwe?: string;
}

async function readAnswer(response: Response) {
  const contentType = response.headers.get('content-type');
  const text = await response.text();
  let body: unknown = text;
  if (contentType?.startsWith('application/json')) body = JSON.parse(text);
  return { status: response.status, contentType, body };
}

/** What the wallet is given: its credential and key, and where the rail answers. */
interface WalletSetup {
  credential: string;
  holderKey: HolderKey;
  baseUrl: string;
  publicUrl?: string;
  overrides?: WalletOverrides;
}

/** The JARM options of an encrypted answer: the test wallet encrypts with ECDH-ES and either GCM, a fresh apu each time. */
const walletJarm = () => ({
  encryption: { nonce: randomBytes(16).toString('base64url') },
  serverMetadata: {
    authorization_signing_alg_values_supported: ['ES256'],
    authorization_encryption_alg_values_supported: ['ECDH-ES'],
    authorization_encryption_enc_values_supported: ['A128GCM', 'A256GCM'],
  },
});

/**
 * The oid4vc-ts client as the test wallet configures it. A request signed by a DID is checked
 * against the DID document (did:web through the rail); one signed with x5c against the
 * platform's trust anchor, which the wallet fetches once as a wallet configured to trust it has
 * it. Responses are encrypted with jose to the verifier's key, its kid in the header.
 */
function walletClient(railFetch: typeof fetch, publicUrl: string, overrides: WalletOverrides): Openid4vpClient {
  let anchorPem: string | undefined;
  const anchor = async () => {
    if (anchorPem === undefined) {
      const res = await railFetch(`${publicUrl}/.well-known/openrail-ca.pem`);
      assert.equal(res.status, 200);
      anchorPem = await res.text();
    }
    return anchorPem;
  };
  const verifyJwt: VpCallbacks['verifyJwt'] = async (signer, jwt) => {
    if (signer.method === 'x5c') {
      try {
        const { key } = keyFromX5c(jwt.compact, await anchor());
        const signerJwk = publicOnly(key.export({ format: 'jwk' }) as JWK);
        await jwtVerify(jwt.compact, key, { algorithms: ['ES256'] });
        return { verified: true, signerJwk };
      } catch {
        return { verified: false };
      }
    }
    if (signer.method !== 'did') return { verified: false };
    const [did] = signer.didUrl.split('#');
    assert.ok(did);
    const doc = await resolveDidWeb(did, railFetch);
    const method = doc.verificationMethod?.find((m) => m.id === signer.didUrl);
    if (!method) return { verified: false };
    const signerJwk = publicOnly(method.publicKeyJwk);
    try {
      await jwtVerify(jwt.compact, await importJWK(signerJwk, 'ES256'), { algorithms: ['ES256'] });
    } catch {
      return { verified: false, signerJwk };
    }
    return { verified: true, signerJwk };
  };
  return new Openid4vpClient({
    callbacks: {
      fetch: railFetch,
      hash,
      verifyJwt,
      signJwt: unsupported('sign JARM responses'),
      // OID4VP 1.0 §8.3: an unsigned JWT encrypted to the verifier's key, its kid in the header.
      encryptJwe: async (encryptor, data) => {
        if (encryptor.method !== 'jwk') throw new Error('the test wallet encrypts to a JWK only');
        const target = overrides.encryptTo ?? encryptor.publicJwk;
        const jwe = await new CompactEncrypt(new TextEncoder().encode(data))
          .setProtectedHeader({
            alg: encryptor.alg,
            enc: overrides.enc ?? encryptor.enc,
            ...(encryptor.publicJwk.kid ? { kid: encryptor.publicJwk.kid } : {}),
            ...(encryptor.apu ? { apu: encryptor.apu } : {}),
            ...(encryptor.apv ? { apv: encryptor.apv } : {}),
          })
          .encrypt(await importJWK(target as JWK, encryptor.alg));
        return { encryptionJwk: encryptor.publicJwk, jwe };
      },
      decryptJwe: unsupported('decrypt request objects'),
      getX509CertificateMetadata: (certificate) => {
        const cert = new X509Certificate(Buffer.from(certificate, 'base64'));
        return { sanDnsNames: dnsNames(cert), sanUriNames: uriNames(cert) };
      },
    },
  });
}

/**
 * The presentation for a resolved request: its DCQL query evaluated against the credential (which
 * must satisfy it), the selected claims disclosed, and a KB-JWT for `aud` with the request's nonce.
 */
async function presentationFor(resolved: ResolvedOpenid4vpAuthorizationRequest, setup: WalletSetup, aud: string) {
  const overrides = setup.overrides ?? {};
  assert.ok(resolved.dcql, 'the request carries a DCQL query');
  // An mdoc asked for (mdoc-wallet.ts): the holder key is then a device key, its private JWK at hand.
  if ((resolved.dcql.query as DcqlQuery.Input).credentials[0]?.format === 'mso_mdoc') {
    const deviceKey = setup.holderKey as DeviceKey;
    assert.ok(deviceKey.privateJwk, 'an mdoc is presented with a device key (newDeviceKey)');
    const channel = aud.startsWith('origin:') ? { origin: aud.slice('origin:'.length) } : {};
    const { nonce, aud: bentAud, kbKey } = overrides;
    const bent = {
      ...(nonce ? { nonce } : {}),
      ...(bentAud ? { aud: bentAud } : {}),
      ...(kbKey ? { kbKey: kbKey as DeviceKey } : {}),
    };
    return mdocPresentationFor(resolved, { credential: setup.credential, deviceKey }, channel, bent);
  }
  const sdJwtVc = new SDJwtVcInstance({
    hasher: digest,
    kbSigner: es256Signer(overrides.kbKey ?? setup.holderKey),
    kbSignAlg: 'ES256',
  });
  const claims = (await sdJwtVc.getClaims(setup.credential)) as Record<string, unknown>;
  const asked = resolved.dcql.query as DcqlQuery.Input;
  const query = DcqlQuery.parse(
    overrides.ignoreTrustedAuthorities
      ? { ...asked, credentials: asked.credentials.map(({ trusted_authorities: _ignored, ...c }) => c) as never }
      : asked,
  );
  DcqlQuery.validate(query);
  const result = DcqlQuery.query(query, [
    {
      credential_format: 'dc+sd-jwt',
      vct: String(claims.vct),
      claims: claims as never,
      cryptographic_holder_binding: true,
      // trusted_authorities (aki): the wallet names the authority of the credential's own x5c.
      ...authorityOf(setup.credential),
    },
  ]);
  assert.ok(result.can_be_satisfied, `the DCQL query matches the credential: ${JSON.stringify(result)}`);
  const [queryId, match] = Object.entries(result.credential_matches)[0] ?? [];
  assert.ok(queryId && match?.success, 'one credential query matched');
  const selected = match.valid_credentials[0].claims.valid_claim_sets[0].output as Record<string, unknown>;
  const disclosed = overrides.disclose ?? Object.keys(selected);

  // SD-JWT+KB (RFC 9901; OID4VP 1.0 Appendix B.3): aud as the channel says, nonce the request's.
  const frame = Object.fromEntries(disclosed.map((c) => [c, true]));
  const request = resolved.authorizationRequestPayload;
  let presentation = await sdJwtVc.present(setup.credential, frame, {
    kb: {
      payload: {
        aud: overrides.aud ?? aud,
        nonce: overrides.nonce ?? request.nonce,
        iat: overrides.iat ?? Math.floor(Date.now() / 1000),
      },
    },
  });
  if (overrides.tamper) presentation = overrides.tamper(presentation);
  return { queryId, disclosed, presentation };
}

/** A holder's credential and its key, as a suite keeps what the holder collected. */
export interface Holding {
  credential: string;
  key: HolderKey;
}

/** presentWithWallet for `holding`: the wallet answers `requestUri`, reaching the rail at `baseUrl`. */
export function presentHolding(
  holding: Holding,
  requestUri: string,
  baseUrl: string,
  overrides?: WalletOverrides,
): Promise<WalletRun> {
  return presentWithWallet({
    requestUri,
    credential: holding.credential,
    holderKey: holding.key,
    baseUrl,
    ...(overrides ? { overrides } : {}),
  });
}

/**
 * The whole wallet flow for an `openid4vp://` request URI: parse it, fetch and verify the signed
 * request object (a did:web signer resolved through the rail, or x5c against the platform's
 * anchor), evaluate its DCQL query against the credential, present the selected claims with a
 * KB-JWT (aud = client_id, nonce = request nonce), and post the response to the response_uri:
 * in the clear (direct_post), or encrypted (direct_post.jwt).
 */
export async function presentWithWallet(opts: WalletSetup & { requestUri: string }): Promise<WalletRun> {
  const publicUrl = opts.publicUrl ?? PUBLIC_URL;
  const requests: FetchLog = [];
  const railFetch = walletFetch(opts.baseUrl, publicUrl, requests);
  const client = walletClient(railFetch, publicUrl, opts.overrides ?? {});

  return withInsecureUrls(publicUrl, async () => {
    const parsed = client.parseOpenid4vpAuthorizationRequest({ authorizationRequest: opts.requestUri });
    assert.equal(parsed.type, 'jar', 'the request is passed by reference (request_uri)');
    const resolved = await client.resolveOpenId4vpAuthorizationRequest({ authorizationRequestPayload: parsed.params });
    const request = resolved.authorizationRequestPayload as Openid4vpAuthorizationRequest;
    const haip = resolved.client.prefix === 'x509_hash';
    assert.equal(resolved.client.prefix, haip ? 'x509_hash' : 'decentralized_identifier');
    assert.equal(resolved.jar?.sendBy, 'reference');
    assert.equal(request.response_mode, haip ? 'direct_post.jwt' : 'direct_post');
    const { queryId, disclosed, presentation } = await presentationFor(resolved, opts, request.client_id);

    const { authorizationResponsePayload, jarm } = await client.createOpenid4vpAuthorizationResponse({
      authorizationRequestPayload: request,
      authorizationResponsePayload: { vp_token: { [queryId]: [presentation] } },
      ...(haip ? { jarm: walletJarm() } : {}),
    });
    // direct_post.jwt posts the JWE alone, as `response`; direct_post the parameters themselves.
    const form = jarm
      ? { response: jarm.responseJwt }
      : Object.fromEntries(
          Object.entries(authorizationResponsePayload).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
        );
    const submit = () =>
      withInsecureUrls(publicUrl, async () => {
        const { response } = await client.submitOpenid4vpAuthorizationResponse({
          authorizationRequestPayload: request,
          authorizationResponsePayload,
          ...(jarm ? { jarm: { responseJwt: jarm.responseJwt } } : {}),
        });
        return readAnswer(response);
      });
    const answer = await submit();
    return {
      ...answer,
      request,
      resolved,
      queryId,
      disclosed,
      presentation,
      form,
      requests,
      resubmit: submit,
      ...(jarm ? { responseJwe: jarm.responseJwt } : {}),
    };
  });
}

/** What a wallet hands back through the Digital Credentials API, and what it made on the way. */
export interface DcApiAnswer {
  /** The DigitalCredential's protocol and data, as the browser gives them to the page. */
  protocol: string;
  data: Record<string, unknown>;
  resolved: ResolvedOpenid4vpAuthorizationRequest;
  presentation: string;
}

/**
 * A wallet answering one request of `navigator.credentials.get({digital: {requests}})` (OID4VP
 * 1.0 Appendix A), as the platform would hand it over with the caller's `origin`: the request
 * resolved by the library (a signed one verified against the anchor, its expected_origins
 * checked), the presentation bound to `origin:<origin>`, and the answer encrypted to the
 * verifier's key (dc_api.jwt), ready for the page to relay.
 */
export async function answerDcApi(
  opts: WalletSetup & { request: { protocol: string; data: Record<string, unknown> }; origin: string },
): Promise<DcApiAnswer> {
  const publicUrl = opts.publicUrl ?? PUBLIC_URL;
  const railFetch = walletFetch(opts.baseUrl, publicUrl);
  const client = walletClient(railFetch, publicUrl, opts.overrides ?? {});
  return withInsecureUrls(publicUrl, async () => {
    const resolved = await client.resolveOpenId4vpAuthorizationRequest({
      authorizationRequestPayload: opts.request.data as never,
      origin: opts.origin,
    });
    const request = resolved.authorizationRequestPayload;
    assert.equal(request.response_mode, 'dc_api.jwt');
    const { queryId, presentation } = await presentationFor(resolved, opts, `origin:${opts.origin}`);
    const { jarm } = await client.createOpenid4vpAuthorizationResponse({
      authorizationRequestPayload: request,
      authorizationResponsePayload: { vp_token: { [queryId]: [presentation] } },
      origin: opts.origin,
      jarm: walletJarm(),
    });
    assert.ok(jarm, 'dc_api.jwt: the answer is encrypted');
    return { protocol: opts.request.protocol, data: { response: jarm.responseJwt }, resolved, presentation };
  });
}

/**
 * The authority a credential is issued under, as DCQL's `trusted_authorities` matching reads it:
 * the authority key identifier of the certificate in its x5c (none without one).
 */
function authorityOf(credential: string): { authority?: { type: 'aki'; values: [string] } } {
  const { x5c } = decodeProtectedHeader(credential.slice(0, credential.indexOf('~')));
  if (!Array.isArray(x5c) || typeof x5c[0] !== 'string') return {};
  // Node's X509Certificate does not expose the extension; @peculiar/x509 reads it, as wallets built on it do.
  const aki = new x509.X509Certificate(Buffer.from(x5c[0], 'base64')).getExtension(x509.AuthorityKeyIdentifierExtension);
  return aki?.keyId ? { authority: { type: 'aki', values: [Buffer.from(aki.keyId, 'hex').toString('base64url')] } } : {};
}

// ---- Pieces for negative cases ----------------------------------------------------------------

/** The [salt, name, value] of each disclosure of a compact SD-JWT(+KB), with its encoded form. */
export function disclosuresOf(sdJwt: string): Array<{ encoded: string; salt: string; name: string; value: unknown }> {
  const [, ...rest] = sdJwt.split('~');
  rest.pop(); // the KB-JWT, or '' after the last '~'
  return rest.map((encoded) => {
    const [salt, name, value] = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as [string, string, unknown];
    return { encoded, salt, name, value };
  });
}

/** A tamper function: the disclosure of `name` replaced by one with the same salt and `value`. */
export const replaceDisclosure =
  (name: string, value: unknown) =>
  (presentation: string): string => {
    const original = disclosuresOf(presentation).find((d) => d.name === name);
    assert.ok(original, `the presentation discloses ${name}`);
    const forged = Buffer.from(JSON.stringify([original.salt, name, value]), 'utf8').toString('base64url');
    return presentation.replace(`~${original.encoded}~`, `~${forged}~`);
  };

/** The issuer-signed payload of a credential (its status reference, cnf, ...), undecoded claims aside. */
export const credentialPayload = (credential: string) => decodeJwt(credential.slice(0, credential.indexOf('~')));

/** The KB-JWT of a presentation: header and payload. */
export function keyBindingOf(presentation: string) {
  const kb = presentation.slice(presentation.lastIndexOf('~') + 1);
  return { header: decodeProtectedHeader(kb), payload: decodeJwt(kb) };
}
