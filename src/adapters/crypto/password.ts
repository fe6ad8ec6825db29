import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { ServiceError } from '../../core/errors.ts';
import type { Passwords } from '../../ports/passwords.ts';

// scrypt N=2^15, r=8, p=1: about 32 MiB and tens of milliseconds per hash.
const N = 32768;
const R = 8;
const P = 1;
const KEYLEN = 32;
const MAXMEM = 64 * 1024 * 1024;

/**
 * Derivations running at once, at most. scrypt runs on libuv's pool of four threads, which the
 * file system, DNS and the rest of node:crypto share: sixteen sign-ins at once would hold all four
 * and make every other request wait behind them (a readiness check took seconds). Two leave the
 * others free.
 */
const MAX_RUNNING = 2;
/** Derivations waiting, at most: beyond, a sign-in is refused at once rather than made late. */
const MAX_WAITING = 16;
let running = 0;
const waiting: Array<() => void> = [];

/** How many derivations run and wait now (the tests watch that no more than MAX_RUNNING run at once). */
export const passwordChecks = () => ({ running, waiting: waiting.length });

/** Runs `work` when a derivation slot is free, or refuses when too many already wait for one. */
async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_RUNNING) {
    if (waiting.length >= MAX_WAITING) {
      throw new ServiceError('rate_limited', 'Too many password checks are waiting; try again in a moment.', {
        headers: { 'retry-after': '1' },
      });
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else {
    running++;
  }
  try {
    return await work();
  } finally {
    // The slot passes to the next waiter as it is, or is freed.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return inTurn(
    () =>
      new Promise((resolve, reject) => {
        scrypt(password.normalize('NFC'), salt, KEYLEN, { N: n, r, p, maxmem: MAXMEM }, (err, key) =>
          err ? reject(err) : resolve(key),
        );
      }),
  );
}

/** `scrypt$N$r$p$salt$hash`, salt and hash base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P);
  return ['scrypt', N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), Number(n), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Verified against when the username is unknown, so both cases take the same time. */
export const DUMMY_PASSWORD_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

/** The Passwords port over scrypt, for a module's wiring. */
export const scryptPasswords: Passwords = { hash: hashPassword, verify: verifyPassword, dummyHash: DUMMY_PASSWORD_HASH };
