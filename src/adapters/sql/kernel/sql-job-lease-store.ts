import type { JobLeaseStore } from '../../../ports/job-lease-store.ts';
import type { Db } from '../connect.ts';

export class SqlJobLeaseStore implements JobLeaseStore {
  constructor(private readonly db: Db) {}

  async acquire(job: string, holder: string, now: number, until: number): Promise<boolean> {
    const result = await this.db
      .insertInto('job_leases')
      .values({ name: job, holder, lease_until: until, started_at: now, finished_at: null, last_error: null })
      .onConflict((oc) =>
        oc
          .column('name')
          .doUpdateSet({ holder, lease_until: until, started_at: now, finished_at: null })
          .where('job_leases.lease_until', '<=', now),
      )
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
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
