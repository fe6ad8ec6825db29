import type { CountWindow } from '../../../ports/day-counts.ts';
import type { OfferDayCount, OfferRow, OffersViews } from '../../../ports/offers-views.ts';
import type { SourcePage } from '../../../ports/timeline-page.ts';
import type { Counted, FunnelRow, Overdue, TypeCount, TypeRef } from '../../../ports/view-records.ts';
import type { Db } from '../connect.ts';
import { counted } from '../counted.ts';
import { expiringByType } from '../expiring.ts';
import { sourcePage } from '../timeline-page.ts';
import { dayOf, inPairs, inTenant } from '../windowed.ts';

/** Every column but the subject, whose claim values are never read here. */
const COLUMNS = ['id', 'tenant', 'type_id', 'created_at', 'expires_at', 'redeemed_at', 'collected_at'] as const;

const numOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

const toOffer = (r: {
  id: string;
  tenant: string;
  type_id: string;
  created_at: number;
  expires_at: number;
  redeemed_at: number | null;
  collected_at: number | null;
}): OfferRow => ({
  id: r.id,
  tenant: r.tenant,
  typeId: r.type_id,
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
  redeemedAt: numOrNull(r.redeemed_at),
  collectedAt: numOrNull(r.collected_at),
});

/** The offers module's published views of `offers` (ports/offers-views.ts). The subject is never selected. */
export class SqlOffersViews implements OffersViews {
  constructor(private readonly db: Db) {}

  async offer(id: string, tenant: string | null): Promise<OfferRow | undefined> {
    const row = await this.db
      .selectFrom('offers')
      .select(COLUMNS)
      .where('id', '=', id)
      .where(inTenant(tenant))
      .executeTakeFirst();
    return row && toOffer(row);
  }

  async offersIn(ids: readonly string[], tenant: string | null, page: SourcePage): Promise<OfferRow[]> {
    if (ids.length === 0) return [];
    const query = this.db
      .selectFrom('offers')
      .select(COLUMNS)
      .where('id', 'in', [...ids])
      .where(inTenant(tenant));
    return (await sourcePage(query, 'created_at', 'id', page)).map(toOffer);
  }

  async offersPerDay(w: CountWindow): Promise<OfferDayCount[]> {
    const day = dayOf('created_at');
    const rows = await this.db
      .selectFrom('offers')
      .select((eb) => [
        'tenant',
        'type_id',
        day.as('day'),
        eb.fn.countAll().as('created'),
        eb.fn.count('redeemed_at').as('redeemed'),
        eb.fn.count('collected_at').as('collected'),
      ])
      .where('created_at', '>=', w.since)
      .where('created_at', '<', w.until)
      .where(inTenant(w.tenant))
      .$if(w.typeId !== null, (qb) => qb.where('type_id', '=', w.typeId as string))
      .groupBy(['tenant', 'type_id', day])
      .execute();
    return rows.map((r) => ({
      day: Number(r.day),
      tenant: r.tenant,
      typeId: r.type_id,
      created: Number(r.created),
      redeemed: Number(r.redeemed),
      collected: Number(r.collected),
    }));
  }

  async expiringUnused(tenant: string | null, from: number, to: number, top: number): Promise<Counted<OfferRow>> {
    const base = this.db
      .selectFrom('offers')
      .where('expires_at', '>=', from)
      .where('expires_at', '<', to)
      .where('redeemed_at', 'is', null)
      .where('collected_at', 'is', null)
      .where('subject', 'is not', null)
      .where(inTenant(tenant));
    return counted(base, (query) => query.select(COLUMNS).orderBy('expires_at').orderBy('id').limit(top).execute(), toOffer);
  }

  expiring(tenant: string | null, from: number, to: number, limit: number): Promise<TypeCount[]> {
    return expiringByType(this.db, 'offers', 'collected_at', { tenant, from, to, limit });
  }

  async unerasedSubjects(tenant: string | null, before: number, limit: number): Promise<Overdue[]> {
    const rows = await this.db
      .selectFrom('offers')
      .select(['id', 'tenant', 'erase_after'])
      .where('erase_after', '<', before)
      .where('subject', 'is not', null)
      .where(inTenant(tenant))
      .orderBy('erase_after')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.id, tenant: r.tenant, dueAt: Number(r.erase_after) }));
  }

  async funnel(tenant: string | null, since: number, limit: number): Promise<FunnelRow[]> {
    const rows = await this.db
      .selectFrom('offers')
      .select((eb) => [
        'tenant',
        'type_id',
        eb.fn.countAll<number | string>().as('offered'),
        eb.fn.count<number | string>('redeemed_at').as('redeemed'),
        eb.fn.count<number | string>('collected_at').as('collected'),
      ])
      .where('created_at', '>=', since)
      .where(inTenant(tenant))
      .groupBy(['tenant', 'type_id'])
      .orderBy('offered', 'desc')
      .orderBy('tenant')
      .orderBy('type_id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      tenant: r.tenant,
      typeId: r.type_id,
      steps: [Number(r.offered), Number(r.redeemed), Number(r.collected)],
    }));
  }

  async countsByType(types: readonly TypeRef[]): Promise<Array<TypeRef & { offers: number }>> {
    if (types.length === 0) return [];
    const rows = await this.db
      .selectFrom('offers')
      .select((eb) => ['tenant', 'type_id', eb.fn.countAll().as('n')])
      .where(
        inPairs(
          ['tenant', 'type_id'],
          types.map((t) => [t.tenant, t.typeId] as const),
        ),
      )
      .groupBy(['tenant', 'type_id'])
      .execute();
    return rows.map((r) => ({ tenant: r.tenant, typeId: r.type_id, offers: Number(r.n) }));
  }
}
