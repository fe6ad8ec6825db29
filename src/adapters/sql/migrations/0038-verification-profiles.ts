import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Hosted verification by profile (docs/haip.md, "Verification") and through the Digital
 * Credentials API (docs/dc-api.md): which profile a transaction was opened under, its ephemeral
 * response-encryption key (the private JWK, sealed under the master key; HAIP and the DC API),
 * dropped when the transaction completes, the web origin a DC API request is made from, and the
 * verifier certificate chain its requests are signed with (its `x509_hash` client identifier).
 */
export const verificationProfiles: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('presentation_transactions')
      .addColumn('profile', 'text', (c) => c.notNull().defaultTo(sql`'openid4vp'`))
      .execute();
    await db.schema.alterTable('presentation_transactions').addColumn('response_key', 'text').execute();
    await db.schema.alterTable('presentation_transactions').addColumn('dc_origin', 'text').execute();
    await db.schema.alterTable('presentation_transactions').addColumn('verifier_chain', 'text').execute();
  },
};
