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

/**
 * What a store's list reads (the list convention, http/list.ts): at most `limit` rows past
 * `after` — the order values of the last row answered — within the window over the list's own
 * time field (since inclusive, until exclusive).
 */
export interface PageWindow<After extends readonly (string | number)[]> {
  limit: number;
  after?: After | undefined;
  since?: number | undefined;
  until?: number | undefined;
}
