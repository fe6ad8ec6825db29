import type { Clock } from '../../core/clock.ts';
import { normaliseContact } from '../../core/directory-entry.ts';
import { ServiceError } from '../../core/errors.ts';
import type { Ids } from '../../core/ids.ts';
import { ATTESTATION_TYP, attestationClaims, identifierHash } from '../../core/ownership-attestation.ts';
import type { AnonymousGate } from '../../http/auth/anonymous-gate.ts';
import type { HolderJwsAuthenticator, HolderPrincipal } from '../../http/auth/holder-jws.ts';
import type { KeyStore } from '../../ports/key-store.ts';
import { CODE_TTL_MS, type MailedCodes } from './mailed-codes.ts';

export interface OnboardingDeps {
  codes: MailedCodes;
  budgets: AnonymousGate;
  keys: KeyStore;
  holders: HolderJwsAuthenticator;
  platform: { did: string; name: string; origin: string };
  clock: Clock;
  ids: Ids;
}

/**
 * Identifier ownership (docs/onboarding.md): a six-digit code mailed to an address, proved
 * together with a holder key, answered with an attestation signed by the platform DID binding the
 * address's hash to that key. Addresses and codes are stored only as keyed hashes.
 */
export class OnboardingService {
  constructor(private readonly deps: OnboardingDeps) {}

  /** The same answer whether or not the address was seen before; the mail is the only difference. */
  async start(identifier: string, address: string) {
    const normalised = normaliseContact('email', identifier);
    const identifierKey = this.deps.codes.keyOf(`email:${normalised}`);
    // Per address, per identifier (known or not) and for the deployment (docs/security.md).
    const limits = await this.deps.budgets.spend('onboard-start', address, identifierKey);
    await this.deps.codes.send(identifierKey, normalised, `Your ${this.deps.platform.name} code`, (code) =>
      [
        `Your code is ${code}.`,
        '',
        `Enter it in your wallet to prove this address is yours. It works once, for ${CODE_TTL_MS / 60_000} minutes.`,
        `If you did not ask for it, ignore this mail: nothing happens without the code.`,
        '',
        `${this.deps.platform.name} (${this.deps.platform.origin})`,
      ].join('\n'),
    );
    return { body: { sent: true as const, expiresIn: CODE_TTL_MS / 1000 }, headers: limits };
  }

  /**
   * Proves the code together with a holder proof (a holder JWS whose aud is this operation's
   * URL); answers the attestation. The proof is checked before the code and its jti spent only
   * when the code holds and the attestation is signed, so a wrong code wastes an attempt and
   * nothing else.
   */
  async verify(input: { identifier: string; code: string; proof: string }, address: string) {
    const normalised = normaliseContact('email', input.identifier);
    const audience = `${this.deps.platform.origin}/onboard/verify`;
    const url = audience;
    let holder: HolderPrincipal;
    try {
      holder = await this.deps.holders.authenticate({ authorization: `Holder ${input.proof}`, method: 'POST', url }, audience);
    } catch (err) {
      throw new ServiceError('invalid_proof', `The holder proof is refused: ${err instanceof Error ? err.message : 'invalid'}.`);
    }
    const challenge = await this.deps.codes.check(this.deps.codes.keyOf(`email:${normalised}`), input.code);
    // Signed before the proof's jti and the code are spent: a key that cannot sign just now (503)
    // leaves both to be used again.
    const now = this.deps.clock.now();
    const signer = await this.deps.keys.signer('root', 'issuer');
    const claims = attestationClaims({
      issuer: this.deps.platform.did,
      accountId: holder.accountId,
      normalised,
      nowS: Math.floor(now / 1000),
      jti: this.deps.ids.mint('attestation'),
    });
    const attestation = await signer.sign({ typ: ATTESTATION_TYP, kid: `${this.deps.platform.did}#${signer.kid}` }, claims);
    try {
      await this.deps.holders.admit(holder, { address });
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'rate_limited') throw err;
      throw new ServiceError('invalid_proof', 'The holder proof was used before.');
    }
    await this.deps.codes.spend(challenge);
    return {
      attestation,
      accountId: holder.accountId,
      identifierHash: identifierHash(normalised),
      expiresAt: new Date(claims.exp * 1000).toISOString(),
    };
  }
}
