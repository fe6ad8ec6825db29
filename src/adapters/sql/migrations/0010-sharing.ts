import type { Kysely, Migration } from 'kysely';

/**
 * Sharing over channels (docs/wallet.md): per item and per tenant, the elements the holder lets
 * that tenant receive; and the account's append-only sharing log of every change.
 */
export const sharing: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('share_settings')
      .addColumn('item_id', 'text', (c) => c.notNull())
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      // JSON array of element names; a row exists only while it names at least one.
      .addColumn('elements', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('share_settings_pk', ['item_id', 'tenant'])
      .execute();
    await db.schema.createIndex('share_settings_by_channel').on('share_settings').columns(['tenant', 'account_id']).execute();

    await db.schema
      .createTable('sharing_log')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('item_id', 'text', (c) => c.notNull())
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('elements', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sharing_log_by_item').on('sharing_log').columns(['account_id', 'item_id', 'at']).execute();
  },
};
