import type { JWK, JWTPayload } from 'jose';
import type { KeyPurpose, StoredSigningKey } from './signing-key-store.ts';

/**
 * How long a process may keep signing with the key it last read as active: a rotation reaches
 * every process within this (the key store's cache of the active key).
 */
export const ACTIVE_KEY_TTL_MS = 30_000;

export interface PublicKey {
  /** RFC 7638 SHA-256 thumbprint of the public key. */
  kid: string;
  purpose: KeyPurpose;
  publicJwk: JWK;
}

/**
 * A handle on one key: signs without touching storage again (safe inside a transaction). Where
 * the key lives in a hardware token the signature is the token's; a token that cannot sign just
 * now makes `sign` refuse with 503 `signing_unavailable`.
 */
export interface JwsSigner extends PublicKey {
  /**
   * The key's certificate chain for the `x5c` header (docs/haip.md): the key's certificate first, no
   * trust anchor. Absent only for a key made before certificates, until renewal certifies it.
   */
  x5c?: readonly string[];
  /** A compact ES256 JWS. The header gets `alg`; the caller supplies `typ`, `kid` and the rest. */
  sign(header: Record<string, unknown>, payload: Record<string, unknown>): Promise<string>;
  /** The ES256 signature (r‖s) of `data`: for a COSE structure (an mdoc's IssuerAuth, docs/mdoc.md). */
  signBytes(data: Uint8Array): Promise<Uint8Array>;
}

/**
 * Signing with tenant keys. Private keys never leave the key store: callers get public keys and
 * signatures only.
 * @tenantOwned
 */
export interface KeyStore {
  /** A fresh key, made where the deployment keeps keys and ready to store, for a tenant being created in one transaction. */
  prepareKey(tenant: string, purpose: KeyPurpose): Promise<StoredSigningKey>;
  /**
   * Deletes what a prepared key holds outside its row (its token objects), for a key that was never
   * stored; a failure is let be (the object signs nothing; docs/keys.md, "Rotation, retirement and objects no key names").
   */
  discard(key: StoredSigningKey): Promise<void>;
  /** The tenant's active key for `purpose`, created if it has none (safe under concurrent calls). */
  ensureKey(tenant: string, purpose: KeyPurpose): Promise<PublicKey>;
  activeKey(tenant: string, purpose: KeyPurpose): Promise<PublicKey | undefined>;
  publishedKeys(tenant: string): Promise<PublicKey[]>;
  /** The tenant's active key for `purpose`, opened for signing. */
  signer(tenant: string, purpose: KeyPurpose): Promise<JwsSigner>;
  /** A compact ES256 JWS. The header gets `alg`; the caller supplies `typ`, `kid` and the rest. */
  signJwt(tenant: string, purpose: KeyPurpose, header: Record<string, unknown>, payload: JWTPayload): Promise<string>;
  /**
   * Replaces the tenant's signing key for `purpose` by a fresh one, in the caller's transaction:
   * the old one is superseded (still published, no longer signing). Answers both kids; refuses
   * (`conflict`) when the key changed meanwhile. `next`: the fresh key, made beforehand by
   * `prepareKey` for this tenant and purpose, so that the transaction does not wait for its
   * generation; made here otherwise.
   */
  rotate(tenant: string, purpose: KeyPurpose, next?: StoredSigningKey): Promise<{ previous: string; current: string }>;
  /** Takes a superseded key out of the tenant's DID document; false when `kid` is not one. */
  retire(tenant: string, kid: string): Promise<boolean>;
}

/**
 * The `x5c` header member of a signer's key (RFC 7515 §4.1.6), beside its `kid`, so relying
 * parties that resolve keys by DID and those that resolve by certificate both find it; nothing for
 * a key not yet certified.
 */
export const x5c = (signer: JwsSigner): { x5c?: string[] } => (signer.x5c ? { x5c: [...signer.x5c] } : {});
