import { PostgresAdapter } from 'kysely';
import type { Db } from '../connect.ts';

/** Whether `db` talks to PostgreSQL (row locks are taken there only; see below). */
export const onPostgres = (db: Db): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * Holds the tenant's row until the transaction ends, so that transactions which read what hangs
 * off a tenant and then write it (replace a set of rows, count them and add one, replace the one
 * row a tenant has) follow one another, the second reading what the first committed: as the same
 * requests would one after another. Without it, PostgreSQL under READ COMMITTED lets both read
 * the same "before", and their writes meet on a unique key (a 500) or both pass a limit.
 *
 * PostgreSQL: FOR NO KEY UPDATE, not FOR UPDATE, because inserting a row that references the
 * tenant takes FOR KEY SHARE on it, which this lets through: only other holders, and updates of
 * the tenant's own row, wait. SQLite: a writing transaction holds the database's one write lock
 * from its start (BEGIN IMMEDIATE), so there is nothing more to take.
 *
 * Called outside a transaction it only reads. Answers whether the tenant exists.
 */
export async function holdTenant(db: Db, slug: string): Promise<boolean> {
  let query = db.selectFrom('tenants').select('slug').where('slug', '=', slug);
  if (onPostgres(db)) query = query.forNoKeyUpdate();
  return (await query.executeTakeFirst()) !== undefined;
}
