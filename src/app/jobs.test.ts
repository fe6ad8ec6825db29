import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { openTestDb, type TestDatabase, testDatabases } from '../../test/helpers/databases.ts';
import { type Db, migrate } from '../adapters/sql/connect.ts';
import { SqlJobLeaseStore } from '../adapters/sql/kernel/sql-job-lease-store.ts';
import type { Clock } from '../core/clock.ts';
import { type Job, JobRunner } from './jobs.ts';

const PERIOD = 60_000;
const silent = pino({ level: 'silent' });

for (const factory of testDatabases()) {
  describe(`background jobs under database leases (${factory.name})`, () => {
    let target: TestDatabase;
    let handles: Db[];
    let now = 1_800_000_000_000;
    const clock: Clock = { now: () => now };

    before(async () => {
      target = await factory.create();
      // Two handles stand for two processes sharing one database.
      handles = [openTestDb(target), openTestDb(target)];
      await migrate(handles[0] as Db);
    });
    after(async () => {
      for (const h of handles) await h.destroy();
      await target.drop();
    });

    /** One runner per "process", each with its own copy of the job, counting its runs. */
    function runners(name: string, run: (process: number) => Promise<void> = async () => {}) {
      const runs: Array<{ process: number; at: number }> = [];
      const all = handles.map((db, process) => {
        const job: Job = {
          name,
          everyMs: PERIOD,
          run: async (at) => {
            runs.push({ process, at });
            await run(process);
          },
        };
        return new JobRunner([job], new SqlJobLeaseStore(db), clock, silent);
      });
      return { runs, all };
    }

    test('with two processes ticking every ten seconds, a job runs once per period', async () => {
      const { runs, all } = runners('test.once-per-period');
      const start = now;
      for (let t = 0; t <= 10 * PERIOD; t += 10_000) {
        now = start + t;
        for (const runner of all) await runner.tick();
      }
      assert.equal(runs.length, 11, JSON.stringify(runs));
      for (const [i, run] of runs.entries()) assert.equal(run.at, start + i * PERIOD, `run ${i}`);
      assert.ok(new Set(runs.map((r) => r.process)).size >= 1);
    });

    test('a failing run is recorded and the job runs again the next period', async () => {
      let fail = true;
      const { runs, all } = runners('test.failing', async () => {
        if (fail) throw new Error('the sweep broke');
      });
      const [a] = all;
      assert.ok(a);
      assert.deepEqual(await a.tick(), ['test.failing']);
      const lease = await (handles[0] as Db)
        .selectFrom('job_leases')
        .selectAll()
        .where('name', '=', 'test.failing')
        .executeTakeFirstOrThrow();
      assert.equal(lease.last_error, 'the sweep broke');
      assert.equal(lease.holder, a.holder);
      assert.deepEqual(await a.tick(), [], 'not again within the period');
      fail = false;
      now += PERIOD;
      assert.deepEqual(await a.tick(), ['test.failing']);
      const after = await (handles[0] as Db)
        .selectFrom('job_leases')
        .selectAll()
        .where('name', '=', 'test.failing')
        .executeTakeFirstOrThrow();
      assert.equal(after.last_error, null);
      assert.equal(Number(after.finished_at), now);
      assert.equal(runs.length, 2);
    });

    test('a process that dies holding the lease only delays the job until its lease ends', async () => {
      const { runs, all } = runners('test.dying');
      const [a, b] = all;
      assert.ok(a && b);
      // a takes the lease and never finishes the run (it died): b waits out the period.
      const store = new SqlJobLeaseStore(handles[0] as Db);
      assert.equal(await store.acquire('test.dying', 'dead-process', now, now + PERIOD), true);
      assert.deepEqual(await b.tick(), []);
      now += PERIOD - 1;
      assert.deepEqual(await b.tick(), []);
      now += 1;
      assert.deepEqual(await b.tick(), ['test.dying']);
      assert.deepEqual(
        runs.map((r) => r.process),
        [1],
      );
    });

    test('two jobs of one name, or a job that would run more than once a second, are refused', () => {
      const store = new SqlJobLeaseStore(handles[0] as Db);
      const job = { name: 'x', everyMs: PERIOD, run: async () => {} };
      assert.throws(() => new JobRunner([job, job], store, clock, silent), /two jobs are named x/);
      assert.throws(() => new JobRunner([{ ...job, everyMs: 10 }], store, clock, silent), /at most once a second/);
    });
  });
}
