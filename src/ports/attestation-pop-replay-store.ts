/**
 * Single-use marks for the `jti` of wallet attestation proofs of possession (docs/haip.md,
 * "Wallet attestation trust"), per issuer, shared by every process on the database.
 * @tenantOwned
 */
export interface AttestationPopReplayStore {
  /**
   * Records (tenant, jti hash) with one atomic insert. True the first time; false on every later
   * attempt at the same issuer, from this process or any other, until the mark expires.
   */
  burn(tenant: string, jtiHash: string, expiresAt: number, now: number): Promise<boolean>;
  /** Deletes marks whose proofs are past their freshness window; returns how many. */
  prune(now: number): Promise<number>;
}
