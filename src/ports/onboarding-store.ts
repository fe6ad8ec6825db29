/**
 * Identifier-ownership challenges (docs/onboarding.md). No challenge belongs to a tenant: the
 * identifier is the holder's own, and it is stored only as a keyed hash.
 */
export interface ChallengeRecord {
  id: string;
  identifierKey: string;
  codeHash: string;
  createdAt: number;
  expiresAt: number;
  attempts: number;
  spentAt: number | null;
}

export interface OnboardingStore {
  /**
   * Creates the challenge and ends the identifier's earlier unspent ones, all or nothing: a newer
   * code replaces an older one. Answers the ids of those it ended.
   */
  create(challenge: ChallengeRecord): Promise<string[]>;
  /**
   * Takes back a creation whose code could not be mailed, all or nothing: the challenge is deleted
   * and the ones its creation ended live again (unless something else ended them meanwhile).
   */
  undo(challenge: Pick<ChallengeRecord, 'id' | 'createdAt'>, ended: readonly string[]): Promise<void>;
  /** The identifier's unspent challenge, if any (expired or not). */
  current(identifierKey: string): Promise<ChallengeRecord | undefined>;
  /**
   * Counts an attempt on a live challenge (unspent, unexpired, under `maxAttempts`) in one
   * conditional write; false when there is none to count against.
   */
  countAttempt(id: string, now: number, maxAttempts: number): Promise<boolean>;
  /** Spends a live challenge in one conditional write; false when it was spent or expired meanwhile. */
  spend(id: string, now: number): Promise<boolean>;
  /** Deletes challenges that ended before `before`. */
  prune(before: number): Promise<number>;
}
