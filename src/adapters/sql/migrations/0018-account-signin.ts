import type { Kysely, Migration } from 'kysely';

/**
 * The account portal's browser sign-in (docs/account.md): tickets a browser opens and a wallet
 * approves, and the sessions they turn into. Both are stored by the hash of their secret only.
 */
export const accountSignin: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('signin_tickets')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('browser', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('approved_account', 'text')
      .addColumn('approved_at', 'bigint')
      .addColumn('spent_at', 'bigint')
      .execute();
    await db.schema
      .createTable('account_sessions')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('account_sessions_by_account').on('account_sessions').column('account_id').execute();
  },
};
