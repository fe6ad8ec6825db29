import type { TenantStatus } from './tenant-store.ts';
/**
 * What the tenants module's table publishes to other modules (docs/architecture.md, "Tables,
 * owners and views"): reads only. These are the platform's reads, over every tenant.
 */
export interface TenantsViews {
  /** Every tenant's slug and names, in the table's order. */
  names(): Promise<TenantNames[]>;
  /** The slugs that start with `prefix`, in order. */
  slugsStartingWith(prefix: string): Promise<string[]>;
  /** The tenant's status as it is now (one row, read per request by the operator plane); undefined when there is none. */
  status(slug: string): Promise<TenantStatus | undefined>;
}

export interface TenantNames {
  slug: string;
  name: string;
  displayName: string | null;
}
