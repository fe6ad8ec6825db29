/**
 * What the compliance overviews offer is true (docs/backoffice/compliance.md), on each engine:
 * a retention rule exists only for data retention governs, the console's view of an unknown
 * organisation is refused, and the programme's attestations due name the newest version
 * published and only operators who may attest.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, testDatabases } from '../../../../test/helpers/databases.ts';
import { signedInOperator } from '../../../../test/helpers/operators.ts';
import { owner, startRail, type TestRail } from '../../../../test/helpers/rail.ts';
import { ok, refusedUnchanged, rowCounts } from '../../../../test/helpers/refusals.ts';

const BASE = '/api/admin/compliance';
type Headers = Record<string, string>;

for (const factory of testDatabases()) {
  describe(`compliance: rules and the programme (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let now = Date.now();
    const clock = { now: () => now };
    let ops: Headers;
    let auditor: Headers;

    const post = (url: string, payload: unknown, headers: Headers) =>
      rail.app.inject({ method: 'POST', url: `${BASE}${url}`, headers, payload: payload as object });
    const get = (url: string, headers: Headers) => rail.app.inject({ method: 'GET', url, headers });
    const snapshot = () => rowCounts(rail.db, ['retention_rules', 'purge_runs', 'audit_log']);

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, { OPENRAIL_DEMO: 'off' }, clock, { runJobs: false });
      ops = await signedInOperator(rail.app, 'ops-x', ['ops']);
      auditor = await signedInOperator(rail.app, 'auditor-x', ['auditor']);
      ok(await rail.app.inject({ method: 'POST', url: '/api/tenants', headers: owner, payload: { name: 'Real Org' } }), 201);
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('verifications are deleted at their expiry by the verifier’s sweep: no retention rule offers them', async () => {
      const rules = ok(await get(`${BASE}/retention/rules`, auditor)).rules as Array<{ category: string }>;
      assert.deepEqual(
        rules.map((r) => r.category),
        ['audit-log', 'credential-status', 'approvals', 'data-subject-requests', 'incidents', 'erasure-receipts'],
      );
      await refusedUnchanged(
        snapshot,
        () => post('/retention/rules', { category: 'verifications', keepDays: 400 }, ops),
        400,
        'invalid_request',
      );
      const dry = ok(await post('/retention/purge-run', { dryRun: true }, ops));
      assert.equal(dry.counts.verifications, undefined);
      assert.equal(dry.cutoffs.verifications, undefined);
    });

    test('the console’s view of an organisation that does not exist is 404 unknown_tenant', async () => {
      const res = await get('/api/compliance?tenant=no-such-org', owner);
      assert.equal(res.statusCode, 404, res.body);
      assert.equal(res.json().error, 'unknown_tenant');
      assert.equal((await get('/api/compliance?tenant=real-org', owner)).statusCode, 200);
    });

    const dueFor = async (statementId: string) =>
      ok(await get(`${BASE}/program`, auditor)).attestationsDue.find(
        (d: { statementId: string }) => d.statementId === statementId,
      ) as { version: string; attested: number; missing: string[] };
    const attest = (statementId: string, version: string, headers: Headers) =>
      post('/accountability/attest', { statementId, version }, headers);

    test('attestations due: the newest version published, not the last attested', async () => {
      const early = await signedInOperator(rail.app, 'early-bird', ['support']);
      const late = await signedInOperator(rail.app, 'late-comer', ['analyst']);
      ok(await attest('privacy-policy', 'v1', early), 201);
      now += 1000;
      ok(await attest('privacy-policy', 'v2', early), 201);
      now += 1000;
      // Someone attests the older version late: v2 is still the newest published.
      ok(await attest('privacy-policy', 'v1', late), 201);
      const due = await dueFor('privacy-policy');
      assert.equal(due.version, 'v2');
      assert.equal(due.attested, 1);
      assert.ok(due.missing.includes('late-comer') && due.missing.includes('ops-x'));
      assert.ok(!due.missing.includes('early-bird'), 'attested v2');
    });

    test('attestations due: only operators who may attest are missing', async () => {
      await signedInOperator(rail.app, 'legacy-issuer', ['issuer']);
      await signedInOperator(rail.app, 'scoped-admin', ['tenant-admin'], 'real-org');
      ok(await attest('code-of-conduct', '2026-11', ops), 201);
      const due = await dueFor('code-of-conduct');
      assert.ok(due.missing.includes('auditor-x') && due.missing.includes('scoped-admin'), due.missing.join(', '));
      assert.ok(!due.missing.includes('legacy-issuer'), 'an issuer-only operator holds no back-office role and cannot attest');
    });
  });
}
