import type { Kysely, Migration } from 'kysely';

/**
 * Certificates for signing keys (docs/decisions/0021-certificates-for-signing-keys.md): the
 * platform certificate authority (one row, its private key sealed like the signing keys'), and on
 * each signing key its certificate chain and when the key's certificate ends.
 */
export const certificates: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('certificate_authority')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('certificate', 'text', (c) => c.notNull())
      .addColumn('sealed_private_jwk', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.alterTable('signing_keys').addColumn('certificate_chain', 'text').execute();
    await db.schema.alterTable('signing_keys').addColumn('certificate_not_after', 'bigint').execute();
    await db.schema.alterTable('signing_keys').addColumn('certificate_authority', 'text').execute();
    await db.schema
      .createIndex('signing_keys_certificate_due')
      .on('signing_keys')
      .columns(['certificate_not_after', 'created_at'])
      .execute();
  },
};
