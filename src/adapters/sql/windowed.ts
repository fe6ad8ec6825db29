import { type Expression, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';

/**
 * The pieces every list query shares (docs/architecture.md, "Rules that hold everywhere"): the tenant a reader is
 * scoped to, and the time window `since` (inclusive) to `until` (exclusive). Each is a condition
 * for `.where(…)`, the same on both engines; a reader without a scope, or a list without a bound,
 * gets a condition that holds for every row.
 */

const always = sql<SqlBool>`1 = 1`;

/** Rows of `tenant` only; every row for a platform-wide reader (`null`). */
export function inTenant(tenant: string | null, column = 'tenant'): Expression<SqlBool> {
  return tenant === null ? always : sql<SqlBool>`${sql.ref(column)} = ${tenant}`;
}

const DAY_MS = 86_400_000;

/** The UTC day (days since the epoch) of a millisecond column; a literal divisor, so GROUP BY matches the SELECT on PostgreSQL. */
export const dayOf = (column: string) => sql<number | string>`cast(${sql.ref(column)} / ${sql.lit(DAY_MS)} as bigint)`;

/** A list's time window over one column. */
export interface TimeWindow {
  since?: number | undefined;
  until?: number | undefined;
}

/** Rows whose `column` lies in the window: at or after `since`, before `until`. */
export function inWindow(column: string, window: TimeWindow): Expression<SqlBool> {
  const { since, until } = window;
  if (since !== undefined && until !== undefined) {
    return sql<SqlBool>`(${sql.ref(column)} >= ${since} and ${sql.ref(column)} < ${until})`;
  }
  if (since !== undefined) return sql<SqlBool>`${sql.ref(column)} >= ${since}`;
  if (until !== undefined) return sql<SqlBool>`${sql.ref(column)} < ${until}`;
  return always;
}

/**
 * Keyset paging over a list ordered by a pair of columns (usually a time, then a key that breaks
 * ties): the rows past the cursor `after` (the last row answered) — before it in a descending
 * list, after it in an ascending one. Every row without a cursor. A row-value comparison, the
 * same on both engines.
 */
export function pastCursor(
  columns: readonly [string, string],
  after: readonly [number | string, number | string] | undefined,
  order: 'asc' | 'desc',
): Expression<SqlBool> {
  if (after === undefined) return always;
  const [first, key] = columns;
  return sql<SqlBool>`(${sql.ref(first)}, ${sql.ref(key)}) ${sql.raw(order === 'desc' ? '<' : '>')} (${after[0]}, ${after[1]})`;
}

/** A page of a list read newest first: its window, the cursor of the last row answered, and how many rows. */
export interface NewestPage extends TimeWindow {
  after?: readonly [number | string, number | string] | undefined;
  limit: number;
}

/**
 * One page of `query` newest first by `columns` (a time, then the key that breaks ties): the rows
 * in the page's window on the time, past its cursor, in that order, up to its limit.
 */
export function newestFirst<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  columns: readonly [string, string],
  page: NewestPage,
): SelectQueryBuilder<DB, TB, O> {
  const [time, key] = columns;
  return query
    .where(inWindow(time, page))
    .where(pastCursor(columns, page.after, 'desc'))
    .orderBy(sql.ref(time), 'desc')
    .orderBy(sql.ref(key), 'desc')
    .limit(page.limit);
}

/**
 * Rows whose columns hold one of `pairs` (a pair per row, in the columns' order): an `or` of
 * equalities, since SQLite takes no list of row values on the right of `in`. No row for no pair.
 */
export function inPairs(
  columns: readonly [string, string],
  pairs: readonly (readonly [unknown, unknown])[],
): Expression<SqlBool> {
  if (pairs.length === 0) return sql<SqlBool>`1 = 0`;
  const [a, b] = columns;
  return sql<SqlBool>`(${sql.join(
    pairs.map(([x, y]) => sql`(${sql.ref(a)} = ${x} and ${sql.ref(b)} = ${y})`),
    sql` or `,
  )})`;
}
