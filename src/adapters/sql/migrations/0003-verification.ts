import type { Kysely, Migration } from 'kysely';

/**
 * Hosted verification: one row per OID4VP presentation transaction (docs/verification.md). The
 * result token is stored as a hash; the nonce is unique among live transactions, so a key
 * binding made for one transaction cannot complete another.
 */
export const verification: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('presentation_transactions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('state', 'text', (c) => c.notNull().unique())
      .addColumn('nonce', 'text', (c) => c.notNull().unique())
      .addColumn('result_token_hash', 'text', (c) => c.notNull())
      .addColumn('caller_aud', 'text', (c) => c.notNull())
      .addColumn('type_tenant', 'text', (c) => c.notNull().references('tenants.slug'))
      .addColumn('type_id', 'text', (c) => c.notNull())
      .addColumn('vct', 'text', (c) => c.notNull())
      .addColumn('claims', 'text', (c) => c.notNull())
      .addColumn('requested_by', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('completed_at', 'bigint')
      .addColumn('outcome', 'text')
      .execute();
    await db.schema
      .createIndex('presentation_transactions_by_expiry')
      .on('presentation_transactions')
      .column('expires_at')
      .execute();
  },
};
