import { type Kysely, type Migration, sql } from 'kysely';

/**
 * A coin ledger's own order (docs/membership.md): each entry gets the next number of its member's
 * ledger, assigned under the member row's lock when the balance moves, so entries made in the same
 * millisecond still have an order. Entries made before this migration are numbered by time.
 */
export const coinEntryOrder: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('coin_entries').addColumn('entry_no', 'bigint').execute();
    const { rows } = await sql<{ id: string; tenant: string; account_id: string }>`
      select id, tenant, account_id from coin_entries order by tenant, account_id, created_at, id`.execute(db);
    const next = new Map<string, number>();
    for (const r of rows) {
      const member = `${r.tenant}\u0000${r.account_id}`;
      const no = (next.get(member) ?? 0) + 1;
      next.set(member, no);
      await sql`update coin_entries set entry_no = ${no} where id = ${r.id}`.execute(db);
    }
    await db.schema.createIndex('coin_entries_ledger').on('coin_entries').columns(['tenant', 'account_id', 'entry_no']).execute();
  },
};
