import type { Kysely, Migration } from 'kysely';

/** Presentation transactions by age: the cap on live transactions evicts the oldest first. */
export const verificationAgeIndex: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('presentation_transactions_by_age')
      .on('presentation_transactions')
      .columns(['created_at', 'id'])
      .execute();
  },
};
