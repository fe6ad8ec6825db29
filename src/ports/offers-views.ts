import type { CountWindow } from './day-counts.ts';
import type { SourcePage } from './timeline-page.ts';
import type { Counted, FunnelRow, Overdue, TypeCount, TypeRef } from './view-records.ts';

/** An offer without its subject: what was offered, and when it moved. */
export interface OfferRow {
  id: string;
  tenant: string;
  typeId: string;
  createdAt: number;
  expiresAt: number;
  redeemedAt: number | null;
  collectedAt: number | null;
}

/** Offers created on one UTC day for one tenant and type, and how many of them were redeemed and collected since. */
export interface OfferDayCount {
  day: number;
  tenant: string;
  typeId: string;
  created: number;
  redeemed: number;
  collected: number;
}

/**
 * What the offers module publishes of its offers (docs/architecture.md, "Tables, owners and
 * views"): never the subject, whose claim values wait there until collected. Every `tenant`
 * narrows to one tenant; null reads every tenant.
 *
 * @tenantOwned
 */
export interface OffersViews {
  offer(id: string, tenant: string | null): Promise<OfferRow | undefined>;
  /** The offers of `ids` for a timeline, in (createdAt, id) order. */
  offersIn(ids: readonly string[], tenant: string | null, page: SourcePage): Promise<OfferRow[]>;
  /** Offers created per UTC day, tenant and type, in the window. */
  offersPerDay(window: CountWindow): Promise<OfferDayCount[]>;
  /** Offers whose code expires in [from, to), neither redeemed nor collected, subject held: how many, and the `top` soonest. */
  expiringUnused(tenant: string | null, from: number, to: number, top: number): Promise<Counted<OfferRow>>;
  /** Uncollected offers expiring in [from, to), per tenant and type, soonest first, at most `limit` groups. */
  expiring(tenant: string | null, from: number, to: number, limit: number): Promise<TypeCount[]>;
  /** Offers still holding a subject past its erase time `before` (the erasure job's), oldest first, at most `limit`. */
  unerasedSubjects(tenant: string | null, before: number, limit: number): Promise<Overdue[]>;
  /**
   * Offers created since `since`, per tenant and type: how many, how many were redeemed for a
   * token and how many collected (at most `limit` groups, the busiest first).
   */
  funnel(tenant: string | null, since: number, limit: number): Promise<FunnelRow[]>;
  /** Per type of `types` that made any: how many offers it made. */
  countsByType(types: readonly TypeRef[]): Promise<Array<TypeRef & { offers: number }>>;
}
