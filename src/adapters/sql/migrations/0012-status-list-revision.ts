import type { Kysely, Migration } from 'kysely';

/**
 * A revision per status list, raised in the transaction of every revocation that sets one of its
 * bits: a process can tell with one row read whether the list token it signed earlier still says
 * what the record says (StatusService.token), instead of building and signing it on every fetch.
 */
export const statusListRevision: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('status_lists')
      .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
