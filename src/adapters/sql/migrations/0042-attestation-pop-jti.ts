import type { Kysely, Migration } from 'kysely';

/**
 * The `jti` of each wallet attestation proof of possession an issuer accepted (docs/haip.md,
 * "Wallet attestation trust"), hashed, until the proof is past its freshness window: a proof is
 * taken once.
 */
export const attestationPopJti: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('attestation_pop_jti')
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('jti_hash', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('attestation_pop_jti_pk', ['tenant', 'jti_hash'])
      .execute();
    await db.schema.createIndex('attestation_pop_jti_by_expiry').on('attestation_pop_jti').column('expires_at').execute();
  },
};
