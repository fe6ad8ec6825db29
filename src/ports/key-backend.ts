import type { JWK } from 'jose';
import type { KeyPurpose } from './signing-key-store.ts';

/** Where the service's private keys live (docs/keys.md): sealed in the database, or in a PKCS#11 token. */
export type KeyBackendKind = 'sealed' | 'pkcs11';

/**
 * How a stored key's private part is found again. `sealed`: the private JWK sealed under the
 * master key, kept in the key's row. `pkcs11`: the token object's label and id (CKA_LABEL, CKA_ID)
 * on the token of that label; the row holds no key material.
 */
export type PrivateKeyRef =
  | { backend: 'sealed'; sealed: string }
  | { backend: 'pkcs11'; token: string; label: string; id: string };

/** Whose key it is, which names it: a tenant's signing key, or the platform certificate authority's. */
export type KeyOwner = { tenant: string; purpose: KeyPurpose } | { authority: 'platform' };

export interface GeneratedKey {
  publicJwk: JWK;
  /** RFC 7638 SHA-256 thumbprint of the public key. */
  kid: string;
  ref: PrivateKeyRef;
}

/** What the backend knows of one stored key's private part, for operators and drills. */
export interface KeyObjectState {
  /** The private part can be used: opened (sealed) or found in the token (pkcs11). */
  present: boolean;
  /** pkcs11: the token object's attributes as the token reports them; absent for a sealed key. */
  token?: { sensitive: boolean; extractable: boolean; neverExtractable: boolean; alwaysSensitive: boolean; local: boolean };
}

/** The backend as health shows it. */
export interface KeyBackendHealth {
  kind: KeyBackendKind;
  /** pkcs11: the token's label; absent for sealed. */
  token?: string;
  /** The backend can sign now (sealed: always). */
  reachable: boolean;
  loggedIn: boolean;
  /** A catalogue-free reason when it cannot sign: the PKCS#11 return value's name, never the PIN. */
  problem?: string;
}

/**
 * Generates P-256 keys and signs with them where the deployment keeps its keys (OPENRAIL_KEYS).
 * Signatures are ES256's: the SHA-256 of `data`, signed, as r||s (IEEE P1363, 64 bytes), which is
 * both what a JWS carries and what WebCrypto (and so an X.509 signature in @peculiar/x509) expects.
 * A backend that cannot sign just now (a token lost, logged out, or missing the object) throws the
 * 503 `signing_unavailable` with Retry-After; everything that does not sign carries on.
 */
export interface KeyBackend {
  readonly kind: KeyBackendKind;
  /** A fresh key for `owner`, made where the backend keeps keys (inside the token: never extractable). */
  generate(owner: KeyOwner): Promise<GeneratedKey>;
  /** The ES256 signature of `data` by the key `kid` of `owner`, found by `ref`. */
  sign(owner: KeyOwner, kid: string, ref: PrivateKeyRef, data: Uint8Array): Promise<Uint8Array>;
  /** Whether the key's private part is there, and (pkcs11) its attributes. */
  inspect(owner: KeyOwner, kid: string, ref: PrivateKeyRef): Promise<KeyObjectState>;
  /** Deletes a token key's objects (pkcs11); false when there were none. A sealed key has nothing outside its row. */
  destroy(ref: PrivateKeyRef): Promise<boolean>;
  health(): Promise<KeyBackendHealth>;
  close(): Promise<void>;
}
