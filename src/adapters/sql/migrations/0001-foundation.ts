import { type Kysely, type Migration, sql } from 'kysely';

// Types chosen to behave the same on SQLite and PostgreSQL: text, integer, bigint (epoch ms).
export const foundation: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('settings')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('tenants')
      .addColumn('slug', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('display_name', 'text')
      .addColumn('description', 'text')
      .addColumn('logo_uri', 'text')
      .addColumn('primary_color', 'text')
      .addColumn('background_color', 'text')
      .addColumn('text_color', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('signing_keys')
      .addColumn('tenant', 'text', (c) => c.notNull().references('tenants.slug'))
      .addColumn('kid', 'text', (c) => c.notNull())
      .addColumn('purpose', 'text', (c) => c.notNull())
      .addColumn('public_jwk', 'text', (c) => c.notNull())
      .addColumn('sealed_private_jwk', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('retired_at', 'bigint')
      .addPrimaryKeyConstraint('signing_keys_pk', ['tenant', 'kid'])
      .execute();
    // One active key per tenant and purpose: concurrent provisioning cannot create two.
    await db.schema
      .createIndex('signing_keys_one_active')
      .on('signing_keys')
      .columns(['tenant', 'purpose'])
      .unique()
      .where(sql.ref('retired_at'), 'is', null)
      .execute();

    await db.schema
      .createTable('operators')
      .addColumn('username', 'text', (c) => c.primaryKey())
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('roles', 'text', (c) => c.notNull())
      .addColumn('tenant', 'text', (c) => c.references('tenants.slug'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('locked_until', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('operator_sessions')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('username', 'text', (c) => c.notNull().references('operators.username'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('operator_sessions_by_user').on('operator_sessions').column('username').execute();

    await db.schema
      .createTable('holder_jti')
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('jti', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('holder_jti_pk', ['account_id', 'jti'])
      .execute();
    await db.schema.createIndex('holder_jti_by_expiry').on('holder_jti').column('expires_at').execute();

    await db.schema
      .createTable('access_tokens')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('tenant', 'text', (c) => c.notNull().references('tenants.slug'))
      .addColumn('grant_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('spent_at', 'bigint')
      .execute();
  },
};
