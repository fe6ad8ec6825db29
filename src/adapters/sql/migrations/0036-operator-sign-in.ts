import type { Kysely, Migration } from 'kysely';

/**
 * Operators' browser sign-in (docs/operator-sign-in.md): the sign-ins waiting for the identity
 * provider's answer (by the hash of their `state`, bound to the browser that started them), the
 * browser sessions (by the hash of the cookie's value), and which API tokens a browser session
 * minted, so that signing out revokes them too.
 */
export const operatorSignIn: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('oidc_logins')
      .addColumn('state_hash', 'text', (c) => c.primaryKey())
      .addColumn('binder_hash', 'text', (c) => c.notNull())
      .addColumn('nonce', 'text', (c) => c.notNull())
      .addColumn('verifier', 'text', (c) => c.notNull())
      .addColumn('return_to', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('oidc_logins_expiry').on('oidc_logins').column('expires_at').execute();
    await db.schema
      .createTable('operator_browser_sessions')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('username', 'text', (c) => c.notNull())
      .addColumn('via', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('operator_browser_sessions_by_user').on('operator_browser_sessions').column('username').execute();
    await db.schema.alterTable('operator_sessions').addColumn('browser_session', 'text').execute();
  },
};
