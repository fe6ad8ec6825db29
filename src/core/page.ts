/**
 * One page of a list read with one row more than `limit`: the rows to answer, and the cursor of
 * the next page (from the last row answered) when that extra row shows more follow.
 */
export function pageOf<T>(
  rows: readonly T[],
  limit: number,
  cursorOf: (last: T) => string,
): { rows: T[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { rows: page, nextCursor: rows.length > limit && last !== undefined ? cursorOf(last) : null };
}
