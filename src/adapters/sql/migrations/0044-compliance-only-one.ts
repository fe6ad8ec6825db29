import { type Kysely, type Migration, sql } from 'kysely';

/**
 * The compliance group's "only one" rules as conditional writes (docs/backoffice/compliance.md):
 *
 * - `purge_slot`: one row naming the purge run that is running, or none. A purge starts by taking
 *   the slot (an update guarded by its being free) and the run frees it when done, so no second
 *   run starts while one runs, however many processes ask at once. A deployment that already
 *   started several at once keeps them: the job works through them oldest first, as before; the
 *   slot names the oldest.
 * - A negative response is one per subject: a unique index over the subject of the requests
 *   answered `negative`. `repeat_of` marks a negative answer given while another of the same
 *   subject stood (possible before this migration, never after), naming the first, so the index
 *   leaves those out.
 * - Verifications are deleted at their expiry by the verifier's sweep, so no retention rule
 *   governs them any more: a rule set for them goes.
 */
export const complianceOnlyOne: Migration = {
  async up(db: Kysely<unknown>) {
    const d = db as Kysely<Tables>;
    await db.schema
      .createTable('purge_slot')
      .addColumn('id', 'integer', (c) => c.primaryKey().notNull())
      .addColumn('run_id', 'text')
      .execute();
    const oldest = await d
      .selectFrom('purge_runs')
      .select('id')
      .where('state', '=', 'running')
      .orderBy('requested_at')
      .orderBy('id')
      .executeTakeFirst();
    await d
      .insertInto('purge_slot')
      .values({ id: 1, run_id: oldest?.id ?? null })
      .execute();

    await db.schema.alterTable('compliance_requests').addColumn('repeat_of', 'text').execute();
    const negatives = await d
      .selectFrom('compliance_requests')
      .select(['id', 'subject_kind', 'account_id', 'identifier'])
      .where('outcome', '=', 'negative')
      .orderBy('filed_at')
      .orderBy('id')
      .execute();
    const first = new Map<string, string>();
    for (const r of negatives) {
      const value = r.account_id ?? r.identifier;
      if (value === null) continue;
      const key = `${r.subject_kind}\n${value}`;
      const standing = first.get(key);
      if (standing === undefined) first.set(key, r.id);
      else await d.updateTable('compliance_requests').set({ repeat_of: standing }).where('id', '=', r.id).execute();
    }
    await sql`create unique index compliance_requests_one_negative
      on compliance_requests (subject_kind, coalesce(account_id, identifier))
      where outcome = 'negative' and repeat_of is null`.execute(db);

    await d.deleteFrom('retention_rules').where('category', '=', 'verifications').execute();
  },
};

/** The columns this migration reads and writes, as they are at this point. */
interface Tables {
  purge_slot: { id: number; run_id: string | null };
  purge_runs: { id: string; state: string; requested_at: number };
  compliance_requests: {
    id: string;
    subject_kind: string;
    account_id: string | null;
    identifier: string | null;
    outcome: string | null;
    filed_at: number;
    repeat_of: string | null;
  };
  retention_rules: { category: string };
}
