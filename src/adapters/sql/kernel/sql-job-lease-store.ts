import type { JobLeaseStore } from '../../../ports/job-lease-store.ts';
import { type Db, onPostgres } from '../connect.ts';
import { Statement } from '../statement.ts';

// The lease taken when the last one has ended. On PostgreSQL one statement also answers the
// lease as last committed when it was not taken; SQLite reads it after, at no network cost.
const takeLease = new Statement<{ lease_until: number }>(
  `insert into job_leases (name, holder, lease_until, started_at, finished_at, last_error) values (?, ?, ?, ?, null, null)
   on conflict (name) do update set holder = excluded.holder, lease_until = excluded.lease_until,
     started_at = excluded.started_at, finished_at = null
   where job_leases.lease_until <= ?`,
);
const leaseOf = new Statement<{ lease_until: number }>('select lease_until from job_leases where name = ?');
const takeOrRead = new Statement<{ taken_until: number | null; held_until: number | null }>(
  `with taken as (${takeLease.text} returning lease_until)
   select (select lease_until from taken) as taken_until, (select lease_until from job_leases where name = ?) as held_until`,
);

export class SqlJobLeaseStore implements JobLeaseStore {
  private readonly postgres: boolean;

  constructor(private readonly db: Db) {
    this.postgres = onPostgres(db);
  }

  async acquire(job: string, holder: string, now: number, until: number): Promise<{ taken: boolean; heldUntil: number }> {
    const params = [job, holder, until, now, now];
    if (this.postgres) {
      const row = await takeOrRead.first(this.db, [...params, job]);
      if (row?.taken_until != null) return { taken: true, heldUntil: until };
      return { taken: false, heldUntil: Number(row?.held_until ?? now) };
    }
    if ((await takeLease.changes(this.db, params)) === 1) return { taken: true, heldUntil: until };
    return { taken: false, heldUntil: Number((await leaseOf.first(this.db, [job]))?.lease_until ?? now) };
  }

  async finished(job: string, holder: string, now: number, error: string | null): Promise<void> {
    await this.db
      .updateTable('job_leases')
      .set({ finished_at: now, last_error: error })
      .where('name', '=', job)
      .where('holder', '=', holder)
      .execute();
  }
}
