import { type SelectQueryBuilder, sql } from 'kysely';
import type { Counted } from '../../ports/view-records.ts';

/**
 * A count of the rows `base` finds, and the first of them as `rows` orders and bounds them, each
 * viewed: the two queries run side by side.
 */
export async function counted<DB, TB extends keyof DB, B, O, V>(
  base: SelectQueryBuilder<DB, TB, B>,
  rows: (query: SelectQueryBuilder<DB, TB, B>) => Promise<O[]>,
  view: (row: O) => V,
): Promise<Counted<V>> {
  // The selection's type cannot be resolved over a generic table; its one column is `n`.
  const counting = base.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow() as Promise<unknown>;
  const [count, found] = await Promise.all([counting as Promise<{ n: unknown }>, rows(base)]);
  return { count: Number(count.n), top: found.map(view) };
}
