import { type Kysely, type Migration, PostgresAdapter, sql } from 'kysely';

/**
 * PostgreSQL: `openrail_refuse(reason)` raises SQLSTATE OR001 with the reason as its message. A
 * hot path's writes go out as one statement (write-batch.ts, docs/scaling.md); when one of them
 * changes other rows than it must, the statement calls this, and the error undoes every write of
 * the statement. SQLite runs such writes one by one in a transaction and needs nothing.
 */
export const refusalFunction: Migration = {
  async up(db: Kysely<unknown>) {
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
    await sql`
      create function openrail_refuse(reason text) returns integer language plpgsql volatile as $$
      begin
        raise exception using errcode = 'OR001', message = reason;
      end
      $$`.execute(db);
  },
};
