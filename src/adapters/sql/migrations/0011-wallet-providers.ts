import type { Kysely, Migration } from 'kysely';

/**
 * The wallet providers a deployment admits (docs/wallet.md, "Wallet providers"; decision 0015):
 * one row per wallet app, `requested → admitted | rejected`, `admitted ⇄ suspended`.
 */
export const walletProviders: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('wallet_providers')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      // The provider's https origin: one entry per provider.
      .addColumn('homepage', 'text', (c) => c.notNull().unique())
      .addColumn('contact', 'text')
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('reason', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
