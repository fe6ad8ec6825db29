import { createHmac } from 'node:crypto';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import type { Ids } from '../../core/ids.ts';
import type { Random } from '../../core/random.ts';
import { constantTimeEqual } from '../../core/secrets.ts';
import type { Mailer } from '../../ports/mailer.ts';
import type { OnboardingStore } from '../../ports/onboarding-store.ts';

/** A code lives this long, and takes this many tries. */
export const CODE_TTL_MS = 10 * 60 * 1000;
export const MAX_ATTEMPTS = 5;

/** The one refusal of a code: wrong, expired, used or out of attempts are not told apart. */
export const invalidCode = () =>
  new ServiceError('invalid_code', 'The code is wrong, expired, used or out of attempts; ask for a new one.');

export interface MailedCodesDeps {
  store: OnboardingStore;
  mailer: Mailer;
  hashKey: Buffer;
  clock: Clock;
  random: Random;
  ids: Ids;
}

/**
 * Six-digit codes sent by mail, proved once (docs/onboarding.md; docs/partners.md, "Sessions").
 * The address is stored only as a keyed hash, the code only as a keyed hash bound to its
 * challenge; a newer code replaces an older one; a code lives ten minutes and takes five tries.
 * Each use names its addresses in its own namespace (`email:…`, `partner:…`).
 */
export class MailedCodes {
  constructor(private readonly deps: MailedCodesDeps) {}

  /** The keyed hash under which an address's challenges are kept. */
  keyOf(namespacedAddress: string): string {
    return createHmac('sha256', this.deps.hashKey).update(namespacedAddress, 'utf8').digest('base64url');
  }

  /**
   * Stores a new challenge (ending the address's earlier ones), then mails its code: stored first,
   * so that a client quick to read its mail finds the code already there. When the mail cannot be
   * sent the request is refused (`mail_unavailable`), the new challenge is taken back, and an
   * earlier code works again. The code goes into the body only: a subject is shown on lock screens and in
   * mail previews, so it is written before there is a code to put in it.
   */
  async send(identifierKey: string, to: string, subject: string, text: (code: string) => string): Promise<void> {
    const now = this.deps.clock.now();
    const id = this.deps.ids.mint('mailedCode');
    const code = String(this.deps.random.int(1_000_000)).padStart(6, '0');
    const challenge = {
      id,
      identifierKey,
      codeHash: this.keyOf(`${id}:${code}`),
      createdAt: now,
      expiresAt: now + CODE_TTL_MS,
      attempts: 0,
      spentAt: null,
    };
    const ended = await this.deps.store.create(challenge);
    try {
      await this.deps.mailer.send({ to, subject, text: text(code) });
    } catch (err) {
      await this.deps.store.undo(challenge, ended);
      throw new ServiceError('mail_unavailable', 'The mail could not be sent; try again later.', { cause: err });
    }
  }

  /**
   * Checks a code against the address's live challenge, counting the attempt first (so parallel
   * guesses cannot exceed the bound); answers the challenge to spend, or refuses `invalid_code`.
   */
  async check(identifierKey: string, code: string): Promise<string> {
    const challenge = await this.deps.store.current(identifierKey);
    if (!challenge || !(await this.deps.store.countAttempt(challenge.id, this.deps.clock.now(), MAX_ATTEMPTS)))
      throw invalidCode();
    if (!constantTimeEqual(this.keyOf(`${challenge.id}:${code}`), challenge.codeHash)) throw invalidCode();
    return challenge.id;
  }

  /** Spends a checked challenge in one conditional write; `invalid_code` when another request spent it first. */
  async spend(challengeId: string): Promise<void> {
    if (!(await this.deps.store.spend(challengeId, this.deps.clock.now()))) throw invalidCode();
  }
}
