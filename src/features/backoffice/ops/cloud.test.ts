/**
 * `GET /ops/cloud` names the process that answers among the deployment's processes
 * (docs/operations.md, "Cloud"), whether or not it runs jobs: one name for its leases and itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, testDatabases } from '../../../../test/helpers/databases.ts';
import { signedInOperator } from '../../../../test/helpers/operators.ts';
import { startRail, type TestRail } from '../../../../test/helpers/rail.ts';

const [factory] = testDatabases();

describe('ops/cloud lists the answering process', () => {
  let db: TestDatabase;
  let rail: TestRail;
  let ops: Record<string, string>;
  const cloud = async () => {
    const res = await rail.app.inject({ method: 'GET', url: '/api/admin/ops/cloud', headers: ops });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { thisProcess: string; processes: Array<{ holder: string; lastSeenAt: string }> };
  };

  before(async () => {
    db = await (factory as NonNullable<typeof factory>).create();
    rail = await startRail(db, { OPENRAIL_DEMO: 'off' }, undefined, { runJobs: false });
    ops = await signedInOperator(rail.app, 'ops-cloud', ['ops']);
  });
  after(async () => {
    await rail.stop();
    await db.drop();
  });

  test('before it ran any job, and once it has: once, under the name its leases carry', async () => {
    const idle = await cloud();
    assert.deepEqual(
      idle.processes.map((p) => p.holder),
      [idle.thisProcess],
    );
    await rail.jobs.tick();
    const holders = (await rail.db.selectFrom('job_leases').select('holder').distinct().execute()).map((l) => l.holder);
    const busy = await cloud();
    assert.deepEqual(holders, [busy.thisProcess], 'its jobs ran under its own name');
    assert.deepEqual(
      busy.processes.map((p) => p.holder),
      [busy.thisProcess],
    );
  });
});
