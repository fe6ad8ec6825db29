import { type InsertObject, sql } from 'kysely';
import type { Db } from './connect.ts';
import { insertOnce } from './insert-once.ts';
import type { Database } from './schema.ts';

/** The tables of single-use marks: a jti under its key, kept until it expires. */
type MarkTable = 'holder_jti' | 'attestation_pop_jti';

/**
 * Burns the mark `key` (its columns and values) in `table` until `expiresAt`: whether it was
 * fresh. An expired mark for the same key may still be present (not yet pruned): it is dropped
 * first. What it marked is outside the freshness window anyway, so this never reopens a live jti.
 */
export async function burnMark(
  db: Db,
  table: MarkTable,
  key: Readonly<Record<string, string>>,
  expiresAt: number,
  now: number,
): Promise<boolean> {
  let stale = db.deleteFrom(table).where('expires_at', '<=', now);
  for (const [column, value] of Object.entries(key)) stale = stale.where(sql.ref(column), '=', value);
  await stale.execute();
  return insertOnce(db, table, { ...key, expires_at: expiresAt } as InsertObject<Database, MarkTable>);
}

/** Drops the marks of `table` that have expired by `now`: how many. */
export async function pruneMarks(db: Db, table: MarkTable, now: number): Promise<number> {
  const result = await db.deleteFrom(table).where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
