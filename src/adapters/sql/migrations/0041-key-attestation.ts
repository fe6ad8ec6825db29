import type { Kysely, Migration } from 'kysely';

/**
 * Key attestation (docs/haip.md, "Key attestation"): the credential types whose proofs must carry
 * a wallet provider's key attestation, with the attack-potential values the issuer accepts for
 * key storage and user authentication (JSON arrays; null: any).
 */
export const keyAttestation: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('type_key_attestation')
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('type_id', 'text', (c) => c.notNull())
      .addColumn('key_storage', 'text')
      .addColumn('user_authentication', 'text')
      .addColumn('set_at', 'bigint', (c) => c.notNull())
      .addColumn('set_by', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('type_key_attestation_pk', ['tenant', 'type_id'])
      .execute();
  },
};
