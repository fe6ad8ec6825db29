import { type Kysely, type Migration, sql } from 'kysely';

/**
 * The platform root can be replaced (docs/keys.md, "Replacing the platform root"): the authority
 * table holds one row per root. `active_from` is when a root starts certifying keys (the first
 * root's is its creation); the root in force is the one with the latest `active_from` already
 * reached. `retired_at` is set once a replaced root's private key is destroyed: its certificate
 * stays, published while certificates it issued may still be presented.
 */
export const rootReplacement: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('certificate_authority')
      .addColumn('active_from', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('certificate_authority').addColumn('retired_at', 'bigint').execute();
    await sql`update certificate_authority set active_from = created_at`.execute(db);
  },
};
