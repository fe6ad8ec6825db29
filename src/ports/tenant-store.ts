import type { StoredSigningKey } from './signing-key-store.ts';

export interface TenantProfile {
  displayName: string | null;
  description: string | null;
  logoUri: string | null;
  primaryColor: string | null;
  backgroundColor: string | null;
  textColor: string | null;
}

/** A profile with nothing set, as a new tenant has. */
export const emptyProfile = (): TenantProfile => ({
  displayName: null,
  description: null,
  logoUri: null,
  primaryColor: null,
  backgroundColor: null,
  textColor: null,
});

export interface TenantRecord extends TenantProfile {
  slug: string;
  name: string;
  createdAt: number;
  updatedAt: number;
}

export type TenantStatusName = 'active' | 'suspended';

/** Whether a tenant issues (docs/backoffice/orgs.md, "Suspension"), and when and why that last changed. */
export interface TenantStatus {
  status: TenantStatusName;
  /** Null while the status never changed. */
  since: number | null;
  reason: string | null;
}

/**
 * How a tenant's holders may collect through the authorization code flow (docs/haip.md,
 * "Issuance"): whether it is served at all, and the issuer's sign-in hook, where a holder who
 * comes without an offer is sent to be identified (null: only offers start the flow).
 */
export interface AuthorizationFlowSettings {
  haipIssuance: boolean;
  signInUrl: string | null;
}

/**
 * What the issuance endpoints need of the issuer, read with what they look up in the same
 * statement (an offer, an authorization request): its status, and its authorization code flow's
 * settings.
 */
export interface IssuerState extends AuthorizationFlowSettings {
  status: TenantStatusName;
}

/** A tenant as stored: its record, its status and its authorization code flow settings. */
export interface TenantRow extends TenantRecord, AuthorizationFlowSettings {
  status: TenantStatusName;
  statusSince: number | null;
  statusReason: string | null;
}

export interface TenantListFilter {
  /** The tenant shown, or null for every tenant. */
  tenant: string | null;
  status?: TenantStatusName;
  /** A substring of the name or slug, compared without regard to case. */
  q?: string;
  /** createdAt window, milliseconds: since inclusive, until exclusive. */
  since?: number;
  until?: number;
  /** The last row of the previous page: [createdAt, slug]. */
  after?: readonly [number, string];
  limit: number;
}

/**
 * The tenants rows: the one store that reads and writes them (the back office's organisations
 * list and show them through here too).
 *
 * @tenantOwned
 */
export interface TenantStore {
  /**
   * Inserts the tenant and its first signing keys in one transaction; false when the slug is
   * taken (nothing is written then).
   */
  create(tenant: TenantRecord, keys: StoredSigningKey[]): Promise<boolean>;
  get(slug: string): Promise<TenantRow | undefined>;
  /** Oldest first by createdAt, then slug; at most `limit` rows. */
  list(filter: TenantListFilter): Promise<TenantRow[]>;
  /** Applies the given profile fields; undefined when the tenant does not exist. */
  updateProfile(slug: string, patch: Partial<TenantProfile>, now: number): Promise<TenantRecord | undefined>;
  /** Applies the given settings; undefined when the tenant does not exist. */
  setAuthorizationFlow(slug: string, patch: Partial<AuthorizationFlowSettings>, now: number): Promise<TenantRow | undefined>;
  /** Slugs that start with `prefix`, for choosing a free one on collision. */
  slugsStartingWith(prefix: string): Promise<string[]>;
  /** The tenant's status, read from the database on every call (never cached); undefined: no such tenant. */
  status(slug: string): Promise<TenantStatus | undefined>;
  /**
   * Moves the tenant from `from` to `to` by one conditional write; false when it does not exist or
   * is not in `from` (nothing is written then).
   */
  setStatus(slug: string, from: TenantStatusName, to: TenantStatusName, reason: string, now: number): Promise<boolean>;
}
