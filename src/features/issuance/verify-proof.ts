import type { JWK } from 'jose';
import { ServiceError } from '../../core/errors.ts';
import { describe } from '../../core/jose/es256.ts';
import { isRefusal, type KeyBoundRefusal, verifyKeyBoundJws } from '../../core/jose/key-bound-jws.ts';
import { MAX_KEY_ATTESTATION_LENGTH } from './credential-request.ts';

export const PROOF_TYP = 'openid4vci-proof+jwt';
/** How far a proof's iat may lie in the past, and (clock skew) in the future. */
export const PROOF_MAX_AGE_S = 300;
export const PROOF_MAX_SKEW_S = 60;
/** A c_nonce of ours is about 80 characters; anything much longer is not one. */
const MAX_NONCE_LENGTH = 256;

export interface ProvenKey {
  jwk: JWK;
  thumbprint: string;
  nonce: string;
  /** The proof's `key_attestation` header (OID4VCI 1.0 Appendix D), unchecked: the type decides whether it must be. */
  keyAttestation?: string;
}

const invalid = (why: string) => new ServiceError('invalid_proof', why);

/** Each refusal of the shared verifier in the words of OID4VCI's invalid_proof. */
function refusal(r: KeyBoundRefusal, issuer: string): ServiceError {
  switch (r.reason) {
    case 'malformed':
      return invalid('The proof is not a compact JWS.');
    case 'alg':
      return invalid('The proof must be signed with ES256.');
    case 'typ':
      return invalid(`The proof header typ must be ${PROOF_TYP}.`);
    case 'no_jwk':
      return invalid('The proof header must carry the holder key as jwk.');
    case 'header_member':
      return r.member === 'kid' || r.member === 'x5c'
        ? invalid('The proof must identify its key by a jwk header only (no kid or x5c).')
        : invalid(`The proof header parameter ${describe(r.member)} is not accepted.`);
    case 'private_jwk':
      return invalid('The proof jwk header must not contain private key material.');
    case 'jwk_not_p256':
      return invalid('The proof jwk must be an EC P-256 public key.');
    case 'signature':
      return invalid('The proof signature does not verify with its jwk.');
    case 'payload':
      return invalid('The proof payload is not a JSON object.');
    case 'aud':
      return invalid(`The proof aud must be the credential issuer ${issuer}.`);
    case 'iat':
      return invalid(`The proof iat must be within the last ${PROOF_MAX_AGE_S} seconds.`);
    case 'exp':
      return invalid('The proof has expired.');
    case 'nbf':
      return invalid('The proof is not valid yet (nbf).');
  }
}

/**
 * A key proof of possession (OID4VCI 1.0 Appendix F.1 and F.4), checked by the service's one
 * verifier of key-bound JWSs (core/jose/key-bound-jws.ts) with the proof's rules: its typ, `aud`
 * the credential issuer (alone or as a one-element array), `iat` at most five minutes old and a
 * minute ahead, and a `nonce`. Whether the nonce is ours and unused is settled when it is spent,
 * in the same transaction as the credential.
 */
export function verifyProof(jwt: string, issuer: string, nowMs: number): ProvenKey {
  const rules = {
    typ: PROOF_TYP,
    audience: issuer,
    audienceAsArray: true,
    maxAgeS: PROOF_MAX_AGE_S,
    maxSkewS: PROOF_MAX_SKEW_S,
    optionalHeaderMembers: ['key_attestation'],
  };
  const result = verifyKeyBoundJws(jwt, rules, Math.floor(nowMs / 1000));
  if (isRefusal(result)) throw refusal(result, issuer);
  const nonce = result.payload.nonce;
  if (typeof nonce !== 'string' || nonce.length === 0 || nonce.length > MAX_NONCE_LENGTH) {
    throw invalid('The proof must carry a c_nonce from the nonce endpoint.');
  }
  const keyAttestation = result.extras.key_attestation;
  if (keyAttestation === undefined) return { jwk: result.jwk, thumbprint: result.thumbprint, nonce };
  if (typeof keyAttestation !== 'string' || keyAttestation.length > MAX_KEY_ATTESTATION_LENGTH) {
    throw invalid('The proof header key_attestation must be a key attestation JWT.');
  }
  return { jwk: result.jwk, thumbprint: result.thumbprint, nonce, keyAttestation };
}
