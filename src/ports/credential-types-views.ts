import type { TenantCount } from './view-records.ts';

/**
 * What the credential-types module publishes of its types (`credential_types`, docs/architecture.md,
 * "Tables, owners and views"): each type's names and canonical claim specs. Every `tenant` narrows
 * to one tenant; null reads every tenant. Times are milliseconds; a window is `since` inclusive,
 * `until` exclusive, on the type's creation.
 *
 * @tenantOwned
 */
export interface CredentialTypesViews {
  /** Types whose typeId or name contains `q` (any case), by tenant and typeId, at most `cap`. */
  search(q: string, tenant: string | null, cap: number): Promise<TypeHit[]>;
  /** Types created in the window, by (tenant, typeId), after that pair, at most `limit`. */
  types(
    tenant: string | null,
    window: TypeWindow,
    after: readonly [string, string] | undefined,
    limit: number,
  ): Promise<TypeSummary[]>;
  type(tenant: string, typeId: string): Promise<TypeSummary | undefined>;
  /**
   * Types grouped by typeId across tenants: the typeIds (in order, after `after`, at most `limit`)
   * that a type created in the window has, each with those types, by tenant.
   */
  byTypeId(tenant: string | null, window: TypeWindow, after: string | undefined, limit: number): Promise<TypesOfId[]>;
  /** How many types each of `tenants` has registered (a tenant with none is absent). */
  typesPerTenant(tenants: readonly string[]): Promise<TenantCount[]>;
}

export interface TypeWindow {
  since?: number | undefined;
  until?: number | undefined;
}

export interface TypeHit {
  tenant: string;
  typeId: string;
  name: string;
}

export interface TypeSummary extends TypeHit {
  /** Canonical claim specs, as registered. */
  claims: string[];
  /** The formats it is offered in (docs/mdoc.md). */
  formats: string[];
  createdAt: number;
}

export interface TypesOfId {
  typeId: string;
  types: TypeSummary[];
}
