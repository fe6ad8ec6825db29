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
  /**
   * The trust anchors relying parties configure, as PEM certificates: the one in force first, then
   * a root announced to take over, then replaced roots whose key certificates may still be
   * presented (docs/keys.md, "Replacing the platform root"). Read it each time: it changes.
   */
  readonly anchorPem: string;
  /**
   * The key identifier of the certificate that signs key certificates now, base64url: every new
   * key certificate's authority key identifier.
   */
  readonly authorityKeyId: string;
  /**
   * The authority key identifiers a credential of this deployment may carry: the one in force first,
   * then those of the other published anchors. What a DCQL `trusted_authorities` entry of type
   * `aki` names.
   */
  readonly authorityKeyIds: readonly string[];
  /** When the certificate that signs key certificates now ends (ms since the epoch): no key certificate outlives it. */
  readonly notAfter: number;
}

/** How often every process reads the stored roots again, to learn of a replacement another process stored. */
export const ROOTS_REFRESH_MS = 60 * 1000;
/** A replacement takes over no sooner than this after it is stored: every process publishes it first. */
export const ROOT_TAKEOVER_MIN_MS = 3 * ROOTS_REFRESH_MS;

/** A platform root as the operators see it (`GET /ops/health`, docs/keys.md). */
export interface RootState {
  authorityKeyId: string;
  /** in_force: certifies keys now; waiting: takes over at activeFrom; replaced: a successor took over. */
  state: 'in_force' | 'waiting' | 'replaced';
  activeFrom: number;
  notAfter: number;
  /** In `/.well-known/openrail-ca.pem` now. */
  published: boolean;
  /** Its private key was destroyed (a replaced root that certifies no published key). */
  keyDestroyed: boolean;
}

/** A new platform root, made where the deployment keeps keys and certified by itself, not yet stored. */
export interface PreparedRoot {
  certificate: CertificateBase64;
  privateKey: PrivateKeyRef;
}

/**
 * Replacing the platform root (docs/keys.md, "Replacing the platform root"): a new root is made,
 * published beside the one in force, and takes over at a time the operators chose; keys are then
 * certified again by the new root, and the old root's key is destroyed once no published key holds
 * a certificate of it. Its certificate stays published while certificates it issued may still be
 * presented.
 */
export interface RootReplacement {
  /** Refuses (`root_replacement_pending`) when a root already waits to take over. Reads only. */
  check(): Promise<void>;
  /** The new root's key and certificate; nothing is stored. */
  prepare(): Promise<PreparedRoot>;
  /** Destroys a prepared root's key that was never stored (the approval failed). */
  discard(root: PreparedRoot): Promise<void>;
  /**
   * Stores the prepared root to take over at `activeFrom`, in the caller's transaction; refuses
   * (`root_replacement_pending`) when another one is waiting. Answers both roots' key identifiers.
   */
  schedule(root: PreparedRoot, activeFrom: number): Promise<{ authorityKeyId: string; previousAuthorityKeyId: string }>;
  /** Reads the stored roots again: a replacement another process stored becomes known here. */
  refresh(): Promise<void>;
  /** The roots as this process knows them, oldest first. */
  describe(): RootState[];
  /** Whether the key of the root in force is where its row says, asked now; null when the backend cannot be asked. */
  keyInForce(): Promise<boolean | null>;
  /**
   * Destroys the private key of every replaced root that no published key holds a certificate of
   * (`certifies` answers how many do). Answers the key identifiers of the roots retired.
   */
  retireReplaced(certifies: (authorityKeyId: string) => Promise<number>): Promise<string[]>;
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
  /** How many published keys hold a certificate issued by `authority`. */
  certifiedBy(authority: string): Promise<number>;
}

/** A platform root as stored: its certificate and where its key is, until the key is destroyed. */
export interface StoredAuthority {
  /** `platform` for the first root; `root-<n>` for the n-th. */
  id: string;
  certificate: CertificateBase64;
  /** Where the root's private key is (sealed under the master key, or in a token); null once destroyed. */
  privateKey: PrivateKeyRef | null;
  createdAt: number;
  /** When it starts certifying keys. */
  activeFrom: number;
}

export interface CertificateAuthorityStore {
  /** Every root, oldest first. */
  list(): Promise<StoredAuthority[]>;
  /**
   * Stores a root under its id; false when a root of that id is already stored (another process
   * made the first root, or stored the same replacement), and nothing is written then.
   */
  putIfAbsent(authority: StoredAuthority & { privateKey: PrivateKeyRef }): Promise<boolean>;
  /** Clears a root's key reference, its key destroyed; false when it was already cleared. */
  retire(id: string, now: number): Promise<boolean>;
}
