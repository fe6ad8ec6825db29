import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CNonces } from '../../ports/c-nonces.ts';
import { randomText } from './random-pool.ts';

/**
 * Stateless OID4VCI c_nonces: `<random>.<expiry>.<mac>`, the MAC binding the random part and the
 * expiry (unix seconds) to the issuing tenant under a key derived from the master key. Minting
 * writes nothing, so the public nonce endpoint cannot fill the database, and every process on one
 * database (same master key) recognises every other's nonces. Single use is enforced where a
 * nonce is spent: the credential transaction records it (IssuedCredentialStore.collect).
 */
export class NonceMinter implements CNonces {
  constructor(private readonly key: Buffer) {
    if (key.length < 32) throw new Error('the c_nonce key must be at least 32 bytes');
  }

  mint(tenant: string, expiresAtMs: number): string {
    const random = randomText(16);
    const expiry = Math.floor(expiresAtMs / 1000).toString(36);
    return `${random}.${expiry}.${this.mac(tenant, random, expiry)}`;
  }

  /** The nonce's expiry (ms) when this tenant minted it and it has not expired; else undefined. */
  check(tenant: string, nonce: string, nowMs: number): number | undefined {
    const parts = nonce.split('.');
    if (parts.length !== 3) return undefined;
    const [random, expiry, mac] = parts as [string, string, string];
    // One spelling only: base64url decoding is lenient (padding, stray bits, '+' and '/'), and the
    // spent mark is a hash of the string, so a second spelling would be a second nonce.
    if (!/^[A-Za-z0-9_-]{22}$/.test(random) || !/^[1-9a-z][0-9a-z]{0,9}$/.test(expiry) || !/^[A-Za-z0-9_-]{43}$/.test(mac)) {
      return undefined;
    }
    const expected = Buffer.from(this.mac(tenant, random, expiry), 'ascii');
    if (!timingSafeEqual(Buffer.from(mac, 'ascii'), expected)) return undefined;
    const expiresAt = Number.parseInt(expiry, 36) * 1000;
    return expiresAt > nowMs ? expiresAt : undefined;
  }

  private mac(tenant: string, random: string, expiry: string): string {
    return createHmac('sha256', this.key).update(`${tenant}\u0000${random}\u0000${expiry}`).digest('base64url');
  }
}
