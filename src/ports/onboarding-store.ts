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
  /** Creates the challenge and ends the identifier's earlier unspent ones, all or nothing: a newer code replaces an older one. */
  create(challenge: ChallengeRecord): Promise<void>;
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
