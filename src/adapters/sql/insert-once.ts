import type { AnyColumn, InsertObject } from 'kysely';
import type { Db } from './connect.ts';
import type { Database } from './schema.ts';

/**
 * Inserts `row` into `table` unless it conflicts with a row there (on the `unique` columns, or on
 * any unique key): whether it wrote the row. A conflict, on either engine, writes nothing and
 * leaves the transaction usable.
 */
export async function insertOnce<T extends keyof Database & string>(
  db: Db,
  table: T,
  row: InsertObject<Database, T>,
  unique?: readonly AnyColumn<Database, T>[],
): Promise<boolean> {
  const result = await db
    .insertInto(table)
    .values(row)
    .onConflict((oc) => (unique ? oc.columns(unique) : oc).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}
