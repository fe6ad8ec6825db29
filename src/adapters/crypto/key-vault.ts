import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { KeyVault } from '../../ports/key-vault.ts';

/**
 * Seals private keys at rest with AES-256-GCM under the master key. The associated data binds
 * each sealed blob to its tenant and key id, so a row copied onto another key fails to open.
 * Format: `v1.<iv>.<ciphertext>.<tag>`, each part base64url.
 */
export class AesKeyVault implements KeyVault {
  constructor(private readonly masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error('the master key must be 32 bytes');
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.masterKey, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv, ct, cipher.getAuthTag()].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  open(sealed: string, context: string): string {
    const [version, iv, ct, tag] = sealed.split('.');
    if (version !== 'v1' || !iv || !ct || !tag) throw new Error('unrecognised sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.masterKey, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** A 256-bit key for one purpose, derived from the master key with HKDF-SHA256 (RFC 5869). */
  deriveKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.masterKey, Buffer.alloc(0), `openrail:${purpose}`, 32));
  }

  /**
   * A value derived from the master key and stored beside the data it protects, so a start with
   * a different key is refused at boot instead of failing on the first signature.
   */
  checkValue(): string {
    return createHmac('sha256', this.masterKey).update('openrail master key check v1').digest('base64url');
  }
}
