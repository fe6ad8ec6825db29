import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Hosted verification by profile (docs/haip.md, "Verification"): which profile a transaction was
 * opened under, and for HAIP its ephemeral response-encryption key (the private JWK, sealed under
 * the master key), dropped when the transaction completes.
 */
export const verificationProfiles: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('presentation_transactions')
      .addColumn('profile', 'text', (c) => c.notNull().defaultTo(sql`'openid4vp'`))
      .execute();
    await db.schema.alterTable('presentation_transactions').addColumn('response_key', 'text').execute();
  },
};
