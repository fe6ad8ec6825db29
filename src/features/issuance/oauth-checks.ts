/**
 * The checks of the authorization code flow that a kept library already makes (docs/haip.md,
 * "Issuance"): @openid4vc/oauth2 verifies token requests (PKCE, the code), DPoP proofs and wallet
 * attestations; what is ours is which keys it may trust (the verifyJwt callback), the server's
 * DPoP nonces, the attestation's proof of possession by the draft's rules rather than the
 * library's stricter ones (client-attestation.ts), and how refusals read.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  type CallbackContext,
  calculateJwkThumbprint,
  clientAuthenticationNone,
  decodeJwt,
  getGlobalConfig,
  HashAlgorithm,
  type Jwk,
  Oauth2AuthorizationServer,
  Oauth2Error,
  Oauth2ServerErrorResponseError,
  type RequestLike,
  setGlobalConfig,
} from '@openid4vc/oauth2';
import { Openid4vciError, verifyKeyAttestationJwt } from '@openid4vc/openid4vci';
import { compactVerify, importJWK, type JWK } from 'jose';
import type { NonceMinter } from '../../adapters/crypto/c-nonce.ts';
import { ChainVerifier } from '../../adapters/crypto/x509.ts';
import type { Clock } from '../../core/clock.ts';
import { type ErrorCode, ServiceError } from '../../core/errors.ts';
import { p256Thumbprint } from '../../core/jose/es256.ts';
import type { KeyAttestationRequirement } from '../../ports/credential-type-store.ts';
import type { CertificateBase64 } from '../../ports/key-certifier.ts';
import { verifyClientAttestation } from './client-attestation.ts';

/** The one signing algorithm of DPoP proofs, wallet attestations and their proofs (HAIP 1.0: ES256). */
export const DPOP_ALGS = ['ES256'];
/** A DPoP proof, or a wallet attestation's proof of possession, older (or further ahead) than this is refused; server nonces last as long. */
export const PROOF_WINDOW_S = 300;

const hash: CallbackContext['hash'] = (data, alg) => {
  if (alg !== HashAlgorithm.Sha256) throw new Error(`unsupported hash ${alg}`);
  return createHash('sha256').update(data).digest();
};

/** The public members of an EC key, and nothing else of what a header carries. */
const publicEc = (jwk: { kty?: string; crv?: string; x?: string; y?: string }) => ({
  kty: String(jwk.kty),
  crv: String(jwk.crv),
  x: String(jwk.x),
  y: String(jwk.y),
});

/**
 * The JWTs a wallet provider signs, trusted only through their x5c chain to a configured anchor:
 * wallet attestations, and key attestations (OID4VCI 1.0 Appendix D; oid4vc-ts still writes the
 * type of its drafts, without the hyphen).
 */
const PROVIDER_SIGNED = new Set(['oauth-client-attestation+jwt', 'key-attestation+jwt', 'keyattestation+jwt']);

const invalidProof = (why: string) => new ServiceError('invalid_proof', why);

/** RFC 7638 thumbprint of a public JWK. */
export const thumbprintOf = (jwk: Jwk) =>
  calculateJwkThumbprint({ jwk, hashAlgorithm: HashAlgorithm.Sha256, hashCallback: hash });

/**
 * The library's refusal as ours: its RFC 6749 / RFC 9449 code and description. Any other error
 * the library raises on what a caller sent (a schema it does not fit, a JWT it cannot parse) is
 * `fallback`, with a fixed message (the library's would quote the input). Anything else is a
 * fault of ours and goes on as it is.
 */
export function refusalOf(err: unknown, fallback: ErrorCode = 'invalid_request'): ServiceError {
  if (err instanceof ServiceError) return err;
  if (err instanceof Oauth2ServerErrorResponseError) {
    const code = KNOWN_CODES[err.errorResponse.error] ?? fallback;
    return new ServiceError(code, String(err.errorResponse.error_description ?? err.message).slice(0, 500));
  }
  if (err instanceof Oauth2Error || (err instanceof Error && err.constructor.name === 'ValidationError')) {
    return new ServiceError(fallback, 'A JWT or parameter of the request does not have the form the standard gives it.');
  }
  throw err;
}

const KNOWN_CODES: Record<string, ErrorCode> = {
  invalid_client: 'invalid_client',
  invalid_dpop_proof: 'invalid_dpop_proof',
  invalid_grant: 'invalid_grant',
  invalid_request: 'invalid_request',
  use_dpop_nonce: 'use_dpop_nonce',
};

export interface RequestSeen {
  method: string;
  /** The absolute URL as the public sees it (what a DPoP proof's htu names). */
  url: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** A Fetch Headers of a request's headers (a header sent twice is kept joined, as Fetch does). */
export function requestLike(seen: RequestSeen): RequestLike {
  const headers = new Headers();
  for (const [name, value] of Object.entries(seen.headers)) {
    if (value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return { method: seen.method as RequestLike['method'], url: seen.url, headers };
}

export class OauthChecks {
  readonly server: Oauth2AuthorizationServer;
  private readonly chains: ChainVerifier;

  constructor(
    /** The certificates a wallet attestation's x5c chain must end at (OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE). */
    anchors: readonly CertificateBase64[],
    private readonly nonces: NonceMinter,
    private readonly clock: Clock,
    /** PUBLIC_URL is http (development only: production requires https), so audiences are http URLs. */
    insecureIssuer = false,
  ) {
    // The library refuses an http audience unless told otherwise, process-wide; only a development
    // deployment, whose issuer URLs are http, tells it so.
    if (insecureIssuer) setGlobalConfig({ ...getGlobalConfig(), allowInsecureUrls: true });
    this.chains = new ChainVerifier(anchors);
    this.server = new Oauth2AuthorizationServer({
      callbacks: {
        hash,
        verifyJwt: (signer, jwt) => this.verifyJwt(signer, jwt),
        signJwt: () => {
          throw new Error('the authorization server checks; it signs nothing through the library');
        },
        generateRandom: (bytes) => randomBytes(bytes),
        clientAuthentication: clientAuthenticationNone({ clientId: 'openrail' }),
      },
    });
  }

  get now(): Date {
    return new Date(this.clock.now());
  }

  /** Whether wallet attestations can be trusted at all: without anchors, the flow refuses every client. */
  get trustsWallets(): boolean {
    return !this.chains.empty;
  }

  /** A fresh DPoP nonce of this issuer (stateless, like c_nonces, under its own context). */
  dpopNonce(tenant: string): string {
    return this.nonces.mint(`dpop\u0000${tenant}`, this.clock.now() + PROOF_WINDOW_S * 1000);
  }

  /**
   * The nonce a DPoP proof must carry (RFC 9449 §8): the proof's own when this issuer minted it and
   * it is unexpired; otherwise what `refuse` makes of a fresh one.
   */
  private requireDpopNonce(tenant: string, dpopJwt: string, refuse: (nonce: string) => ServiceError): string {
    let nonce: unknown;
    try {
      nonce = decodeJwt({ jwt: dpopJwt }).payload.nonce;
    } catch {
      throw new ServiceError('invalid_dpop_proof', 'The DPoP header is not a JWT.');
    }
    if (typeof nonce === 'string' && this.nonces.check(`dpop\u0000${tenant}`, nonce, this.clock.now()) !== undefined) {
      return nonce;
    }
    throw refuse(this.dpopNonce(tenant));
  }

  /**
   * A wallet attestation names its issuer, the client (`sub`), its end (`exp`) and the instance
   * key (`cnf.jwk`); the library reads a missing one as its own failure, so it is refused here
   * first, as the client's (`invalid_client`).
   */
  checkAttestationShape(attestationJwt: string | undefined): void {
    if (attestationJwt === undefined) return;
    let payload: Record<string, unknown>;
    try {
      payload = decodeJwt({ jwt: attestationJwt }).payload;
    } catch {
      throw new ServiceError('invalid_client', 'The client attestation is not a JWT.');
    }
    const cnf = payload.cnf as { jwk?: unknown } | undefined;
    for (const [claim, ok] of [
      ['iss', typeof payload.iss === 'string'],
      ['sub', typeof payload.sub === 'string'],
      ['exp', typeof payload.exp === 'number'],
      ['cnf.jwk', typeof cnf?.jwk === 'object' && cnf.jwk !== null],
    ] as const) {
      if (!ok) throw new ServiceError('invalid_client', `The client attestation has no ${claim}.`);
    }
  }

  /** A DPoP proof's iat must be within the window (the library checks its exp only). */
  private checkDpopFresh(dpopJwt: string): void {
    this.checkIat(dpopJwt, 'invalid_dpop_proof', 'DPoP proof');
  }

  /** So must a wallet attestation's proof of possession, which need not carry an exp. */
  checkPopFresh(popJwt: string): void {
    this.checkIat(popJwt, 'invalid_client', 'client attestation proof of possession');
  }

  /**
   * The request's wallet attestation and its proof of possession (client-attestation.ts), for the
   * authorization server `audience`, naming `clientId` when the request names one; then the
   * proof's freshness. The verified attestation; every refusal is `invalid_client`.
   */
  async clientAttestation(seen: RequestSeen, audience: string, clientId: string | undefined) {
    const popJwt = single(seen, 'oauth-client-attestation-pop');
    const attestation = await verifyClientAttestation({
      attestationJwt: single(seen, 'oauth-client-attestation'),
      popJwt,
      audience,
      clientId,
      now: this.now,
      verifyJwt: (signer, jwt) => this.verifyJwt(signer, jwt),
    });
    if (popJwt !== undefined) this.checkPopFresh(popJwt);
    return attestation;
  }

  private checkIat(jwt: string, code: ErrorCode, what: string): void {
    let iat: unknown;
    try {
      iat = decodeJwt({ jwt }).payload.iat;
    } catch {
      throw new ServiceError(code, `The ${what} is not a JWT.`);
    }
    const now = Math.floor(this.clock.now() / 1000);
    if (typeof iat !== 'number' || Math.abs(now - iat) > PROOF_WINDOW_S) {
      throw new ServiceError(code, `The ${what}'s iat is missing or not within ${PROOF_WINDOW_S} seconds of now.`);
    }
  }

  /**
   * The DPoP proof of a request (RFC 9449), checked once here for every endpoint: one header, a
   * server nonce where `nonce` (else `use_dpop_nonce` with a fresh one in DPoP-Nonce), an `iat`
   * within the window, and the library's checks (typ, signature by its jwk, method and URL, `ath`
   * over `accessToken`, the key `jkt` when given). The thumbprint of its key, or undefined when
   * there is none and none is `required`. Refusals are `invalid_dpop_proof` or `use_dpop_nonce`.
   */
  async checkDpop(
    tenant: string,
    seen: RequestSeen,
    o: { required: boolean; nonce: boolean; accessToken?: string; jkt?: string | null },
  ): Promise<string | undefined> {
    const dpopJwt = single(seen, 'dpop');
    if (dpopJwt === undefined) {
      if (seen.headers.dpop !== undefined) throw new ServiceError('invalid_dpop_proof', 'Send one DPoP header, not several.');
      if (o.required) throw new ServiceError('invalid_dpop_proof', 'A DPoP proof is required here.');
      return undefined;
    }
    if (o.nonce) {
      this.requireDpopNonce(
        tenant,
        dpopJwt,
        (nonce) =>
          new ServiceError('use_dpop_nonce', 'The DPoP proof must carry the server nonce given in DPoP-Nonce.', {
            headers: { 'dpop-nonce': nonce },
          }),
      );
    }
    this.checkDpopFresh(dpopJwt);
    try {
      const verified = await this.server.verifyDpopJwt({
        dpopJwt,
        request: requestLike(seen),
        allowedSigningAlgs: DPOP_ALGS,
        ...(o.accessToken ? { accessToken: o.accessToken } : {}),
        ...(o.jkt ? { expectedJwkThumbprint: o.jkt } : {}),
        now: this.now,
      });
      return verified.jwkThumbprint;
    } catch (err) {
      throw refusalOf(err, 'invalid_dpop_proof');
    }
  }

  /**
   * RFC 9449 §7: a DPoP-bound access token is accepted only with a proof of its key, for this
   * request, over this token (`ath`), with a server nonce. Refusals are 401 with a DPoP challenge.
   */
  async checkResourceDpop(tenant: string, accessToken: string, jkt: string, seen: RequestSeen): Promise<void> {
    try {
      await this.checkDpop(tenant, seen, { required: true, nonce: true, accessToken, jkt });
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      const error = err.code === 'use_dpop_nonce' ? 'use_dpop_nonce' : 'invalid_dpop_proof';
      throw new ServiceError('unauthorized', err.message, {
        headers: { ...err.headers, 'www-authenticate': `DPoP realm="openrail", error="${error}", algs="ES256"` },
      });
    }
  }

  /**
   * A key proof's key attestation (OID4VCI 1.0 Appendix D), for a type that requires one
   * (docs/haip.md, "Key attestation"): it must hold (`attestedKeys`, with the proof's own c_nonce)
   * and attest the proof's key. Every refusal is `invalid_proof`.
   */
  async checkKeyAttestation(
    proof: { thumbprint: string; nonce: string; keyAttestation?: string },
    required: KeyAttestationRequirement,
  ): Promise<void> {
    if (proof.keyAttestation === undefined) {
      throw invalidProof('This credential type requires a key attestation in each proof’s key_attestation header.');
    }
    const keys = await this.attestedKeys(proof.keyAttestation, required, { use: 'proof_type.jwt', nonce: proof.nonce });
    if (!keys.some((k) => k.thumbprint === proof.thumbprint)) {
      throw invalidProof('The proof is not signed by a key its key attestation attests.');
    }
  }

  /**
   * The public P-256 keys a key attestation attests, once it holds: `typ` key-attestation+jwt,
   * signed with ES256 by a wallet provider through its x5c chain to a configured anchor, unexpired
   * (and with an `exp` in a `jwt` proof), carrying a `nonce` (in a `jwt` proof, that proof's own;
   * the caller checks that an `attestation` proof's is one of this issuer's c_nonces), and naming
   * at least one accepted value for each list `required` gives. In an `attestation` proof every
   * key it attests must be a public P-256 key, since each gets a credential bound to it; in a
   * `jwt` proof only the proof's key matters. Every refusal is `invalid_proof`.
   */
  async attestedKeys(
    keyAttestation: string,
    required: KeyAttestationRequirement,
    o: { use: 'proof_type.jwt'; nonce: string } | { use: 'proof_type.attestation' },
  ): Promise<Array<{ jwk: JWK; thumbprint: string; nonce: string }>> {
    let decoded: { header: Record<string, unknown>; payload: Record<string, unknown> };
    try {
      decoded = decodeJwt({ jwt: keyAttestation });
    } catch {
      throw invalidProof('The key attestation is not a JWT.');
    }
    const { header, payload } = decoded;
    if (header.typ !== 'key-attestation+jwt' && header.typ !== 'keyattestation+jwt') {
      throw invalidProof('The key attestation’s typ must be key-attestation+jwt.');
    }
    const nowS = Math.floor(this.clock.now() / 1000);
    if (o.use === 'proof_type.jwt' || payload.exp !== undefined) {
      if (typeof payload.exp !== 'number' || payload.exp <= nowS)
        throw invalidProof('The key attestation has no exp, or it has expired.');
    }
    const nonce = payload.nonce;
    if (typeof nonce !== 'string' || (o.use === 'proof_type.jwt' && nonce !== o.nonce)) {
      throw invalidProof(
        o.use === 'proof_type.jwt'
          ? 'The key attestation’s nonce must be the c_nonce of its proof.'
          : 'The key attestation must carry a c_nonce from the nonce endpoint.',
      );
    }
    let verified: Awaited<ReturnType<typeof verifyKeyAttestationJwt>>;
    try {
      verified = await verifyKeyAttestationJwt({
        keyAttestationJwt: keyAttestation,
        use: o.use,
        expectedNonce: nonce,
        now: this.now,
        callbacks: { verifyJwt: (signer, jwt) => this.verifyJwt(signer, jwt) },
      });
    } catch (err) {
      const libraries = err instanceof Oauth2Error || err instanceof Openid4vciError;
      if (!libraries && !(err instanceof Error && err.constructor.name === 'ValidationError')) throw err;
      throw invalidProof(
        'The key attestation is not a key-attestation+jwt signed (ES256) by a wallet provider this deployment trusts, through its x5c chain.',
      );
    }
    for (const [claim, accepted] of [
      ['key_storage', required.keyStorage],
      ['user_authentication', required.userAuthentication],
    ] as const) {
      if (accepted === undefined) continue;
      const stated = verified.payload[claim];
      if (!Array.isArray(stated) || !stated.some((v) => accepted.includes(String(v)))) {
        throw invalidProof(
          `The key attestation’s ${claim} names none of the values this credential type accepts: ${accepted.join(', ')}.`,
        );
      }
    }
    const keys: Array<{ jwk: JWK; thumbprint: string; nonce: string }> = [];
    for (const key of verified.payload.attested_keys as Array<Record<string, unknown>>) {
      const { kty, crv, x, y } = key;
      const p256 = kty === 'EC' && crv === 'P-256' && typeof x === 'string' && typeof y === 'string' && key.d === undefined;
      if (!p256) {
        if (o.use === 'proof_type.jwt') continue;
        throw invalidProof('The key attestation attests a key that is not a public P-256 key.');
      }
      const jwk: JWK = { kty, crv, x, y };
      keys.push({ jwk, thumbprint: p256Thumbprint(jwk), nonce });
    }
    if (keys.length === 0) throw invalidProof('The key attestation attests no public P-256 key.');
    return keys;
  }

  /**
   * The library's signature check. A wallet's or key attestation is trusted only through its x5c chain to
   * one of the configured anchors (never by a key it names itself); every other JWT the library
   * checks here (the attestation's proof of possession, a DPoP proof) is signed by the key the
   * library names from what it already verified. ES256 only.
   */
  private async verifyJwt(
    signer: Parameters<CallbackContext['verifyJwt']>[0],
    jwt: Parameters<CallbackContext['verifyJwt']>[1],
  ): Promise<{ verified: true; signerJwk: Jwk } | { verified: false }> {
    if (jwt.header.alg !== 'ES256') return { verified: false };
    let key: { kty?: string; crv?: string; x?: string; y?: string } | undefined;
    if (PROVIDER_SIGNED.has(String(jwt.header.typ))) {
      key = signer.method === 'x5c' ? await this.chains.keyOf(signer.x5c, this.now) : undefined;
    } else if (signer.method === 'jwk') {
      key = signer.publicJwk;
    }
    if (key?.kty !== 'EC' || key.crv !== 'P-256') return { verified: false };
    const publicJwk = publicEc(key);
    try {
      await compactVerify(jwt.compact, await importJWK(publicJwk, 'ES256'), { algorithms: ['ES256'] });
      return { verified: true, signerJwk: publicJwk };
    } catch {
      return { verified: false };
    }
  }
}

/** A header's value when it is sent once; undefined when absent or repeated. */
export function single(seen: RequestSeen, name: string): string | undefined {
  const value = seen.headers[name];
  return typeof value === 'string' ? value : undefined;
}
