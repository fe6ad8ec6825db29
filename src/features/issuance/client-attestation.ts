/**
 * Attestation-based client authentication (draft-ietf-oauth-attestation-based-client-auth-07, which
 * OID4VCI 1.0 Appendix E and HAIP 1.0 rely on), at PAR and at the token endpoint (docs/haip.md,
 * "Wallet attestation trust"). The wallet attestation is verified by @openid4vc/oauth2; its proof
 * of possession by the draft's own rules (§5.2): `typ` oauth-client-attestation-pop+jwt, signed by
 * the attestation's `cnf` key, with `aud` (this authorization server), `jti` and `iat`. The library
 * also requires `exp` and `iss` in the proof, which the draft does not; `exp` is optional here
 * (freshness is the `iat` window, OauthChecks.checkPopFresh) and refused only when present and
 * past. Every refusal is `invalid_client`.
 */
import type { CallbackContext, JwtHeader, JwtPayload, VerifiedClientAttestationJwt } from '@openid4vc/oauth2';
import { ServiceError } from '../../core/errors.ts';
import { decodeJws } from '../../core/jose/es256.ts';
import { oauth2 } from './oauth-library.ts';

const POP_TYP = 'oauth-client-attestation-pop+jwt';

const refused = (why: string) => new ServiceError('invalid_client', why);

export interface ClientAttestationInput {
  attestationJwt: string | undefined;
  popJwt: string | undefined;
  /** The authorization server's issuer identifier: the proof's `aud` must name it. */
  audience: string;
  /** The client the request names (PAR's `client_id`, or the one the code was pushed by): the attestation's `sub`. */
  clientId: string | undefined;
  now: Date;
  verifyJwt: CallbackContext['verifyJwt'];
}

/** The verified wallet attestation of a request, once its proof of possession holds. */
export async function verifyClientAttestation(o: ClientAttestationInput): Promise<VerifiedClientAttestationJwt> {
  if (o.attestationJwt === undefined || o.popJwt === undefined) {
    throw refused('A wallet attestation is required: send OAuth-Client-Attestation and OAuth-Client-Attestation-PoP.');
  }
  let attestation: VerifiedClientAttestationJwt;
  try {
    attestation = await oauth2().verifyClientAttestationJwt({
      clientAttestationJwt: o.attestationJwt,
      now: o.now,
      callbacks: { verifyJwt: o.verifyJwt },
    });
  } catch (err) {
    if (!libraryRefusal(err)) throw err;
    throw refused('The client attestation is not one a wallet provider this deployment trusts signed, or it has expired.');
  }
  if (o.clientId !== undefined && o.clientId !== attestation.payload.sub) {
    throw refused('The client_id of the request is not the client the wallet attestation names (its sub).');
  }
  await verifyPop(o.popJwt, attestation, o);
  return attestation;
}

/** The proof of possession (§5.2): its form, then its signature by the attested key and its audience. */
async function verifyPop(popJwt: string, attestation: VerifiedClientAttestationJwt, o: ClientAttestationInput): Promise<void> {
  const decoded = decodeJws(popJwt);
  if (!decoded) throw refused('The client attestation proof of possession is not a JWT.');
  const header = decoded.header as JwtHeader;
  const payload = decoded.payload as JwtPayload;
  if (header.typ !== POP_TYP) throw refused(`The client attestation proof of possession must have typ ${POP_TYP}.`);
  const aud = payload.aud;
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  if (audiences.length === 0 || !audiences.every((a) => typeof a === 'string')) {
    throw refused('The client attestation proof of possession must name this authorization server in aud.');
  }
  if (typeof payload.jti !== 'string' || payload.jti.length === 0) {
    throw refused('The client attestation proof of possession must carry a jti.');
  }
  if (typeof payload.iat !== 'number') throw refused('The client attestation proof of possession must carry an iat.');
  const nowS = Math.floor(o.now.getTime() / 1000);
  // Optional in the draft; when present it must be a time, and not past.
  if (payload.exp !== undefined && (typeof payload.exp !== 'number' || payload.exp <= nowS)) {
    throw refused('The client attestation proof of possession has expired (its exp is past).');
  }
  // Not asked by the draft since -05; earlier drafts required it to be the client, and so do we when it is sent.
  if (payload.iss !== undefined && payload.iss !== attestation.payload.sub) {
    throw refused('The client attestation proof of possession names another client in iss than its attestation’s sub.');
  }
  try {
    await oauth2().verifyJwt({
      signer: { method: 'jwk', alg: header.alg, publicJwk: attestation.payload.cnf.jwk },
      header,
      payload,
      compact: popJwt,
      now: o.now,
      expectedAudience: o.audience,
      verifyJwtCallback: o.verifyJwt,
      errorMessage: 'client attestation pop jwt verification failed',
    });
  } catch (err) {
    if (!libraryRefusal(err)) throw err;
    throw refused(
      'The client attestation proof of possession is not signed by the attested key, or is not for this authorization server (aud), or not yet valid (nbf).',
    );
  }
}

/** An error the library raises on what the caller sent (as opposed to a fault of ours). */
const libraryRefusal = (err: unknown) =>
  err instanceof oauth2().Oauth2Error || (err instanceof Error && err.constructor.name === 'ValidationError');
