import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Keys that may live in a hardware token (docs/keys.md). A signing key's and the platform
 * authority's private part is now found by a reference: `key_backend` says where (`sealed`, the
 * default and every key made before, or `pkcs11`); a sealed key keeps its sealed JWK, now in the
 * nullable `sealed_private_key`; a token key keeps the token's label and its object's label and
 * id, and no key material at all. SQLite cannot drop a NOT NULL in place, so the sealed column is
 * copied to a nullable one and the old one dropped (neither is indexed).
 */
export const keysInHardware: Migration = {
  async up(db: Kysely<unknown>) {
    for (const table of ['signing_keys', 'certificate_authority']) {
      await db.schema
        .alterTable(table)
        .addColumn('key_backend', 'text', (c) => c.notNull().defaultTo('sealed'))
        .execute();
      await db.schema.alterTable(table).addColumn('sealed_private_key', 'text').execute();
      await db.schema.alterTable(table).addColumn('token_label', 'text').execute();
      await db.schema.alterTable(table).addColumn('object_label', 'text').execute();
      await db.schema.alterTable(table).addColumn('object_id', 'text').execute();
      await sql`update ${sql.table(table)} set sealed_private_key = sealed_private_jwk`.execute(db);
      await db.schema.alterTable(table).dropColumn('sealed_private_jwk').execute();
    }
  },
};
