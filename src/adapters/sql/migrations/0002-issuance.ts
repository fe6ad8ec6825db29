import { type Kysely, type Migration, sql } from 'kysely';

/** Credential types, offers, nonces, status lists and the issued-credential record. */
export const issuance: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('credential_types')
      .addColumn('tenant', 'text', (c) => c.notNull().references('tenants.slug'))
      .addColumn('type_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('claims', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('credential_types_pk', ['tenant', 'type_id'])
      .execute();

    // An offer holds the subject values until collection or expiry; codes are stored as hashes.
    await db.schema
      .createTable('offers')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tenant', 'text', (c) => c.notNull().references('tenants.slug'))
      .addColumn('type_id', 'text', (c) => c.notNull())
      .addColumn('code_hash', 'text', (c) => c.notNull().unique())
      .addColumn('ref_hash', 'text', (c) => c.unique())
      .addColumn('tx_code', 'text')
      .addColumn('tx_code_hash', 'text')
      .addColumn('tx_attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('subject', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('erase_after', 'bigint', (c) => c.notNull())
      .addColumn('redeemed_at', 'bigint')
      .addColumn('collected_at', 'bigint')
      .execute();
    await db.schema
      .createIndex('offers_holding_subject')
      .on('offers')
      .column('erase_after')
      .where(sql.ref('subject'), 'is not', null)
      .execute();

    // c_nonces are minted without a row (adapters/crypto/c-nonce.ts); a spent one is recorded
    // here until it expires, which is what makes it single-use.
    await db.schema
      .createTable('spent_nonces')
      .addColumn('nonce_hash', 'text', (c) => c.primaryKey())
      .addColumn('tenant', 'text', (c) => c.notNull().references('tenants.slug'))
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('spent_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('spent_nonces_by_expiry').on('spent_nonces').column('expires_at').execute();
    await db.schema.createIndex('access_tokens_by_expiry').on('access_tokens').column('expires_at').execute();

    await db.schema
      .createTable('status_lists')
      .addColumn('tenant', 'text', (c) => c.notNull().references('tenants.slug'))
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('size', 'integer', (c) => c.notNull())
      .addColumn('capacity', 'integer', (c) => c.notNull())
      .addColumn('allocated', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('status_lists_pk', ['tenant', 'seq'])
      .execute();

    // Never claim values: only what revocation, support and audit need.
    await db.schema
      .createTable('issued_credentials')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tenant', 'text', (c) => c.notNull().references('tenants.slug'))
      .addColumn('type_id', 'text', (c) => c.notNull())
      .addColumn('offer_id', 'text', (c) => c.notNull())
      .addColumn('list_seq', 'integer', (c) => c.notNull())
      .addColumn('idx', 'integer', (c) => c.notNull())
      .addColumn('holder_thumbprint', 'text', (c) => c.notNull())
      .addColumn('issued_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .addUniqueConstraint('issued_credentials_status_ref', ['tenant', 'list_seq', 'idx'])
      .execute();
    await db.schema.createIndex('issued_credentials_by_offer').on('issued_credentials').column('offer_id').execute();
    await db.schema
      .createIndex('issued_credentials_revoked')
      .on('issued_credentials')
      .columns(['tenant', 'list_seq'])
      .where(sql.ref('revoked_at'), 'is not', null)
      .execute();
  },
};
