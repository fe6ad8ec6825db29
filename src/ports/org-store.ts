import type { TenantStatusName } from './tenant-store.ts';

/**
 * What the back office keeps about organisations beside the tenants rows (docs/backoffice/orgs.md):
 * the history of their status and their custom domain. The tenants rows themselves (record,
 * profile, status) are the TenantStore's alone; their counts, admins and what is being wound down
 * are read through their owners' views (features/backoffice/orgs/).
 */

export interface LifecycleChange {
  tenant: string;
  seq: number;
  status: TenantStatusName;
  /** An actor label (core/actor.ts). */
  actor: string;
  reason: string;
  approvalId: string | null;
  at: number;
}

export type DomainState = 'pending' | 'verified' | 'active' | 'revoked';

export interface OrgDomain {
  tenant: string;
  domain: string;
  state: DomainState;
  token: string;
  requestedAt: number;
  verifiedAt: number | null;
  activatedAt: number | null;
  revokedAt: number | null;
  updatedAt: number;
}

/** @tenantOwned */
export interface OrgStore {
  domains(slugs: readonly string[]): Promise<Map<string, OrgDomain>>;

  /** Newest first, at most `limit`. */
  history(slug: string, limit: number): Promise<LifecycleChange[]>;
  /** Appends a change with the tenant's next seq; answers it. */
  appendHistory(change: Omit<LifecycleChange, 'seq'>): Promise<LifecycleChange>;

  domain(slug: string): Promise<OrgDomain | undefined>;
  /** The live (not revoked) domain of another tenant with this name, if any. */
  domainHolder(domain: string, except: string): Promise<string | undefined>;
  /**
   * Records a pending domain in place of the tenant's current one, if that is in one of `from`
   * (null: none). False when it is not (nothing is written then). A name another tenant holds
   * live fails the unique index: the caller checks `domainHolder` first and the index decides a race.
   */
  putPending(domain: OrgDomain, from: readonly (DomainState | null)[]): Promise<boolean>;
  /**
   * Moves the domain from one of `from` to `to`, setting that state's time; false when it is not in
   * `from` or (given `token`) no longer carries that token.
   */
  moveDomain(slug: string, from: readonly DomainState[], to: DomainState, now: number, token?: string): Promise<boolean>;
}
