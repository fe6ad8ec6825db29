import type { JWK } from 'jose';
import type { PrivateKeyRef } from './key-backend.ts';
import type { KeyCertificate } from './key-certifier.ts';

export type KeyPurpose = 'issuer' | 'verifier';

export interface StoredSigningKey {
  tenant: string;
  kid: string;
  purpose: KeyPurpose;
  publicJwk: JWK;
  /** Where the private key is: sealed under the master key, or an object in a PKCS#11 token (ports/key-backend.ts). */
  privateKey: PrivateKeyRef;
  createdAt: number;
  /** The key's certificate chain (docs/haip.md); absent on a key made before certificates, until renewal gives it one. */
  certificate?: KeyCertificate;
}

/**
 * Tenant-owned: every call names the tenant and sees only that tenant's keys.
 * @tenantOwned
 */
export interface SigningKeyStore {
  /** False when the tenant already has an active key for this purpose (nothing is written then). */
  insert(key: StoredSigningKey): Promise<boolean>;
  active(tenant: string, purpose: KeyPurpose): Promise<StoredSigningKey | undefined>;
  /** Keys the tenant's DID document publishes (those not retired: the signing key and the superseded ones). */
  published(tenant: string): Promise<StoredSigningKey[]>;
  /** Marks the signing key `kid` superseded (it stays published); false when it is not the signing key. */
  supersede(tenant: string, kid: string, at: number): Promise<boolean>;
  /** Takes a superseded key out of the DID document; false when `kid` is not a superseded, unretired key of the tenant. */
  retire(tenant: string, kid: string, at: number): Promise<boolean>;
}
