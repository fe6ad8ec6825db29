import type { CallbackContext } from '@openid4vc/oauth2';
import type { verifyKeyAttestationJwt } from '@openid4vc/openid4vci';
import type { JWK } from 'jose';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import { decodeJws, p256Thumbprint } from '../../core/jose/es256.ts';
import type { KeyAttestationRequirement } from '../../ports/credential-type-store.ts';
import { oauth2, openid4vci } from './oauth-library.ts';

const invalidProof = (why: string) => new ServiceError('invalid_proof', why);

/**
 * Key attestations (OID4VCI 1.0 Appendix D; docs/haip.md, "Key attestation"): checked by
 * @openid4vc/openid4vci, signed by a wallet provider that `verifyJwt` (the authorization server's
 * check, oauth-checks.ts) trusts only through its x5c chain to a configured anchor.
 */
export class KeyAttestations {
  constructor(
    private readonly verifyJwt: CallbackContext['verifyJwt'],
    private readonly clock: Clock,
  ) {}

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
    const decoded = decodeJws(keyAttestation);
    if (!decoded) throw invalidProof('The key attestation is not a JWT.');
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
      verified = await openid4vci().verifyKeyAttestationJwt({
        keyAttestationJwt: keyAttestation,
        use: o.use,
        expectedNonce: nonce,
        now: new Date(this.clock.now()),
        callbacks: { verifyJwt: this.verifyJwt },
      });
    } catch (err) {
      const libraries = err instanceof oauth2().Oauth2Error || err instanceof openid4vci().Openid4vciError;
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
}
