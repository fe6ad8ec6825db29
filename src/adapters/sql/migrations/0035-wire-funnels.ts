import type { Kysely, Migration } from 'kysely';

/**
 * Wire funnels (docs/operations.md, "Wire funnels"): hosted presentation transactions are deleted
 * once they expire, so before the sweep deletes them their counts are rolled up here, per day of
 * creation, tenant and type: how many were opened, answered by a wallet, and accepted.
 */
export const wireFunnels: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('verification_counts')
      .addColumn('day', 'bigint', (c) => c.notNull())
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('type_id', 'text', (c) => c.notNull())
      .addColumn('requests', 'bigint', (c) => c.notNull())
      .addColumn('responses', 'bigint', (c) => c.notNull())
      .addColumn('accepted', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('verification_counts_pk', ['day', 'tenant', 'type_id'])
      .execute();
  },
};
