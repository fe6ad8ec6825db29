/**
 * The master key's uses (adapters/crypto/key-vault.ts): private keys sealed at rest, and keys
 * derived from it for one purpose each. The master key itself never leaves the vault.
 */
export interface KeyVault {
  /** Seals `plaintext`, bound to `context` (a tenant and key id): a blob copied onto another key fails to open. */
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
  /** A 256-bit key for one purpose, derived from the master key. */
  deriveKey(purpose: string): Buffer;
  /** A value derived from the master key, stored beside the data it protects, so a start with another key is refused. */
  checkValue(): string;
}
