import type { Kysely, Migration } from 'kysely';

/**
 * Identifier-ownership challenges (docs/onboarding.md): a code mailed to an address, kept as a
 * keyed hash with the address's own keyed hash, its expiry, its attempts and whether it was spent.
 */
export const onboarding: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('onboarding_challenges')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('identifier_key', 'text', (c) => c.notNull())
      .addColumn('code_hash', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('spent_at', 'bigint')
      .execute();
    await db.schema
      .createIndex('onboarding_by_identifier')
      .on('onboarding_challenges')
      .columns(['identifier_key', 'created_at'])
      .execute();
  },
};
