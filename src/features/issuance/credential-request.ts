import { ServiceError } from '../../core/errors.ts';
import { BATCH_SIZE } from './metadata.ts';

export interface CredentialRequest {
  configurationId: string;
  /**
   * `jwt`: proof JWTs, one per credential asked for. `attestation` (OID4VCI 1.0 Appendix F.3): one
   * key attestation, a credential for each key it attests (docs/haip.md, "Key attestation").
   */
  proofs: { type: 'jwt'; jwts: string[] } | { type: 'attestation'; attestation: string };
}

/** A key attestation JWT is a few kilobytes with its certificate chain; anything far longer is not one. */
export const MAX_KEY_ATTESTATION_LENGTH = 32 * 1024;

const bad = (why: string) => new ServiceError('invalid_credential_request', why);

/**
 * The credential request body (OID4VCI 1.0 §8.2), with the interface's older singular `proof`
 * read as a one-element `proofs.jwt` (standards-notes §9). Unknown members are ignored, as §8.2
 * asks.
 */
export function parseCredentialRequest(body: unknown): CredentialRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw bad('The request body must be a JSON object.');
  const b = body as Record<string, unknown>;
  if (b.credential_identifier !== undefined) {
    if (b.credential_configuration_id !== undefined) {
      throw bad('Send credential_identifier or credential_configuration_id, not both.');
    }
    throw new ServiceError('unknown_credential_identifier', 'This issuer issues no credential identifiers.');
  }
  if (typeof b.credential_configuration_id !== 'string' || b.credential_configuration_id === '') {
    throw bad('credential_configuration_id is required.');
  }
  if (b.credential_response_encryption !== undefined) {
    throw new ServiceError('invalid_encryption_parameters', 'This issuer does not encrypt credential responses.');
  }
  return { configurationId: b.credential_configuration_id, proofs: readProofs(b.proof, b.proofs) };
}

function readProofs(proof: unknown, proofs: unknown): CredentialRequest['proofs'] {
  if (proof !== undefined && proofs !== undefined) throw bad('Send proofs or the older proof, not both.');
  if (proof !== undefined) {
    const p = proof as Record<string, unknown> | null;
    if (typeof p !== 'object' || p === null || p.proof_type !== 'jwt' || typeof p.jwt !== 'string') {
      throw new ServiceError('invalid_proof', 'proof must be {"proof_type": "jwt", "jwt": "<proof JWT>"}.');
    }
    return { type: 'jwt', jwts: [p.jwt] };
  }
  if (proofs === undefined)
    throw new ServiceError('invalid_proof', 'A key proof is required: this issuer binds every credential.');
  if (typeof proofs !== 'object' || proofs === null || Array.isArray(proofs)) throw bad('proofs must be an object.');
  const types = Object.keys(proofs);
  if (types.length !== 1) throw bad('proofs must have exactly one proof type.');
  const { jwt: jwts, attestation } = proofs as Record<string, unknown>;
  if (attestation !== undefined) {
    if (
      !Array.isArray(attestation) ||
      attestation.length !== 1 ||
      typeof attestation[0] !== 'string' ||
      attestation[0].length > MAX_KEY_ATTESTATION_LENGTH
    ) {
      throw new ServiceError('invalid_proof', 'proofs.attestation must be an array of exactly one key attestation JWT.');
    }
    return { type: 'attestation', attestation: attestation[0] };
  }
  // (attestation is for the types that require key attestation, whose metadata lists it.)
  if (jwts === undefined) throw new ServiceError('invalid_proof', `Proof type "${types[0]}" is not supported; use jwt.`);
  if (!Array.isArray(jwts) || jwts.length === 0 || jwts.some((j) => typeof j !== 'string')) {
    throw new ServiceError('invalid_proof', 'proofs.jwt must be a non-empty array of proof JWTs.');
  }
  if (jwts.length > BATCH_SIZE) throw bad(`At most ${BATCH_SIZE} proofs fit in one request (batch_size).`);
  return { type: 'jwt', jwts: jwts as string[] };
}
