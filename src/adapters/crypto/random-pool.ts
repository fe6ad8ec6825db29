import { randomBytes, randomInt } from 'node:crypto';
import type { Random } from '../../core/random.ts';

const POOL_BYTES = 16 * 1024;
let pool = Buffer.alloc(0);
let offset = 0;

/**
 * CSPRNG bytes served from a pool refilled 16 KiB at a time: a credential needs dozens of small
 * salts, and one call per salt cost more than the hashing around it. Each byte is handed out
 * once; callers must use or copy the slice before asking again.
 */
export function pooledRandomBytes(n: number): Uint8Array {
  if (n > POOL_BYTES) return randomBytes(n);
  if (offset + n > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  const out = pool.subarray(offset, offset + n);
  offset += n;
  return out;
}

/** `n` pooled CSPRNG bytes as base64url: identifiers and bearer secrets on the hot paths. */
export function randomText(n: number): string {
  return Buffer.from(pooledRandomBytes(n)).toString('base64url');
}

/** The kernel's randomness (Context.random): the CSPRNG, through the pool. */
export const systemRandom: Random = {
  bytes: pooledRandomBytes,
  text: randomText,
  int: (below) => randomInt(below),
  // 53 random bits, the precision of a double in [0, 1).
  fraction: () => Number(Buffer.from(pooledRandomBytes(8)).readBigUInt64BE() >> 11n) / 2 ** 53,
};
