/**
 * `subject.export` through the approval desk (docs/backoffice/approvals.md), on each engine:
 * owners only; on approval the holder's export (what POST /account/export gives the holder) is the
 * approval's result, read by the requester only and for 24 hours, then cleared by the job; and the
 * account's erasure deletes the approvals that name it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, testDatabases } from '../../../../test/helpers/databases.ts';
import { signedInOperator } from '../../../../test/helpers/operators.ts';
import { owner, ownerCalls, startRail, type TestRail } from '../../../../test/helpers/rail.ts';
import { ok, refusedUnchanged, rowCounts } from '../../../../test/helpers/refusals.ts';
import { accountModule } from '../../account/module.ts';
import { EXPORT_RESULT_TTL_MS } from './subject-export.ts';

const account = () => randomBytes(32).toString('base64url');

for (const factory of testDatabases()) {
  describe(`subject.export through the approval desk (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let frozen: number | undefined;
    const clock = { now: () => frozen ?? Date.now() };
    let tenant: string;
    let ownerA: Record<string, string>;
    let ownerB: Record<string, string>;
    let ops: Record<string, string>;
    let auditor: Record<string, string>;

    const { post, get } = ownerCalls(() => rail);
    const snapshot = () => rowCounts(rail.db, ['approvals', 'audit_log']);
    /** A member of the tenant with two coin entries. */
    const holder = async () => {
      const accountId = account();
      ok(await post('/api/members/enroll', { tenant, accountId, displayName: 'Grace Hopper' }, owner), 201);
      for (const [delta, reason] of [
        [50, 'Welcome'],
        [-20, 'Spring dinner'],
      ] as const) {
        const coins = { delta, reason, idempotencyKey: `k-${randomBytes(6).toString('hex')}` };
        ok(await post('/api/members/update', { tenant, accountId, coins }, owner));
      }
      return accountId;
    };
    let owners = 0;
    /** A new owner's session (one signed in before a job ran at a later clock has been pruned). */
    const freshOwner = () => signedInOperator(rail.app, `owner-${++owners}`, ['owner']);
    const fileExport = async (accountId: string, headers: Record<string, string>) =>
      ok(await post('/api/admin/approvals', { action: 'subject.export', params: { accountId } }, headers), 201).approval;

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, { OPENRAIL_DEMO: 'off' }, clock, { runJobs: false });
      tenant = ok(await post('/api/tenants', { name: 'Export Rowing Club' }, owner), 201).slug;
      ownerA = await signedInOperator(rail.app, 'owner-a', ['owner']);
      ownerB = await signedInOperator(rail.app, 'owner-b', ['owner']);
      ops = await signedInOperator(rail.app, 'ops-x', ['ops']);
      auditor = await signedInOperator(rail.app, 'auditor-x', ['auditor']);
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('owners only, and an account the service holds nothing of is refused', async () => {
      const accountId = await holder();
      await refusedUnchanged(
        snapshot,
        () => post('/api/admin/approvals', { action: 'subject.export', params: { accountId } }, ops),
        403,
        'forbidden',
      );
      await refusedUnchanged(
        snapshot,
        () => post('/api/admin/approvals', { action: 'subject.export', params: { accountId: account() } }, ownerA),
        404,
        'unknown_account',
      );
      await refusedUnchanged(
        snapshot,
        () => post('/api/admin/approvals', { action: 'subject.export', params: { accountId: 'short' } }, ownerA),
        400,
        'invalid_request',
      );
      const filed = await fileExport(accountId, ownerA);
      await refusedUnchanged(snapshot, () => post(`/api/admin/approvals/${filed.approvalId}/approve`, {}, ops), 403, 'forbidden');
      await refusedUnchanged(
        snapshot,
        () => post(`/api/admin/approvals/${filed.approvalId}/approve`, {}, ownerA),
        403,
        'same_operator',
      );
    });

    test('approved, the export is the result: the requester reads it for 24 hours, nobody else ever; then the job clears it', async () => {
      const accountId = await holder();
      const filed = await fileExport(accountId, ownerA);
      assert.equal(filed.tenant, null, 'a platform action');
      const approved = ok(await post(`/api/admin/approvals/${filed.approvalId}/approve`, {}, ownerB));
      assert.equal(approved.approval.state, 'approved');
      assert.equal(approved.approval.result, null, 'the approver does not read it');

      const expected = await (await rail.services(accountModule)).data.export(accountId);
      const mine = ok(await get(`/api/admin/approvals/${filed.approvalId}`, ownerA));
      const exported = mine.result.export;
      assert.equal(exported.format, 'openrail-account-export/2');
      assert.equal(exported.accountId, accountId);
      assert.deepEqual(exported.memberships, expected.memberships, 'what POST /account/export gives the holder');
      assert.deepEqual(
        exported.memberships[0].coinLedger.map((e: { delta: number }) => e.delta),
        [50, -20],
      );
      assert.equal(ok(await get(`/api/admin/approvals/${filed.approvalId}`, auditor)).result, null);
      assert.equal(ok(await get(`/api/admin/approvals/${filed.approvalId}`, owner)).result, null);
      const listed = ok(await get('/api/admin/approvals?action=subject.export', ownerB)).approvals as Array<{
        approvalId: string;
        result: unknown;
      }>;
      assert.equal(listed.find((a) => a.approvalId === filed.approvalId)?.result, null);
      const audit = await rail.db.selectFrom('audit_log').select('detail').where('target', '=', filed.approvalId).execute();
      assert.ok(
        audit.every((e) => !e.detail.includes('Grace') && !e.detail.includes('Spring')),
        'the audit log never carries the export',
      );

      try {
        const approvedAt = Date.parse(approved.approval.decidedAt);
        frozen = approvedAt + EXPORT_RESULT_TTL_MS - 1;
        const late = await signedInOperator(rail.app, 'owner-late', ['owner']);
        assert.equal(ok(await get(`/api/admin/approvals/${filed.approvalId}`, late)).result, null, 'another owner, still not');
        const row = () =>
          rail.db.selectFrom('approvals').selectAll().where('id', '=', filed.approvalId).executeTakeFirstOrThrow();
        assert.ok((await row()).result !== null);
        frozen = approvedAt + EXPORT_RESULT_TTL_MS;
        const ran = await rail.jobs.tick();
        assert.ok(ran.includes('backoffice.approvals-clear-results'), ran.join(', '));
        assert.equal((await row()).result, null, 'the job cleared it');
        assert.equal((await row()).state, 'approved');
      } finally {
        frozen = undefined;
      }
    });

    test('the requester reads its export until 24 hours after the approval, not a moment later', async () => {
      const accountId = await holder();
      // The owner token never expires, so it can read across the 24 hours.
      const filed = await fileExport(accountId, owner);
      const approved = ok(await post(`/api/admin/approvals/${filed.approvalId}/approve`, {}, await freshOwner()));
      const approvedAt = Date.parse(approved.approval.decidedAt);
      try {
        frozen = approvedAt + EXPORT_RESULT_TTL_MS - 1;
        assert.equal(ok(await get(`/api/admin/approvals/${filed.approvalId}`, owner)).result.export.accountId, accountId);
        frozen = approvedAt + EXPORT_RESULT_TTL_MS;
        assert.equal(ok(await get(`/api/admin/approvals/${filed.approvalId}`, owner)).result, null, 'before the job runs');
      } finally {
        frozen = undefined;
      }
    });

    test("the account's erasure deletes every approval that names it, pending or decided", async () => {
      const accountId = await holder();
      const other = await holder();
      // A job run at a later clock pruned the sessions of the tests before: sign in anew.
      const second = await freshOwner();
      const decided = await fileExport(accountId, owner);
      ok(await post(`/api/admin/approvals/${decided.approvalId}/approve`, {}, second));
      const pending = await fileExport(accountId, second);
      const kept = await fileExport(other, second);
      const { erasure } = await rail.services(accountModule);
      const receipt = await erasure.erase(accountId);
      assert.equal(receipt.counts.approvals, 2);
      const left = await rail.db.selectFrom('approvals').select('id').where('account_id', '=', accountId).execute();
      assert.deepEqual(left, []);
      for (const id of [decided.approvalId, pending.approvalId]) {
        const res = await get(`/api/admin/approvals/${id}`, owner);
        assert.equal(res.statusCode, 404, res.body);
        assert.equal(res.json().error, 'unknown_approval');
      }
      assert.equal(ok(await get(`/api/admin/approvals/${kept.approvalId}`, owner)).state, 'pending', "another account's stays");
    });
  });
}
