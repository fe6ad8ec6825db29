import type { OperatorStatus } from './operator-store.ts';
import type { TenantStatusName } from './tenant-store.ts';

/**
 * What the back office keeps about organisations beside the tenants rows (docs/backoffice/orgs.md):
 * their counts and admins, the history of their status, their custom domain, and what is being
 * wound down. The tenants rows themselves (record, profile, status) are the TenantStore's alone.
 */

export interface OrgCounts {
  /** Credential types registered. */
  types: number;
  /** Credentials issued (revoked ones included). */
  credentials: number;
  /** Members of its programme that are not erased. */
  members: number;
}

export interface OrgAdmin {
  username: string;
  status: OperatorStatus;
}

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

/** One line of the offboarding view: a suspended tenant, or a suspended or removed operator. */
export interface OffboardingRow {
  kind: 'tenant' | 'operator';
  /** The tenant's slug, or the operator's username. */
  id: string;
  status: 'suspended' | 'removed';
  /** The tenant of an operator (null: platform-wide); the tenant itself for a tenant. */
  tenant: string | null;
  since: number;
  /** A tenant's suspension reason; null for an operator. */
  reason: string | null;
}

export interface OffboardingFilter {
  kind?: 'tenant' | 'operator';
  tenant: string | null;
  since?: number;
  until?: number;
  /** The last row of the previous page: [since, kind, id], in the list's order (since, kind, id descending). */
  after?: readonly [number, string, string];
  limit: number;
}

/** @tenantOwned */
export interface OrgStore {
  counts(slugs: readonly string[]): Promise<Map<string, OrgCounts>>;
  /** Operators scoped to each tenant that hold the tenant-admin role, removed ones left out; by username. */
  admins(slugs: readonly string[]): Promise<Map<string, OrgAdmin[]>>;
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

  /** Newest change first (since, kind, id descending); at most `limit` rows. */
  offboarding(filter: OffboardingFilter): Promise<OffboardingRow[]>;
}
