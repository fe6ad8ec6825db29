/**
 * The back office's read models (docs/backoffice/views.md): read-only queries over the tables the
 * features already keep, for the session and credentials groups. Nothing here writes, and nothing
 * here reads a claim value: offers' subjects are never selected (they are erased once collected).
 *
 * Every `tenant` parameter narrows to one tenant; null reads every tenant. Times are milliseconds.
 */

import type { CredentialRow } from './issuance-views.ts';
import type { OfferRow } from './offers-views.ts';

export type { CredentialRow, OfferRow };

export interface TenantHit {
  slug: string;
  name: string;
}

export interface TypeHit {
  tenant: string;
  typeId: string;
  name: string;
}

export interface PartnerHit {
  applicationId: string;
  organisation: string;
  kind: string;
  stage: string;
  tenant: string | null;
}

export interface OperatorHit {
  username: string;
  roles: string[];
  tenant: string | null;
  status: string;
}

/** A status index as a caller reads it: the list's sequence number (any list when absent) and the index. */
export interface StatusRef {
  listSeq?: number;
  idx: number;
}

/** One thing a caller can name, found by `lookup`. */
export interface LookupMatch {
  kind: 'holder' | 'credential' | 'offer' | 'deposit' | 'transaction' | 'item';
  id: string;
  tenant: string;
  accountId: string | null;
  typeId: string | null;
  state: string | null;
  at: number | null;
}

/**
 * The timeline's sources, in the order entries of the same millisecond are shown; a source's rank
 * (its index here) is part of the timeline's cursor.
 */
export const TIMELINE_SOURCES = [
  'audit',
  'event',
  'offer',
  'credential',
  'revocation',
  'item',
  'membership',
  'deposit',
  'channel',
] as const;
export type TimelineSource = (typeof TIMELINE_SOURCES)[number];

/** One thing that happened to a subject. `detail` holds identifiers and states only. */
export interface TimelineEntry {
  at: number;
  source: TimelineSource;
  what: string;
  tenant: string | null;
  ref: string;
  actor: string | null;
  detail: Record<string, unknown>;
  /** The entry's order key within its source (an audit seq, or a row id), for the cursor. */
  key: string | number;
}

/** Where a timeline page starts: after this entry, in the order (at, source, id). */
export interface TimelineCursor {
  at: number;
  rank: number;
  id: string | number;
}

export type Subject = { kind: 'account'; accountId: string } | { kind: 'credential'; id: string } | { kind: 'offer'; id: string };

export interface TypeUsage {
  tenant: string;
  typeId: string;
  name: string;
  /** Canonical claim specs, as registered. */
  claims: string[];
  createdAt: number;
  offers: number;
  issued: number;
  revoked: number;
}

export interface HolderSummary {
  accountId: string;
  tenants: string[];
  memberships: number;
  items: number;
}

export interface HolderDetail {
  accountId: string;
  memberships: { tenant: string; tier: string; status: string; joinedAt: number }[];
  items: { tenant: string; kind: string; state: string; count: number }[];
  channels: { tenant: string; state: string; elements: string[]; requestedBy: string; createdAt: number; updatedAt: number }[];
  credentials: { tenant: string; issued: number; revoked: number }[];
  deposits: { tenant: string; count: number }[];
  /** Listed in the holder directory (in the tenant's community, for a tenant-narrowed read). */
  directoryListed: boolean;
}

/**
 * The search box and the exact lookup (docs/backoffice/views.md).
 *
 * @tenantOwned
 */
export interface SearchViews {
  searchTenants(q: string, tenant: string | null, cap: number): Promise<TenantHit[]>;
  searchTypes(q: string, tenant: string | null, cap: number): Promise<TypeHit[]>;
  credentialsByStatus(ref: StatusRef, tenant: string | null, cap: number): Promise<CredentialRow[]>;
  credentialsByIdPrefix(prefix: string, tenant: string | null, cap: number): Promise<CredentialRow[]>;
  /** Account ids known to the service (members, wallet items) starting with `prefix`. */
  holdersByPrefix(prefix: string, tenant: string | null, cap: number): Promise<{ accountId: string; tenant: string }[]>;
  searchPartners(q: string, tenant: string | null, cap: number): Promise<PartnerHit[]>;
  operatorsByPrefix(prefix: string, tenant: string | null, cap: number): Promise<OperatorHit[]>;
  /** Everything an exact identifier names: credential, offer, deposit, transaction, item or account. */
  lookup(q: string, tenant: string | null, cap: number): Promise<LookupMatch[]>;
}

/**
 * Types and holders with their use.
 *
 * @tenantOwned
 */
export interface CatalogueViews {
  typeUsage(
    tenant: string | null,
    window: { since?: number; until?: number },
    after: [string, string] | undefined,
    limit: number,
  ): Promise<TypeUsage[]>;
  oneTypeUsage(tenant: string, typeId: string): Promise<TypeUsage | undefined>;
  /** Types grouped by typeId across tenants: the page's typeIds in order, with every (visible) tenant's use. */
  typesByTypeId(
    tenant: string | null,
    window: { since?: number; until?: number },
    after: string | undefined,
    limit: number,
  ): Promise<{ typeId: string; uses: TypeUsage[] }[]>;
  holders(
    tenant: string | null,
    window: { since?: number; until?: number },
    after: string | undefined,
    limit: number,
  ): Promise<HolderSummary[]>;
  holder(accountId: string, tenant: string | null, now: number): Promise<HolderDetail | undefined>;
}

/** The back office's read models, one per view. */
export interface BackofficeViews {
  search: SearchViews;
  catalogue: CatalogueViews;
}
