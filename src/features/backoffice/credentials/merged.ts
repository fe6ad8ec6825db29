import type { KernelViews } from '../../../ports/kernel-views.ts';

/**
 * The first `limit` rows of several owners' lists, each list in the database's order of `keyOf`,
 * as one query over their union would answer them: each key once, in the database's order (its
 * collation, asked of the kernel only when two lists have rows), so that a page's cursor means
 * the same to every list.
 */
export async function mergeOrdered<T>(
  kernel: Pick<KernelViews, 'collate'>,
  lists: readonly (readonly T[])[],
  keyOf: (row: T) => string[],
  limit: number,
): Promise<T[]> {
  const filled = lists.filter((l) => l.length > 0);
  if (filled.length <= 1) return (filled[0] ?? []).slice(0, limit);
  const byKey = new Map<string, T>();
  for (const row of filled.flat()) {
    const key = JSON.stringify(keyOf(row));
    if (!byKey.has(key)) byKey.set(key, row);
  }
  const rows = [...byKey.values()];
  const order = await kernel.collate(rows.map(keyOf));
  return order.slice(0, limit).map((i) => rows[i] as T);
}
