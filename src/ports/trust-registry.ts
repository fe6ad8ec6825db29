import type { PageWindow } from '../core/page.ts';

export type TrustState = 'active' | 'suspended' | 'removed';

/** An issuer the hosted verifier accepts beyond this deployment's tenants (docs/operations.md, "Trust registry"). */
export interface TrustedIssuer {
  did: string;
  label: string;
  /** The DID document as resolved when the issuer was added or last restored. */
  document: Record<string, unknown>;
  state: TrustState;
  addedBy: string;
  addedAt: number;
  changedBy: string;
  changedAt: number;
  reason: string | null;
}

/** The trust registry: the platform's, by design (no tenant owns an entry). */
export interface TrustRegistry {
  /** False when the DID is already in the registry, in any state (nothing is written then). */
  add(entry: TrustedIssuer): Promise<boolean>;
  get(did: string): Promise<TrustedIssuer | undefined>;
  /** By DID; `state` narrows it. */
  list(state: TrustState | undefined, page: PageWindow<readonly [string]>): Promise<TrustedIssuer[]>;
  /**
   * Moves the entry from one of `from` to `to`, with who, when and why (and the document resolved
   * again, on a restore), in one conditional write: false when it is in none of `from`.
   */
  move(
    did: string,
    from: readonly TrustState[],
    change: { to: TrustState; by: string; at: number; reason: string | null; document?: Record<string, unknown> },
  ): Promise<boolean>;
}
