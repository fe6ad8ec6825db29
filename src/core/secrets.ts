import { createHash, timingSafeEqual } from 'node:crypto';
import type { Random } from './random.ts';

// Digests and comparisons only: no randomness and no I/O, so they sit in the core (docs/architecture.md, "Randomness, I/O and cryptography").

/** A fresh bearer secret: 32 random bytes, base64url, with a prefix naming its plane. */
export function newToken(random: Random, prefix: string): string {
  return `${prefix}_${random.text(32)}`;
}

/** Bearer secrets are stored and looked up only by this hash. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}

/**
 * A secret derived from another for one purpose (`domain`), so that knowing one derived secret,
 * or the stored hash of the original, reveals neither the original nor another purpose's.
 */
export function derivedSecret(domain: string, secret: string): string {
  return createHash('sha256').update(`openrail ${domain}\0${secret}`, 'utf8').digest('base64url');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  // Compare equal-length digests so the length of a secret does not leak through timing.
  return (
    timingSafeEqual(createHash('sha256').update(x).digest(), createHash('sha256').update(y).digest()) && x.length === y.length
  );
}
