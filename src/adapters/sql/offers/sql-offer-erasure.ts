import { sql } from 'kysely';
import type { OfferErasure } from '../../../ports/offer-erasure.ts';
import type { ErasedOffer } from '../../../ports/offer-store.ts';
import type { Db } from '../connect.ts';

/** The offers an account's erasure ends (ports/offer-erasure.ts), on the ambient transaction. */
export class SqlOfferErasure implements OfferErasure {
  constructor(private readonly db: Db) {}

  async end(ids: readonly string[], now: number): Promise<ErasedOffer[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .updateTable('offers')
      .set({
        subject: null,
        erase_after: now,
        expires_at: sql<number>`case when expires_at > ${now} then ${now} else expires_at end`,
      })
      .where('id', 'in', [...ids])
      .where('subject', 'is not', null)
      .returning(['id', 'tenant', 'type_id', 'redeemed_at'])
      .execute();
    return rows.map((o) => ({ id: o.id, tenant: o.tenant, typeId: o.type_id, redeemed: o.redeemed_at !== null }));
  }

  async stillNamed(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const row = await this.db
      .selectFrom('offers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('id', 'in', [...ids])
      .where('subject', 'is not', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
