/** Single-use marks for holder JWS `jti` values, shared by every process on the database. */
export interface HolderReplayStore {
  /**
   * Records (accountId, jti) with one atomic insert. True the first time; false on every later
   * attempt, from this process or any other, until the mark expires.
   */
  burn(accountId: string, jti: string, expiresAt: number, now: number): Promise<boolean>;
  /** Deletes marks whose freshness window has passed; returns how many. */
  prune(now: number): Promise<number>;
}
