/**
 * One working day in the back office, across its groups (docs/backoffice.md, "Mutations"): every
 * change answers `ok: true` and the `auditSeq` of its own audit entry, the sequence numbers only
 * grow, and afterwards the whole chain verifies. Then a row edited directly in the database is
 * found, by seq.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SqlKernelViews } from '../src/adapters/sql/kernel/sql-kernel-views.ts';
import { verifyAuditChain } from '../src/features/backoffice/audit/audit-reader.ts';
import { type TestDatabase, testDatabases } from './helpers/databases.ts';
import { PASS_CLAIMS } from './helpers/issuance.ts';
import { signedInOperator } from './helpers/operators.ts';
import { owner, railOn, stopRail, type TestRail } from './helpers/rail.ts';

const PASSWORD = 'a-long-enough-password-42';

for (const factory of testDatabases()) {
  describe(`back-office mutations and the audit chain (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;

    before(async () => {
      ({ db, rail } = await railOn(factory, { OPENRAIL_DEMO: 'off' }, undefined, { runJobs: false }));
    });
    after(() => stopRail(rail, db));

    test('each change answers ok and its own, increasing auditSeq; the chain verifies, and an edited row is named', async () => {
      const ops = await signedInOperator(rail.app, 'ops-day', ['ops']);
      const ownerTwo = await signedInOperator(rail.app, 'owner-two', ['owner']);
      const seqs: number[] = [];
      /** Sends one change, checks its answer and that its auditSeq names an entry of `action`. */
      const change = async (url: string, payload: Record<string, unknown>, action: string, headers = owner) => {
        const res = await rail.app.inject({ method: 'POST', url: `/api/admin${url}`, headers, payload });
        assert.ok(res.statusCode >= 200 && res.statusCode < 300, `${url}: ${res.statusCode} ${res.body}`);
        const body = res.json();
        assert.equal(body.ok, true, url);
        assert.ok(Number.isInteger(body.auditSeq), url);
        const entry = await rail.db.selectFrom('audit_log').selectAll().where('seq', '=', body.auditSeq).executeTakeFirst();
        assert.equal(entry?.action, action, `${url}: the entry of auditSeq ${body.auditSeq}`);
        seqs.push(body.auditSeq);
        return body;
      };

      const { org } = await change('/orgs', { name: 'Day Org' }, 'tenant.created');
      const slug = org.slug as string;
      const invitee = { username: 'day-admin', email: 'day-admin@day-org.example', roles: ['support'], tenant: slug };
      await change('/people/operators', invitee, 'operator.created');
      await change('/people/operators/day-admin/invite', {}, 'operator.invited');
      await change(`/orgs/${slug}/admins`, { username: 'day-admin' }, 'operator.roles_changed');
      await change(`/orgs/${slug}/domain`, { domain: 'id.day-org.example' }, 'org.domain_requested');
      await change(`/orgs/${slug}/domain/revoke`, {}, 'org.domain_revoked');
      await change('/types', { tenant: slug, name: 'Day Pass', claims: PASS_CLAIMS }, 'type.registered', ops);
      await change('/people/operators', { username: 'day-staff', password: PASSWORD, roles: ['support'] }, 'operator.created');
      await change('/people/operators/day-staff/roles', { roles: ['support', 'analyst'] }, 'operator.roles_changed');
      await change('/people/operators/day-staff/password', { password: `${PASSWORD}-new` }, 'operator.password_changed');
      await change('/people/operators/day-staff/suspend', {}, 'operator.suspended');
      await change('/people/operators/day-staff/enable', {}, 'operator.enabled');
      const { approval } = await change(`/orgs/${slug}/suspend`, { reason: 'Closing for the day' }, 'approval.requested', ops);
      await change(`/approvals/${approval.approvalId}/approve`, {}, 'approval.approved', ownerTwo);
      await change(`/orgs/${slug}/reactivate`, { reason: 'Open again' }, 'org.reactivated');
      await change('/people/operators/day-staff/remove', {}, 'operator.removed');

      assert.deepEqual(
        seqs,
        [...seqs].sort((a, b) => a - b),
        'auditSeq only grows',
      );
      assert.equal(new Set(seqs).size, seqs.length, 'one entry per change');

      const log = new SqlKernelViews(rail.db);
      const whole = await verifyAuditChain(log);
      assert.equal(whole.verified, true, JSON.stringify(whole));
      assert.ok(whole.checked >= seqs.length);

      const edited = seqs[4] ?? 0;
      await rail.db.updateTable('audit_log').set({ actor: 'operator:someone-else' }).where('seq', '=', edited).execute();
      const broken = await verifyAuditChain(log);
      assert.equal(broken.verified, false);
      assert.equal(broken.firstBroken, edited);
    });
  });
}
