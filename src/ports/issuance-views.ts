import type { PageWindow } from '../core/page.ts';
import type { CountWindow, DayCount } from './day-counts.ts';
import type { IssuedCredentialRecord } from './issued-credential-store.ts';
import type { SourcePage } from './timeline-page.ts';
import type { TenantCount, TypeCount, TypeRef } from './view-records.ts';

/** An issued-credential record: the ids, the status entry and the times; never a claim value. */
export interface CredentialRow extends Omit<IssuedCredentialRecord, 'holderThumbprint'> {
  /** The holder account (key thumbprint); null once the holder erased its account. */
  accountId: string | null;
}

/** A page of credentials, newest first (by issue time, then id). */
export interface CredentialFilter {
  tenant: string | null;
  typeId?: string;
  status?: 'valid' | 'revoked';
  since?: number;
  until?: number;
  /** The last row answered: (issuedAt, id), newest first. */
  after?: [number, string];
  limit: number;
}

/** Whose credentials: a holder account's, one credential by id, or those collected on an offer. */
export type CredentialsOf = { holder: string } | { id: string } | { offerId: string };

/**
 * What the issuance module publishes of the credentials it issued (`issued_credentials`,
 * docs/architecture.md, "Tables, owners and views"): records, never a claim value. Every `tenant`
 * narrows to one tenant; null reads every tenant.
 *
 * @tenantOwned
 */
export interface IssuanceViews {
  credential(id: string, tenant: string | null): Promise<CredentialRow | undefined>;
  credentials(filter: CredentialFilter): Promise<CredentialRow[]>;
  /**
   * A subject's credentials for its timeline, in (issuedAt, id) order, or with `by` `revoked` its
   * revoked ones in (revokedAt, id) order.
   */
  credentialsOf(of: CredentialsOf, tenant: string | null, by: 'issued' | 'revoked', page: SourcePage): Promise<CredentialRow[]>;
  /** Which of `ids` are credentials of the tenant. */
  knownCredentials(tenant: string, ids: readonly string[]): Promise<string[]>;
  /** The ids of the type's credentials still valid, in id order, at most `limit`. */
  validOfType(tenant: string, typeId: string, limit: number): Promise<string[]>;
  /** Credentials issued per UTC day, tenant and type, in the window. */
  issuedPerDay(window: CountWindow): Promise<DayCount[]>;
  /** Per period, in order: the credentials its tenant issued in [from, to) (to null: up to now). */
  issuedIn(periods: readonly IssuePeriod[]): Promise<number[]>;
  /** Per period, in order: of those, the ones neither revoked nor expired at `now`. */
  outstandingIn(periods: readonly IssuePeriod[], now: number): Promise<number[]>;
  /** Status lists, of one tenant or all, by tenant and number; `revoked` is the count of revoked entries. */
  statusLists(tenant: string | null, page: PageWindow<readonly [string, number]>): Promise<StatusListRow[]>;
  /** Unrevoked credentials expiring in [from, to), per tenant and type, soonest first, at most `limit` groups. */
  expiring(tenant: string | null, from: number, to: number, limit: number): Promise<TypeCount[]>;
  /**
   * The credentials issued in [since, until) of the tenants and types named and, where `signedIn`
   * is given, in one of its periods by the period's tenant; per tenant (in order), with how many
   * are revoked and how many holders they have.
   */
  touched(scope: IssuedScope): Promise<TouchedTenant[]>;
  /** Credentials at status index `ref.idx` (of list `ref.listSeq`, or any list), by (tenant, listSeq), at most `cap`. */
  byStatus(ref: StatusRef, tenant: string | null, cap: number): Promise<CredentialRow[]>;
  /** Credentials whose id starts with `prefix` (case-sensitive), by id, at most `cap`. */
  byIdPrefix(prefix: string, tenant: string | null, cap: number): Promise<CredentialRow[]>;
  /** Per type of `types` that issued any: its credentials and, of those, the revoked ones. */
  countsByType(types: readonly TypeRef[]): Promise<Array<TypeRef & { issued: number; revoked: number }>>;
  /** The account's credentials per tenant, by tenant: issued and, of those, revoked. */
  countsOfHolder(accountId: string, tenant: string | null): Promise<Array<{ tenant: string; issued: number; revoked: number }>>;
  /** A status list's size and revision (raised by every revocation on it): one row, read on every fetch of its token. */
  statusList(tenant: string, seq: number): Promise<{ size: number; revision: number } | undefined>;
  /** The revoked indices of a status list. */
  revokedIndices(tenant: string, seq: number): Promise<number[]>;
  /** How many credentials each of `tenants` has issued, revoked ones included (a tenant with none is absent). */
  issuedPerTenant(tenants: readonly string[]): Promise<TenantCount[]>;
}

/** A span of a tenant's issuance: from inclusive, to exclusive (null: open). */
export interface IssuePeriod {
  tenant: string;
  from: number;
  to: number | null;
}

export interface IssuedScope {
  since: number;
  until: number;
  tenants?: readonly string[] | undefined;
  types?: readonly { tenant: string; typeId: string }[] | undefined;
  /** Where given, only credentials issued in one of these periods (an empty list: none). */
  signedIn?: readonly IssuePeriod[] | undefined;
}

/** What a scope touches of one tenant's credentials. */
export interface TouchedTenant {
  tenant: string;
  credentials: number;
  revoked: number;
  accounts: number;
}

export interface StatusListRow {
  tenant: string;
  seq: number;
  size: number;
  capacity: number;
  allocated: number;
  revoked: number;
  revision: number;
  createdAt: number;
}

/** A status index as a caller reads it: the list's sequence number (any list when absent) and the index. */
export interface StatusRef {
  listSeq?: number;
  idx: number;
}
