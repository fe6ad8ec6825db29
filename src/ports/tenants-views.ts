import type { TenantStatus } from './tenant-store.ts';
import type { TenantWindow, TimeKeyset } from './view-records.ts';
/**
 * What the tenants module's table publishes to other modules (docs/architecture.md, "Tables,
 * owners and views"): reads only. `names` and `slugsStartingWith` are the platform's reads, over
 * every tenant; a `tenant` narrows to that one tenant (null: every tenant).
 *
 * @tenantOwned
 */
export interface TenantsViews {
  /** Every tenant's slug and names, in the table's order. */
  names(): Promise<TenantNames[]>;
  /** The slugs that start with `prefix`, in order. */
  slugsStartingWith(prefix: string): Promise<string[]>;
  /** Tenants whose slug or name contains `q` (any case), by slug, at most `cap`. */
  search(q: string, tenant: string | null, cap: number): Promise<TenantHit[]>;
  /** The slugs after `after`, in order, at most `limit`. */
  slugs(tenant: string | null, after: string | undefined, limit: number): Promise<string[]>;
  /** The tenant's status as it is now (one row, read per request by the operator plane); undefined when there is none. */
  status(slug: string): Promise<TenantStatus | undefined>;
  /** Suspended tenants, by the time of their suspension then slug, descending, at most `limit`. */
  suspended(filter: TenantWindow & { before?: TimeKeyset; limit: number }): Promise<SuspendedTenant[]>;
}

export interface TenantNames {
  slug: string;
  name: string;
  displayName: string | null;
}

export interface TenantHit {
  slug: string;
  name: string;
}

export interface SuspendedTenant {
  slug: string;
  since: number;
  reason: string | null;
}
