import { calculateJwkThumbprint, compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { publicP256 } from '../../core/did-web.ts';
import { ServiceError } from '../../core/errors.ts';

export const PROOF_TYP = 'openid4vci-proof+jwt';
/** How far a proof's iat may lie in the past, and (clock skew) in the future. */
export const PROOF_MAX_AGE_S = 300;
export const PROOF_MAX_SKEW_S = 60;
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'];

export interface ProvenKey {
  jwk: JWK;
  thumbprint: string;
  nonce: string;
}

const invalid = (why: string) => new ServiceError('invalid_proof', why);

/**
 * A key proof of possession (OID4VCI 1.0 Appendix F.1 and F.4): explicit typ, ES256 only, the
 * holder key as a public `jwk` header (no kid or x5c beside it), a valid signature, `aud` the
 * credential issuer, a fresh `iat` and a `nonce`. Whether the nonce is ours and unused is
 * settled when it is spent, in the same transaction as the credential.
 */
export async function verifyProof(jwt: string, issuer: string, nowMs: number): Promise<ProvenKey> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(jwt);
  } catch {
    throw invalid('The proof is not a compact JWS.');
  }
  if (header.typ !== PROOF_TYP) throw invalid(`The proof header typ must be ${PROOF_TYP}.`);
  if (header.alg !== 'ES256') throw invalid('The proof must be signed with ES256.');
  if (header.kid !== undefined || header.x5c !== undefined) {
    throw invalid('The proof must identify its key by a jwk header only (no kid or x5c).');
  }
  const jwk = header.jwk;
  if (!jwk || typeof jwk !== 'object') throw invalid('The proof header must carry the holder key as jwk.');
  if (PRIVATE_MEMBERS.some((m) => m in jwk)) throw invalid('The proof jwk header must not contain private key material.');
  let publicJwk: JWK;
  try {
    publicJwk = publicP256(jwk);
  } catch {
    throw invalid('The proof jwk must be an EC P-256 public key.');
  }
  let payloadBytes: Uint8Array;
  try {
    const key = await importJWK(publicJwk, 'ES256');
    ({ payload: payloadBytes } = await compactVerify(jwt, key, { algorithms: ['ES256'] }));
  } catch {
    throw invalid('The proof signature does not verify with its jwk.');
  }
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(new TextDecoder().decode(payloadBytes));
  } catch {
    throw invalid('The proof payload is not JSON.');
  }
  const aud = payload.aud;
  if (!(aud === issuer || (Array.isArray(aud) && aud.length === 1 && aud[0] === issuer))) {
    throw invalid(`The proof aud must be the credential issuer ${issuer}.`);
  }
  const iat = payload.iat;
  const now = Math.floor(nowMs / 1000);
  if (typeof iat !== 'number' || iat < now - PROOF_MAX_AGE_S || iat > now + PROOF_MAX_SKEW_S) {
    throw invalid(`The proof iat must be within the last ${PROOF_MAX_AGE_S} seconds.`);
  }
  if (typeof payload.exp === 'number' && payload.exp <= now) throw invalid('The proof has expired.');
  if (typeof payload.nonce !== 'string' || payload.nonce.length === 0) {
    throw invalid('The proof must carry a c_nonce from the nonce endpoint.');
  }
  return { jwk: publicJwk, thumbprint: await calculateJwkThumbprint(publicJwk, 'sha256'), nonce: payload.nonce };
}
