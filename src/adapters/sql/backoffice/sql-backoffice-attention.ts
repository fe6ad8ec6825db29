import { type SelectQueryBuilder, sql } from 'kysely';
import type {
  AttentionViews,
  Counted,
  DeadDelivery,
  OfferRow,
  PartnerInReview,
  PendingProvisioning,
} from '../../../ports/backoffice-views.ts';
import type { Db } from '../connect.ts';
import { inTenant } from '../windowed.ts';
import { num, numOrNull, OFFER_COLUMNS, toOffer } from './sql-backoffice-rows.ts';

/** A count of the rows `base` finds, and the first of them as `rows` orders and bounds them, each viewed. */
async function counted<DB, TB extends keyof DB, B, O, V>(
  base: SelectQueryBuilder<DB, TB, B>,
  rows: (query: SelectQueryBuilder<DB, TB, B>) => Promise<O[]>,
  view: (row: O) => V,
): Promise<Counted<V>> {
  // The selection's type cannot be resolved over a generic table; its one column is `n`.
  const counting = base.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow() as Promise<unknown>;
  const [count, found] = await Promise.all([counting as Promise<{ n: unknown }>, rows(base)]);
  return { count: num(count.n), top: found.map(view) };
}

/**
 * What needs an operator's attention today (docs/backoffice/views.md, "GET /api/admin/today"):
 * each a count and the first few rows. Read-only.
 */
export class SqlAttentionViews implements AttentionViews {
  constructor(private readonly db: Db) {}

  async deadDeliveries(tenant: string | null, top: number): Promise<Counted<DeadDelivery>> {
    const base = this.db.selectFrom('webhook_deliveries').where('state', '=', 'dead').where(inTenant(tenant));
    return counted(
      base,
      (query) =>
        query
          .select(['id', 'webhook_id', 'tenant', 'event_type', 'failures', 'last_status', 'finished_at'])
          .orderBy('finished_at', 'desc')
          .orderBy('seq', 'desc')
          .limit(top)
          .execute(),
      (r) => ({
        deliveryId: r.id,
        webhookId: r.webhook_id,
        tenant: r.tenant,
        eventType: r.event_type,
        failures: num(r.failures),
        lastStatus: numOrNull(r.last_status),
        finishedAt: numOrNull(r.finished_at),
      }),
    );
  }

  /** Provisioning requests are the desk's `token.mint` approvals (docs/integration.md). */
  async pendingProvisioning(tenant: string | null, now: number, top: number): Promise<Counted<PendingProvisioning>> {
    const base = this.db
      .selectFrom('approvals')
      .where('action', '=', 'token.mint')
      .where('state', '=', 'pending')
      .where('expires_at', '>', now)
      .where(inTenant(tenant));
    return counted(
      base,
      (query) =>
        query
          .select(['id', 'tenant', 'params', 'requested_by', 'requested_at', 'expires_at'])
          .orderBy('requested_at')
          .orderBy('id')
          .limit(top)
          .execute(),
      (r) => ({
        requestId: r.id,
        tenant: r.tenant ?? '',
        label: String((JSON.parse(r.params) as { label?: unknown }).label ?? ''),
        requestedBy: r.requested_by,
        createdAt: num(r.requested_at),
        expiresAt: num(r.expires_at),
      }),
    );
  }

  async partnersInReview(stages: readonly string[], top: number): Promise<Counted<PartnerInReview>> {
    const base = this.db.selectFrom('partner_applications').where('stage', 'in', [...stages]);
    return counted(
      base,
      (query) =>
        query.select(['id', 'organisation', 'kind', 'stage', 'stage_at']).orderBy('stage_at').orderBy('id').limit(top).execute(),
      (r) => ({
        applicationId: r.id,
        organisation: r.organisation,
        kind: r.kind,
        stage: r.stage,
        stageAt: num(r.stage_at),
      }),
    );
  }

  async expiringOffers(tenant: string | null, from: number, to: number, top: number): Promise<Counted<OfferRow>> {
    const base = this.db
      .selectFrom('offers')
      .where('expires_at', '>=', from)
      .where('expires_at', '<', to)
      .where('redeemed_at', 'is', null)
      .where('collected_at', 'is', null)
      .where('subject', 'is not', null)
      .where(inTenant(tenant));
    return counted(
      base,
      (query) => query.select(OFFER_COLUMNS).orderBy('expires_at').orderBy('id').limit(top).execute(),
      toOffer,
    );
  }
}
