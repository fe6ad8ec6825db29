import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Expiry (docs/operations.md, "Expiry"): a credential type's validity, set by operations, and the
 * latest time each credential issued under one can be presented (its `exp`, before the jitter
 * that keeps a batch unlinkable). Types themselves stay immutable; their validity is a setting
 * beside them. Credentials issued before carry no expiry (null).
 */
export const expiry: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('type_validity')
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('type_id', 'text', (c) => c.notNull())
      .addColumn('validity_days', 'integer', (c) => c.notNull())
      .addColumn('set_at', 'bigint', (c) => c.notNull())
      .addColumn('set_by', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('type_validity_pk', ['tenant', 'type_id'])
      .execute();
    await db.schema.alterTable('issued_credentials').addColumn('expires_at', 'bigint').execute();
    await db.schema
      .createIndex('issued_credentials_expiring')
      .on('issued_credentials')
      .columns(['expires_at'])
      .where(sql<boolean>`expires_at is not null and revoked_at is null`)
      .execute();
  },
};
