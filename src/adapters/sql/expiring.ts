import type { TypeCount } from '../../ports/view-records.ts';
import type { Db } from './connect.ts';
import { inTenant } from './windowed.ts';

/**
 * What expires between `from` (inclusive) and `to` (exclusive) in `table`, of the rows whose
 * `unset` column is still null, per tenant and type: how many, and when the first does; soonest
 * first, up to `limit`.
 */
export async function expiringByType(
  db: Db,
  table: 'issued_credentials' | 'offers',
  unset: 'revoked_at' | 'collected_at',
  window: { tenant: string | null; from: number; to: number; limit: number },
): Promise<TypeCount[]> {
  const rows = await db
    .selectFrom(table)
    .select((eb) => ['tenant', 'type_id', eb.fn.countAll<number | string>().as('n'), eb.fn.min('expires_at').as('first_at')])
    .where(unset, 'is', null)
    .where('expires_at', '>=', window.from)
    .where('expires_at', '<', window.to)
    .where(inTenant(window.tenant))
    .groupBy(['tenant', 'type_id'])
    .orderBy('first_at')
    .orderBy('tenant')
    .orderBy('type_id')
    .limit(window.limit)
    .execute();
  return rows.map((r) => ({ tenant: r.tenant, typeId: r.type_id, count: Number(r.n), firstAt: Number(r.first_at) }));
}
