import { type Expression, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type { SourcePage, SourceStart } from '../../ports/timeline-page.ts';

/**
 * One source's part of a timeline page (ports/timeline-page.ts), for the owner whose SQL reads the
 * source: its rows after the page's start in (at, key) order, at most `limit`. Names no table.
 */

/** The rows after `start` in the order (at, key); every row without one. */
function after(at: string, key: string, start: SourceStart | undefined): Expression<SqlBool> {
  if (!start) return sql<SqlBool>`1 = 1`;
  if (start.sameAt !== 'past') {
    return start.sameAt === 'none' ? sql<SqlBool>`${sql.ref(at)} > ${start.at}` : sql<SqlBool>`${sql.ref(at)} >= ${start.at}`;
  }
  return sql<SqlBool>`(${sql.ref(at)} > ${start.at} or (${sql.ref(at)} = ${start.at} and ${sql.ref(key)} > ${start.key}))`;
}

/** The query's rows after the page's start, in (at, key) order, one page of them. */
export function sourcePage<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  at: string,
  key: string,
  page: SourcePage,
): Promise<O[]> {
  return query
    .where(after(at, key, page.start))
    .orderBy(sql.ref(at))
    .orderBy(sql.ref(key))
    .limit(page.limit)
    .execute();
}
