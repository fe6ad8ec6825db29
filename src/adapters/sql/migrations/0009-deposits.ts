import type { Kysely, Migration } from 'kysely';

/**
 * The deposit rail (docs/deposits.md): the products a tenant deposits through (one per tenant and
 * kind, approved by the platform), and the deposits themselves, kept as the canonical body the
 * caller sent with its hash, so a repeated delivery is recognised and a changed one refused.
 */
export const deposits: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('products')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('require_channel', 'integer', (c) => c.notNull())
      .addColumn('approved_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('products_kind', ['tenant', 'kind'])
      .execute();

    await db.schema
      .createTable('deposits')
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('deposit_id', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('product_id', 'text', (c) => c.notNull())
      .addColumn('item_id', 'text', (c) => c.notNull())
      // The body as received, in canonical JSON (keys sorted), and its SHA-256.
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('body_hash', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('deposits_pk', ['tenant', 'deposit_id'])
      .execute();
  },
};
