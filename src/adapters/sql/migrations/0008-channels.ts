import type { Kysely, Migration } from 'kysely';

/**
 * Data channels between a tenant and a holder account (docs/wallet.md): at most one per pair,
 * `requested → active → revoked`, or `declined`; it names the elements the organisation asks for.
 */
export const channels: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('channels')
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      // JSON array of the element names the organisation asks for.
      .addColumn('elements', 'text', (c) => c.notNull())
      // Who asked: 'tenant' (the organisation, on the console) or 'holder' (the wallet).
      .addColumn('requested_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('channels_pk', ['tenant', 'account_id'])
      .execute();
    await db.schema.createIndex('channels_by_account').on('channels').column('account_id').execute();
  },
};
