import type { JWK } from 'jose';
import type { PrivateKeyRef } from './key-backend.ts';
import type { KeyPurpose, StoredSigningKey } from './signing-key-store.ts';

/** A certificate as `x5c` carries it: standard base64 of its DER (RFC 7515 §4.1.6). */
export type CertificateBase64 = string;

/** What a signing key's certificate says, and until when. */
export interface KeyCertificate {
  /** The key's certificate first, then any intermediate certificates; never the trust anchor. */
  chain: CertificateBase64[];
  /** When the key's own certificate stops being valid (ms since the epoch). */
  notAfter: number;
  /** The key identifier of the authority that issued it (base64url): a key certified by another authority is renewed. */
  authority: string;
}

/**
 * The certificate authority that vouches for the service's signing keys (docs/haip.md,
 * docs/decisions/0021-certificates-for-signing-keys.md): the platform's own, or a chain the operator
 * configured. Certifying is cryptography only: it touches no storage, so it is safe inside a
 * transaction. Tenant-owned in what it writes: a certificate names its own tenant, never another.
 * @tenantOwned
 */
export interface KeyCertifier {
  /** A certificate for `publicJwk`, the `purpose` key of the tenant named. */
  certify(tenant: string, purpose: KeyPurpose, publicJwk: JWK): Promise<KeyCertificate>;
  /** The trust anchor relying parties configure, as one PEM certificate. */
  readonly anchorPem: string;
  /**
   * The key identifier of the certificate that signs key certificates, base64url: every key
   * certificate's authority key identifier, and what a DCQL `trusted_authorities` entry of type
   * `aki` names.
   */
  readonly authorityKeyId: string;
  /** When the certificate that signs key certificates ends (ms since the epoch): no key certificate outlives it. */
  readonly notAfter: number;
}

/**
 * The platform job's view of every tenant's keys: which published keys need a certificate (none
 * yet, or one that ends soon), and writing a fresh one.
 */
export interface KeyCertificateRenewals {
  /**
   * Published (unretired) keys whose certificate is missing, ends before `before`, or was issued by
   * an authority other than `authority` (the operator changed it), oldest first.
   */
  due(before: number, authority: string, limit: number): Promise<StoredSigningKey[]>;
  /** Stores `certificate` on the key, unless it was renewed meanwhile (then false, nothing written). */
  renew(key: StoredSigningKey, certificate: KeyCertificate): Promise<boolean>;
}

/** The platform certificate authority's key and certificate, kept in the database (sealed). */
export interface StoredAuthority {
  certificate: CertificateBase64;
  /** Where the authority's private key is: sealed under the master key, or an object in a PKCS#11 token. */
  privateKey: PrivateKeyRef;
  createdAt: number;
}

export interface CertificateAuthorityStore {
  get(): Promise<StoredAuthority | undefined>;
  /** False when an authority is already stored (another process made one first); nothing is written then. */
  putIfAbsent(authority: StoredAuthority): Promise<boolean>;
}
