import type { Kysely, Migration } from 'kysely';

/**
 * A holder's erasure of its account (docs/account.md, "Erasure"): the receipts it leaves, which
 * hold no personal data; the mark on a deposit whose body was erased while its link in the
 * tenant's chain stays; and the indexes that let the erasure find an account's rows in the tables
 * that did not look rows up by account before.
 */
export const accountErasure: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('erasure_receipts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('completed_at', 'bigint', (c) => c.notNull())
      // JSON object: how many rows each part of the pipeline erased or unlinked.
      .addColumn('counts', 'text', (c) => c.notNull())
      .addColumn('tenants', 'integer', (c) => c.notNull())
      // 'zeroed', 'pending' (SQLite, a checkpoint still to finish) or 'not-checked' (PostgreSQL).
      .addColumn('disk', 'text', (c) => c.notNull())
      .addColumn('disk_checked_at', 'bigint')
      .execute();
    await db.schema.alterTable('deposits').addColumn('erased_at', 'bigint').execute();
    await db.schema.createIndex('deposits_by_account').on('deposits').column('account_id').execute();
    await db.schema.createIndex('share_settings_by_account').on('share_settings').column('account_id').execute();
    await db.schema.createIndex('coin_entries_by_account').on('coin_entries').column('account_id').execute();
    await db.schema.createIndex('votes_by_account').on('votes').column('account_id').execute();
    await db.schema.createIndex('issued_credentials_by_holder').on('issued_credentials').column('holder_thumbprint').execute();
    await db.schema.createIndex('presentations_by_holder').on('presentation_transactions').column('holder_thumbprint').execute();
    await db.schema.createIndex('signin_tickets_by_account').on('signin_tickets').column('approved_account').execute();
  },
};
