/**
 * The compliance group's "only one" rules under concurrent requests (docs/backoffice/compliance.md),
 * on each engine: purges asked for at once start one run, and negative responses for one subject
 * asked at once sign one statement. On PostgreSQL several transactions run side by side, so
 * only a conditional write holds these (the store-level races: test/storage/single-use/spends.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, testDatabases } from '../../../../test/helpers/databases.ts';
import { signedInOperator } from '../../../../test/helpers/operators.ts';
import { startRail, type TestRail } from '../../../../test/helpers/rail.ts';

const BASE = '/api/admin/compliance';
const PURGES = 8;
const ANSWERS = 6;

for (const factory of testDatabases()) {
  describe(`compliance: asked at once (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let ops: Record<string, string>;
    let support: Record<string, string>;
    const post = (url: string, payload: object, headers: Record<string, string>) =>
      rail.app.inject({ method: 'POST', url: `${BASE}${url}`, headers, payload });
    const count = async (table: 'purge_runs' | 'compliance_requests' | 'audit_log', where: [string, string]) =>
      Number(
        (
          await rail.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where(where[0] as never, '=', where[1] as never)
            .executeTakeFirstOrThrow()
        ).n,
      );

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, { OPENRAIL_DEMO: 'off' }, undefined, { runJobs: false });
      ops = await signedInOperator(rail.app, 'ops-race', ['ops']);
      support = await signedInOperator(rail.app, 'support-race', ['support']);
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test(`${PURGES} purges asked for at once start one run; the others answer it`, async () => {
      const answers = await Promise.all(
        Array.from({ length: PURGES }, () => post('/retention/purge-run', { dryRun: false }, ops)),
      );
      const bodies = answers.map((res) => {
        assert.ok([200, 202].includes(res.statusCode), res.body);
        return res.json() as { created: boolean; auditSeq: number; run: { runId: string } };
      });
      assert.equal(bodies.filter((b) => b.created).length, 1, 'one run started');
      assert.equal(new Set(bodies.map((b) => b.run.runId)).size, 1, 'every answer names that run');
      assert.equal(new Set(bodies.map((b) => b.auditSeq)).size, 1, 'and its audit entry');
      assert.equal(await count('purge_runs', ['state', 'running']), 1);
      assert.equal(await count('audit_log', ['action', 'retention.purge_started']), 1);
    });

    test(`${ANSWERS} negative responses for one subject asked at once sign one statement; the others are refused`, async () => {
      const subject = { email: 'concurrent@example.org' };
      const answers = await Promise.all(
        Array.from({ length: ANSWERS }, () => post('/dsar/negative-response', { subject, source: 'E-mail' }, support)),
      );
      const signed = answers.filter((res) => res.statusCode === 200);
      assert.equal(signed.length, 1, answers.map((res) => res.statusCode).join(', '));
      for (const res of answers.filter((r) => r.statusCode !== 200)) {
        assert.equal(res.statusCode, 409, res.body);
        assert.equal(res.json().error, 'subject_held');
      }
      assert.equal(await count('compliance_requests', ['identifier', 'concurrent@example.org']), 1);
      assert.equal(await count('audit_log', ['action', 'dsar.answered']), 1);
    });
  });
}
