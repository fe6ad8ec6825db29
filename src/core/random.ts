/**
 * Randomness is passed in, as time is (docs/architecture.md, "Identifiers"): the kernel gives the
 * CSPRNG (adapters/crypto/random-pool.ts, `Context.random`); a test may give its own.
 */
export interface Random {
  /** `n` random bytes, to be used or copied before the next call (they may be a pool's slice). */
  bytes(n: number): Uint8Array;
  /** `n` random bytes as base64url: bearer secrets, handles, salts of identifiers. */
  text(n: number): string;
  /** A uniform integer in [0, `below`). */
  int(below: number): number;
  /** A uniform number in [0, 1): jitter. */
  fraction(): number;
}
