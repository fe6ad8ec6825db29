import type { JsonWebKey } from 'node:crypto';
import type { CertificateBase64 } from './key-certifier.ts';

/**
 * Trust in X.509 chains that end at a fixed set of anchors (adapters/crypto/x509.ts, ChainVerifier;
 * docs/haip.md): the path validation a feature asks for without holding a certificate library.
 */
export interface CertificateChains {
  /** No anchors: no chain is ever trusted. */
  readonly empty: boolean;
  /** The public key the chain (leaf first) certifies, valid at `now`, or undefined; it never throws on what a caller sent. */
  keyOf(chain: readonly string[], now: Date): Promise<JsonWebKey | undefined>;
}

/** Builds the trust in chains ending at these anchors (a module's wiring gives it). */
export type ChainsOf = (anchors: readonly CertificateBase64[]) => CertificateChains;
