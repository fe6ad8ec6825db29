import { createHash } from 'node:crypto';

/**
 * The signed ownership attestation (docs/onboarding.md): a JWT from the platform DID saying that
 * the holder of key `cnf.jkt` proved, by a mailed code, that it receives mail at the identifier
 * whose SHA-256 is `identifier_hash`. The identifier itself is not in it: a relying party that
 * knows the identifier hashes it and compares.
 */
export const ATTESTATION_TYP = 'svc-ownership+jwt';
/** How long an attestation is valid. */
export const ATTESTATION_LIFETIME_S = 365 * 86_400;

/** SHA-256, base64url, of the normalised identifier's UTF-8 bytes. */
export const identifierHash = (normalised: string): string => createHash('sha256').update(normalised, 'utf8').digest('base64url');

export function attestationClaims(input: { issuer: string; accountId: string; normalised: string; nowS: number; jti: string }) {
  return {
    iss: input.issuer,
    sub: input.accountId,
    iat: input.nowS,
    exp: input.nowS + ATTESTATION_LIFETIME_S,
    jti: input.jti,
    identifier_type: 'email',
    identifier_hash: identifierHash(input.normalised),
    cnf: { jkt: input.accountId },
  };
}
