/**
 * The checks of the authorization code flow that a kept library already makes (docs/haip.md,
 * "Issuance"): @openid4vc/oauth2 verifies token requests (PKCE, the code), DPoP proofs and wallet
 * attestations; what is ours is which keys it may trust (the verifyJwt callback), the server's
 * DPoP nonces, the attestation's proof of possession by the draft's rules rather than the
 * library's stricter ones (client-attestation.ts), and how refusals read.
 */
import { createHash } from 'node:crypto';
import type { CallbackContext, Jwk, Oauth2AuthorizationServer } from '@openid4vc/oauth2';
import type { Clock } from '../../core/clock.ts';
import { type ErrorCode, ServiceError } from '../../core/errors.ts';
import { decodeJws, p256Jwk, p256Thumbprint, verifyEs256 } from '../../core/jose/es256.ts';
import type { Random } from '../../core/random.ts';
import { hashToken } from '../../core/secrets.ts';
import type { CNonces } from '../../ports/c-nonces.ts';
import type { CertificateChains } from '../../ports/certificate-chains.ts';
import { verifyClientAttestation } from './client-attestation.ts';
import { KeyAttestations } from './key-attestations.ts';
import { allowHttpAudiences, oauth2 } from './oauth-library.ts';
import { type RequestSeen, refusalOf, requestLike, single } from './oauth-requests.ts';

/** The one signing algorithm of DPoP proofs, wallet attestations and their proofs (HAIP 1.0: ES256). */
export const DPOP_ALGS = ['ES256'];
/** A DPoP proof, or a wallet attestation's proof of possession, older (or further ahead) than this is refused; server nonces last as long. */
export const PROOF_WINDOW_S = 300;

const hash: CallbackContext['hash'] = (data, alg) => {
  if (alg !== oauth2().HashAlgorithm.Sha256) throw new Error(`unsupported hash ${alg}`);
  return createHash('sha256').update(data).digest();
};

/**
 * The JWTs a wallet provider signs, trusted only through their x5c chain to a configured anchor:
 * wallet attestations, and key attestations (OID4VCI 1.0 Appendix D; oid4vc-ts still writes the
 * type of its drafts, without the hyphen).
 */
const PROVIDER_SIGNED = new Set(['oauth-client-attestation+jwt', 'key-attestation+jwt', 'keyattestation+jwt']);

/** Provider-signed JWTs whose signature held, remembered by digest (their chains are not: ChainVerifier keeps those). */
export const VERIFIED_ATTESTATION_LIMIT = 1024;

/**
 * RFC 7638 thumbprint of a verified wallet attestation's instance key (`cnf.jwk`). Its proof of
 * possession was verified with that key, which verifyJwt accepts only as a P-256 public JWK; so the
 * key is one, and its thumbprint is core's (the same digest the library computes, without its schema
 * pass).
 */
export function instanceKeyThumbprint(jwk: unknown): string {
  const key = p256Jwk(jwk);
  if (!key) throw new Error('a verified wallet attestation names a P-256 instance key');
  return p256Thumbprint(key);
}

export class OauthChecks {
  /** The library's authorization server, made (and the library loaded) with the flow's first request. */
  private library: Oauth2AuthorizationServer | undefined;
  /**
   * The digests of provider-signed JWTs (wallet and key attestations) whose signature held, with
   * the key it held for. A wallet sends the same attestation at PAR and at the token endpoint, and
   * for hours: its signature is checked once. The chain giving the key is checked every time
   * (through the chains' own bounded memory), and the library checks `exp` every time, so a
   * remembered signature never outlives the trust in its key. At most VERIFIED_ATTESTATION_LIMIT,
   * all forgotten when full.
   */
  private readonly verifiedAttestations = new Set<string>();
  /** A key proof's key attestation, trusted as a wallet attestation is (key-attestations.ts). */
  readonly keyAttestations: KeyAttestations;
  constructor(
    /** Trust in chains ending at the wallet attestation anchors (OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE). */
    private readonly chains: CertificateChains,
    private readonly nonces: CNonces,
    private readonly clock: Clock,
    private readonly random: Random,
    /** PUBLIC_URL is http (development only: production requires https), so audiences are http URLs. */
    insecureIssuer = false,
  ) {
    if (insecureIssuer) allowHttpAudiences();
    this.keyAttestations = new KeyAttestations((signer, jwt) => this.verifyJwt(signer, jwt), clock);
  }

  get server(): Oauth2AuthorizationServer {
    if (this.library) return this.library;
    const { clientAuthenticationNone, Oauth2AuthorizationServer } = oauth2();
    this.library = new Oauth2AuthorizationServer({
      callbacks: {
        hash,
        verifyJwt: (signer, jwt) => this.verifyJwt(signer, jwt),
        signJwt: () => {
          throw new Error('the authorization server checks; it signs nothing through the library');
        },
        generateRandom: (bytes) => Buffer.from(this.random.bytes(bytes)),
        clientAuthentication: clientAuthenticationNone({ clientId: 'openrail' }),
      },
    });
    return this.library;
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
    const claims = decodeJws(dpopJwt)?.payload;
    if (!claims) throw new ServiceError('invalid_dpop_proof', 'The DPoP header is not a JWT.');
    const nonce = claims.nonce;
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
    const payload = decodeJws(attestationJwt)?.payload;
    if (!payload) throw new ServiceError('invalid_client', 'The client attestation is not a JWT.');
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
    const claims = decodeJws(jwt)?.payload;
    if (!claims) throw new ServiceError(code, `The ${what} is not a JWT.`);
    const iat = claims.iat;
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
    const providerSigned = PROVIDER_SIGNED.has(String(jwt.header.typ));
    let key: unknown;
    if (providerSigned) {
      key = signer.method === 'x5c' ? await this.chains.keyOf(signer.x5c, this.now) : undefined;
    } else if (signer.method === 'jwk') {
      key = signer.publicJwk;
    }
    const publicJwk = p256Jwk(key);
    if (!publicJwk) return { verified: false };
    const digest = providerSigned ? `${publicJwk.x}.${publicJwk.y}.${hashToken(jwt.compact)}` : undefined;
    if (digest === undefined || !this.verifiedAttestations.has(digest)) {
      // The same compact JWS the library decoded, verified synchronously with a kept key object
      // (core/jose/es256.ts): no header it does not understand (crit), ES256 by this key.
      const jws = decodeJws(jwt.compact);
      if (jws?.header.alg !== 'ES256' || !verifyEs256(jws, publicJwk)) return { verified: false };
      if (digest !== undefined) {
        if (this.verifiedAttestations.size >= VERIFIED_ATTESTATION_LIMIT) this.verifiedAttestations.clear();
        this.verifiedAttestations.add(digest);
      }
    }
    return { verified: true, signerJwk: publicJwk as Jwk };
  }
}
