import type { Kysely, Migration } from 'kysely';

/**
 * Wallet items (docs/wallet.md): what the service holds for a holder account, one row per item
 * whatever its kind. The row is the envelope (never a claim value or an amount); the contents stay
 * with the kind's own table (offers, deposits, channels), named by `ref`.
 */
export const walletItems: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('wallet_items')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      // The offer, deposit or channel this item stands for, unique per kind within the tenant.
      .addColumn('ref', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('demo', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      // A pending item past this time reads as expired; null: it does not expire.
      .addColumn('expires_at', 'bigint')
      .addUniqueConstraint('wallet_items_ref', ['tenant', 'kind', 'ref'])
      .execute();
    await db.schema
      .createIndex('wallet_items_by_account')
      .on('wallet_items')
      .columns(['account_id', 'created_at', 'id'])
      .execute();
  },
};
