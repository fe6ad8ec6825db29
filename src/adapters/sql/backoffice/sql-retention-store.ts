import { sql } from 'kysely';
import type { PurgeRun, RetentionRule, RetentionStore } from '../../../ports/retention-store.ts';
import type { Db } from '../connect.ts';
import { json, rowCodec } from '../row-codec.ts';
import type { PurgeRunsTable } from '../schema.ts';

/**
 * What each purgeable category is in SQL: its table, its key, and the rows a cutoff makes old
 * (docs/backoffice/compliance.md, "Retention"). The categories that are never purged have none.
 */
const PURGES: Record<string, { table: string; key: string; old: (cutoff: number) => ReturnType<typeof sql> }> = {
  approvals: { table: 'approvals', key: 'id', old: (c) => sql`state <> 'pending' and requested_at < ${c}` },
  'data-subject-requests': {
    table: 'compliance_requests',
    key: 'id',
    old: (c) => sql`state <> 'received' and decided_at is not null and decided_at < ${c}`,
  },
  incidents: { table: 'incidents', key: 'id', old: (c) => sql`state = 'closed' and closed_at < ${c}` },
  'erasure-receipts': { table: 'erasure_receipts', key: 'id', old: (c) => sql`completed_at < ${c}` },
};

const purgeOf = (category: string) => {
  const purge = PURGES[category];
  if (!purge) throw new Error(`retention: ${category} is not a purgeable category`);
  return purge;
};

const runs = rowCodec<PurgeRun, PurgeRunsTable>()('id state requestedBy requestedAt finishedAt auditSeq', {
  cutoffs: json,
  counts: json,
  finished: json,
});
const toRun = runs.record;
/** The one row of `purge_slot` (migration 0044). */
const SLOT = 1;

/** Retention rules and purge runs (docs/backoffice/compliance.md, "Retention"). */
export class SqlRetentionStore implements RetentionStore {
  constructor(private readonly db: Db) {}

  async rules(): Promise<RetentionRule[]> {
    const rows = await this.db.selectFrom('retention_rules').selectAll().orderBy('category').execute();
    return rows.map((r) => ({
      category: r.category,
      keepDays: Number(r.keep_days),
      updatedAt: Number(r.updated_at),
      updatedBy: r.updated_by,
    }));
  }

  async setRule(rule: RetentionRule): Promise<void> {
    const values = { keep_days: rule.keepDays, updated_at: rule.updatedAt, updated_by: rule.updatedBy };
    await this.db
      .insertInto('retention_rules')
      .values({ category: rule.category, ...values })
      .onConflict((oc) => oc.column('category').doUpdateSet(values))
      .execute();
  }

  async countPast(category: string, cutoff: number): Promise<number> {
    const { table, old } = purgeOf(category);
    const found = await sql<{
      n: number | string | bigint;
    }>`select count(*) as n from ${sql.table(table)} where ${old(cutoff)}`.execute(this.db);
    return Number(found.rows[0]?.n ?? 0);
  }

  async deletePast(category: string, cutoff: number, limit: number): Promise<number> {
    const { table, key, old } = purgeOf(category);
    const result = await sql`delete from ${sql.table(table)} where ${sql.ref(key)} in (
      select ${sql.ref(key)} from ${sql.table(table)} where ${old(cutoff)} order by ${sql.ref(key)} limit ${limit})`.execute(
      this.db,
    );
    return Number(result.numAffectedRows ?? 0n);
  }

  async addRun(run: PurgeRun): Promise<boolean> {
    // The guard is the slot's being free: on PostgreSQL a second taker waits for the first's
    // commit and then finds the slot taken.
    const taken = await this.db
      .updateTable('purge_slot')
      .set({ run_id: run.id })
      .where('id', '=', SLOT)
      .where('run_id', 'is', null)
      .executeTakeFirst();
    if (taken.numUpdatedRows !== 1n) return false;
    await this.db.insertInto('purge_runs').values(runs.row(run)).execute();
    return true;
  }

  async runningRun(): Promise<PurgeRun | undefined> {
    const row = await this.db
      .selectFrom('purge_runs')
      .selectAll()
      .where('state', '=', 'running')
      .orderBy('requested_at')
      .orderBy('id')
      .executeTakeFirst();
    return row && toRun(row);
  }

  async lastRun(): Promise<PurgeRun | undefined> {
    const row = await this.db
      .selectFrom('purge_runs')
      .selectAll()
      .orderBy('requested_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirst();
    return row && toRun(row);
  }

  async advanceRun(id: string, category: string, deleted: number, finished: boolean): Promise<void> {
    const row = await this.db
      .selectFrom('purge_runs')
      .select(['counts', 'finished'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const counts = JSON.parse(row.counts) as Record<string, number>;
    counts[category] = (counts[category] ?? 0) + deleted;
    const done = JSON.parse(row.finished) as string[];
    if (finished && !done.includes(category)) done.push(category);
    await this.db
      .updateTable('purge_runs')
      .set({ counts: JSON.stringify(counts), finished: JSON.stringify(done) })
      .where('id', '=', id)
      .execute();
  }

  async finishRun(id: string, at: number): Promise<boolean> {
    const result = await this.db
      .updateTable('purge_runs')
      .set({ state: 'done', finished_at: at })
      .where('id', '=', id)
      .where('state', '=', 'running')
      .executeTakeFirst();
    if (result.numUpdatedRows !== 1n) return false;
    await this.db.updateTable('purge_slot').set({ run_id: null }).where('id', '=', SLOT).where('run_id', '=', id).execute();
    return true;
  }
}
