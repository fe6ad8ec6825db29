/**
 * The approval desk over HTTP (docs/backoffice/approvals.md), on each engine: filing, listing and
 * reading approvals; four eyes (the requester never approves, not even the owner token); a bulk
 * revocation approved by a second operator, committed with its audit entries and events; an
 * action that fails on approval, which leaves the approval pending and nothing revoked; withdraw,
 * reject and the 409 of a decided approval; expiry on a test clock; a tenant-admin held to its
 * tenant on every operation; and, on PostgreSQL, approve and reject racing on one approval.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Type } from '@sinclair/typebox';
import type { LightMyRequestResponse } from 'fastify';
import { decodeJwt } from 'jose';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { issueOne, registerType } from '../../../test/helpers/issuance.ts';
import { signedInOperator } from '../../../test/helpers/operators.ts';
import { owner, ownerCalls, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import { ok, refusedUnchanged, rowCounts } from '../../../test/helpers/refusals.ts';
import { readAuditLog } from '../../adapters/sql/kernel/sql-audit-trail.ts';
import { readOutbox } from '../../adapters/sql/kernel/sql-event-outbox.ts';
import { defineModule } from '../../app/module.ts';
import { ServiceError } from '../../core/errors.ts';
import { decompressStatusList, readStatus } from '../../core/status-list/codec.ts';
import type { OperatorPrincipal } from '../../http/auth/operator-bearer.ts';
import { statusModule } from '../status/module.ts';
import { APPROVAL_TTL_MS } from './desk.ts';
import { approvalsModule } from './module.ts';

const TABLES = ['approvals', 'audit_log', 'outbox', 'issued_credentials'] as const;
const HOUR = 3_600_000;

/**
 * A four-eyes action that revokes what it names and then refuses: what an action failing on
 * approval looks like (its writes, the approval's and the audit entries must all roll back).
 */
const failingModule = defineModule({
  name: 'approvals-test',
  groups: [],
  runsUnmounted: true,
  async build(ctx) {
    const desk = await ctx.use(approvalsModule);
    const status = await ctx.use(statusModule);
    desk.register<{ tenant: string; credentialId: string }>({
      name: 'test.revoke-then-fail',
      summary: 'Revokes a credential, then refuses.',
      params: Type.Object({ tenant: Type.String(), credentialId: Type.String() }, { additionalProperties: false }),
      roles: ['owner', 'ops', 'tenant-admin'],
      tenantOf: (p) => p.tenant,
      async execute(_tx, p, context) {
        // The status service's own unit of work joins the approval's transaction.
        await status.revokeEach(p.tenant, [p.credentialId], context.actor);
        throw new ServiceError('conflict', 'The test action refuses after revoking.');
      },
    });
    return { services: {} };
  },
});

for (const factory of testDatabases()) {
  describe(`the approval desk (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    /** Real time, but for the expiry test, which holds it still at the moments it checks. */
    let frozen: number | undefined;
    const clock = { now: () => frozen ?? Date.now() };
    let alpha: { slug: string; typeId: string };
    let beta: { slug: string; typeId: string };
    let opsA: Record<string, string>;
    let opsB: Record<string, string>;
    let ownerB: Record<string, string>;
    let support: Record<string, string>;
    let auditor: Record<string, string>;
    let taAlpha: Record<string, string>;
    let taAlpha2: Record<string, string>;
    let taBeta: Record<string, string>;
    let tenants = 0;

    const { post, get } = ownerCalls(() => rail);
    const snapshot = () => rowCounts(rail.db, TABLES);
    const refuses = (send: () => Promise<LightMyRequestResponse>, status: number, code: string) =>
      refusedUnchanged(snapshot, send, status, code);

    const newTenant = async () => {
      const made = ok(await post('/api/tenants', { name: `Approval Lines ${++tenants}` }, owner), 201);
      const { typeId } = await registerType(rail.app, made.slug, `Pass ${tenants}`, ['holder']);
      return { slug: made.slug as string, typeId };
    };
    /** A credential issued for real: its id in the ledger and its status reference. */
    const issue = async (t: { slug: string; typeId: string }) => {
      const { credential } = await issueOne(rail.app, t.slug, t.typeId, { holder: 'Ada' });
      const ref = (decodeJwt(credential.split('~')[0] ?? '') as { status: { status_list: { uri: string; idx: number } } }).status
        .status_list;
      const row = await rail.db
        .selectFrom('issued_credentials')
        .select('id')
        .where('tenant', '=', t.slug)
        .where('idx', '=', ref.idx)
        .executeTakeFirstOrThrow();
      return { id: row.id, status: ref };
    };
    const revokedAt = async (id: string) =>
      (await rail.db.selectFrom('issued_credentials').select('revoked_at').where('id', '=', id).executeTakeFirstOrThrow())
        .revoked_at;
    /** The bit of a status reference in the signed list the service serves now. */
    const statusBit = async (ref: { uri: string; idx: number }) => {
      const res = await rail.app.inject({ method: 'GET', url: new URL(ref.uri).pathname });
      assert.equal(res.statusCode, 200, res.body);
      const lst = (decodeJwt(res.body) as { status_list: { lst: string } }).status_list.lst;
      return readStatus(decompressStatusList(lst), 1, ref.idx);
    };
    const file = async (action: string, params: Record<string, unknown>, headers: Record<string, string>, reason?: string) =>
      ok(await post('/api/admin/approvals', { action, params, ...(reason ? { reason } : {}) }, headers), 201);
    const decide = (id: string, verb: 'approve' | 'reject' | 'withdraw', headers: Record<string, string>, note?: string) =>
      post(`/api/admin/approvals/${id}/${verb}`, note === undefined ? {} : { note }, headers);
    const approvalRow = (id: string) =>
      rail.db.selectFrom('approvals').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const auditOf = async (target: string) => (await readAuditLog(rail.db, 1, 100_000)).filter((e) => e.target === target);

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, { OPENRAIL_DEMO: 'off' }, clock, { runJobs: false, extraModules: [failingModule] });
      alpha = await newTenant();
      beta = await newTenant();
      opsA = await signedInOperator(rail.app, 'ops-a', ['ops']);
      opsB = await signedInOperator(rail.app, 'ops-b', ['ops']);
      ownerB = await signedInOperator(rail.app, 'owner-b', ['owner']);
      support = await signedInOperator(rail.app, 'support-a', ['support']);
      auditor = await signedInOperator(rail.app, 'auditor-a', ['auditor']);
      taAlpha = await signedInOperator(rail.app, 'ta-alpha', ['tenant-admin'], alpha.slug);
      taAlpha2 = await signedInOperator(rail.app, 'ta-alpha-2', ['tenant-admin'], alpha.slug);
      taBeta = await signedInOperator(rail.app, 'ta-beta', ['tenant-admin'], beta.slug);
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('an operator files an approval: 201, pending for 72 hours, audited; it is read alone and in the list', async () => {
      const [c1, c2] = [await issue(alpha), await issue(alpha)];
      const filed = await file(
        'credentials.revoke-bulk',
        { tenant: alpha.slug, credentialIds: [c1.id, c2.id] },
        opsA,
        'Lost batch',
      );
      assert.equal(filed.ok, true);
      const a = filed.approval;
      assert.match(a.approvalId, /^apr_[A-Za-z0-9_-]{22}$/);
      assert.equal(a.action, 'credentials.revoke-bulk');
      assert.deepEqual(a.params, { tenant: alpha.slug, credentialIds: [c1.id, c2.id] });
      assert.equal(a.tenant, alpha.slug);
      assert.equal(a.state, 'pending');
      assert.equal(a.reason, 'Lost batch');
      assert.equal(a.requestedBy, 'operator:ops-a');
      assert.equal(Date.parse(a.expiresAt) - Date.parse(a.requestedAt), APPROVAL_TTL_MS);
      assert.equal(APPROVAL_TTL_MS, 72 * HOUR);
      assert.deepEqual([a.decidedBy, a.decidedAt, a.note, a.result], [null, null, null, null]);
      const [entry] = await auditOf(a.approvalId);
      assert.equal(entry?.seq, filed.auditSeq);
      assert.equal(entry?.action, 'approval.requested');
      assert.equal(entry?.actor, 'operator:ops-a');
      assert.equal(entry?.tenant, alpha.slug);
      assert.equal(await revokedAt(c1.id), null, 'nothing is revoked until a second operator approves');

      assert.deepEqual(ok(await get(`/api/admin/approvals/${a.approvalId}`, auditor)), a, 'an auditor reads it');
      const second = (await file('credentials.revoke-bulk', { tenant: alpha.slug, credentialIds: [c1.id] }, opsA)).approval;
      const listed = ok(await get(`/api/admin/approvals?tenant=${alpha.slug}`, auditor));
      const ids = listed.approvals.map((x: { approvalId: string }) => x.approvalId);
      assert.ok(ids.indexOf(second.approvalId) < ids.indexOf(a.approvalId), 'newest first');
      // One per page, through the cursor, ends with null.
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const q: string = `/api/admin/approvals?tenant=${alpha.slug}&limit=1${cursor ? `&cursor=${cursor}` : ''}`;
        const pageOf = ok(await get(q, auditor));
        assert.ok(pageOf.approvals.length <= 1);
        seen.push(...pageOf.approvals.map((x: { approvalId: string }) => x.approvalId));
        cursor = pageOf.nextCursor;
      } while (cursor !== null);
      assert.deepEqual(seen, ids);
      const byRequester = ok(await get('/api/admin/approvals?requestedBy=operator:ops-a&state=pending', auditor));
      assert.ok(byRequester.approvals.length >= 2);
      assert.ok(byRequester.approvals.every((x: { requestedBy: string }) => x.requestedBy === 'operator:ops-a'));
      assert.deepEqual(ok(await get('/api/admin/approvals?action=org.nothing', auditor)).approvals, []);
      assert.deepEqual(ok(await get('/api/admin/approvals?state=approved&requestedBy=nobody', auditor)).approvals, []);
      await refuses(() => get('/api/admin/approvals?state=done', auditor), 400, 'invalid_request');
      await refuses(() => get('/api/admin/approvals?limit=201', auditor), 400, 'invalid_request');
      await refuses(() => get('/api/admin/approvals/apr_nothing-here-012345678', auditor), 404, 'unknown_approval');
    });

    test('filing refuses an unknown action, bad params, a caller without the roles or tenant, an unknown target; nothing is written', async () => {
      const c = await issue(alpha);
      const body = (action: string, params: Record<string, unknown>) => ({ action, params });
      await refuses(() => post('/api/admin/approvals', body('org.explode', { tenant: alpha.slug }), opsA), 400, 'unknown_action');
      const empty = await refuses(
        () => post('/api/admin/approvals', body('credentials.revoke-bulk', { tenant: alpha.slug, credentialIds: [] }), opsA),
        400,
        'invalid_request',
      );
      assert.match(empty.json().message, /params\/credentialIds/);
      const twice = await refuses(
        () =>
          post(
            '/api/admin/approvals',
            body('credentials.revoke-bulk', { tenant: alpha.slug, credentialIds: [c.id, c.id] }),
            opsA,
          ),
        400,
        'invalid_request',
      );
      assert.match(twice.json().message, /params\/credentialIds/);
      const extra = await refuses(
        () =>
          post('/api/admin/approvals', body('credentials.revoke-bulk', { tenant: alpha.slug, typeId: alpha.typeId, x: 1 }), opsA),
        400,
        'invalid_request',
      );
      assert.match(extra.json().message, /"x"/);
      const many = Array.from({ length: 501 }, (_, i) => `crd_${String(i).padStart(22, '0')}`);
      await refuses(
        () => post('/api/admin/approvals', body('credentials.revoke-bulk', { tenant: alpha.slug, credentialIds: many }), opsA),
        400,
        'invalid_request',
      );
      await refuses(
        () =>
          post(
            '/api/admin/approvals',
            body('credentials.revoke-bulk', { tenant: alpha.slug, credentialIds: [c.id], typeId: alpha.typeId }),
            opsA,
          ),
        400,
        'invalid_request',
      );
      // support holds approvals-write but not the action's roles; auditor not even the row.
      await refuses(
        () =>
          post('/api/admin/approvals', body('credentials.revoke-bulk', { tenant: alpha.slug, credentialIds: [c.id] }), support),
        403,
        'forbidden',
      );
      await refuses(
        () =>
          post('/api/admin/approvals', body('credentials.revoke-bulk', { tenant: alpha.slug, credentialIds: [c.id] }), auditor),
        403,
        'forbidden',
      );
      // A tenant-admin files for its own tenant only, and never a platform action.
      await refuses(
        () =>
          post('/api/admin/approvals', body('credentials.revoke-bulk', { tenant: alpha.slug, credentialIds: [c.id] }), taBeta),
        403,
        'forbidden',
      );
      await refuses(
        () =>
          post(
            '/api/admin/approvals',
            body('subject.export', { accountId: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs' }),
            taAlpha,
          ),
        403,
        'forbidden',
      );
      // Targets that do not exist, or are another tenant's.
      const theirs = await issue(beta);
      await refuses(
        () =>
          post('/api/admin/approvals', body('credentials.revoke-bulk', { tenant: alpha.slug, credentialIds: [theirs.id] }), opsA),
        404,
        'unknown_credential',
      );
      await refuses(
        () => post('/api/admin/approvals', body('credentials.revoke-bulk', { tenant: 'nowhere', credentialIds: [c.id] }), opsA),
        404,
        'unknown_tenant',
      );
      await refuses(
        () => post('/api/admin/approvals', body('credentials.revoke-bulk', { tenant: alpha.slug, typeId: 'no-such-type' }), opsA),
        404,
        'unknown_type',
      );
      assert.equal(await revokedAt(c.id), null);
    });

    test('four eyes: the requester cannot approve, not even the owner token; nothing changes', async () => {
      const c = await issue(alpha);
      const mine = (await file('credentials.revoke-bulk', { tenant: alpha.slug, credentialIds: [c.id] }, opsA)).approval;
      await refuses(() => decide(mine.approvalId, 'approve', opsA), 403, 'same_operator');
      await refuses(() => decide(mine.approvalId, 'reject', opsA), 403, 'same_operator');
      const ownerToken = (await file('credentials.revoke-bulk', { tenant: alpha.slug, credentialIds: [c.id] }, owner)).approval;
      assert.equal(ownerToken.requestedBy, 'owner-token');
      await refuses(() => decide(ownerToken.approvalId, 'approve', owner), 403, 'same_operator');
      // Holding approvals-write is not enough: the action's roles are needed too.
      await refuses(() => decide(mine.approvalId, 'approve', support), 403, 'forbidden');
      await refuses(() => decide(mine.approvalId, 'reject', support), 403, 'forbidden');
      await refuses(() => decide(mine.approvalId, 'approve', auditor), 403, 'forbidden');
      assert.equal(await revokedAt(c.id), null);
      assert.equal((await approvalRow(mine.approvalId)).state, 'pending');
      assert.equal((await approvalRow(ownerToken.approvalId)).state, 'pending');
    });

    test('a second operator approves: the credentials, their audit entries and events commit with the approval', async () => {
      const [c1, c2, c3] = [await issue(alpha), await issue(alpha), await issue(alpha)];
      ok(await post(`/api/tenants/${alpha.slug}/revoke`, { credentialId: c3.id }, owner));
      const filed = (await file('credentials.revoke-bulk', { tenant: alpha.slug, credentialIds: [c1.id, c2.id, c3.id] }, opsA))
        .approval;
      const auditBefore = (await readAuditLog(rail.db, 1, 100_000)).length;
      const eventsBefore = (await readOutbox(rail.db, 0, 100_000)).length;
      const approved = ok(await decide(filed.approvalId, 'approve', opsB, 'Checked with the issuer'));
      assert.equal(approved.ok, true);
      assert.equal(approved.approval.state, 'approved');
      assert.equal(approved.approval.decidedBy, 'operator:ops-b');
      assert.equal(approved.approval.note, 'Checked with the issuer');
      assert.deepEqual(approved.approval.result, { revoked: 2, alreadyRevoked: 1 });
      assert.ok((await revokedAt(c1.id)) !== null && (await revokedAt(c2.id)) !== null);
      assert.equal(await statusBit(c1.status), 1, 'the status list shows it revoked');
      assert.equal(await statusBit(c2.status), 1);

      const added = (await readAuditLog(rail.db, 1, 100_000)).slice(auditBefore);
      assert.deepEqual(
        added
          .slice(0, -1)
          .map((e) => [e.action, e.actor, e.tenant, e.target])
          .sort(),
        [c1.id, c2.id].sort().map((id) => ['credential.revoked', 'operator:ops-b', alpha.slug, id]),
        'one entry per credential revoked now, as POST /api/tenants/{tenant}/revoke writes',
      );
      assert.deepEqual(
        added.slice(-1).map((e) => [e.action, e.actor, e.tenant, e.target]),
        [['approval.approved', 'operator:ops-b', alpha.slug, filed.approvalId]],
        'then the approval, in the same commit',
      );
      assert.equal(approved.auditSeq, added.at(-1)?.seq);
      const events = (await readOutbox(rail.db, 0, 100_000)).slice(eventsBefore);
      assert.deepEqual(
        events.map((e) => [e.type, e.tenant, (e.data as { credentialId: string }).credentialId]).sort(),
        [c1.id, c2.id].sort().map((id) => ['credential.revoked', alpha.slug, id]),
      );

      // Decided: every further decision is 409, and changes nothing.
      await refuses(() => decide(filed.approvalId, 'approve', ownerB), 409, 'approval_state');
      await refuses(() => decide(filed.approvalId, 'reject', ownerB), 409, 'approval_state');
      await refuses(() => decide(filed.approvalId, 'withdraw', opsA), 409, 'approval_state');
      assert.deepEqual(ok(await get(`/api/admin/approvals/${filed.approvalId}`, opsA)).result, { revoked: 2, alreadyRevoked: 1 });
    });

    test('by type: every credential of the type still valid is revoked on approval, counted', async () => {
      const t = await newTenant();
      const [c1, c2, c3] = [await issue(t), await issue(t), await issue(t)];
      const filed = (await file('credentials.revoke-bulk', { tenant: t.slug, typeId: t.typeId }, ownerB)).approval;
      ok(await post(`/api/tenants/${t.slug}/revoke`, { credentialId: c1.id }, owner));
      const approved = ok(await decide(filed.approvalId, 'approve', opsB));
      assert.deepEqual(approved.approval.result, { revoked: 2, alreadyRevoked: 0 });
      for (const c of [c1, c2, c3]) assert.equal(await statusBit(c.status), 1);
      const empty = await newTenant();
      await refuses(
        () =>
          post(
            '/api/admin/approvals',
            { action: 'credentials.revoke-bulk', params: { tenant: empty.slug, typeId: empty.typeId } },
            opsA,
          ),
        404,
        'unknown_credential',
      );
    });

    test('an action that fails on approval leaves the approval pending, nothing revoked, no entry, no event', async () => {
      const c = await issue(alpha);
      const filed = (await file('test.revoke-then-fail', { tenant: alpha.slug, credentialId: c.id }, opsA)).approval;
      await refuses(() => decide(filed.approvalId, 'approve', opsB), 409, 'conflict');
      assert.equal(await revokedAt(c.id), null, 'the revocation inside the action rolled back');
      assert.equal(await statusBit(c.status), 0);
      const row = await approvalRow(filed.approvalId);
      assert.deepEqual([row.state, row.decided_by, row.result], ['pending', null, null]);
      assert.deepEqual(
        (await auditOf(filed.approvalId)).map((e) => e.action),
        ['approval.requested'],
      );
      assert.equal((await auditOf(c.id)).length, 0);
      // Still pending: it can be rejected.
      assert.equal(ok(await decide(filed.approvalId, 'reject', opsB)).approval.state, 'rejected');
    });

    test('withdraw is the requester’s only; reject is anyone else’s who could approve; both audited, both final', async () => {
      const c = await issue(alpha);
      const one = (await file('credentials.revoke-bulk', { tenant: alpha.slug, credentialIds: [c.id] }, opsA)).approval;
      await refuses(() => decide(one.approvalId, 'withdraw', opsB), 403, 'forbidden');
      await refuses(() => decide(one.approvalId, 'withdraw', owner), 403, 'forbidden');
      const withdrawn = ok(await decide(one.approvalId, 'withdraw', opsA, 'Filed by mistake'));
      assert.equal(withdrawn.approval.state, 'withdrawn');
      assert.equal(withdrawn.approval.decidedBy, 'operator:ops-a');
      const entries = await auditOf(one.approvalId);
      assert.deepEqual(
        entries.map((e) => [e.action, e.actor]),
        [
          ['approval.requested', 'operator:ops-a'],
          ['approval.withdrawn', 'operator:ops-a'],
        ],
      );
      assert.equal(withdrawn.auditSeq, entries[1]?.seq);
      await refuses(() => decide(one.approvalId, 'approve', opsB), 409, 'approval_state');
      await refuses(() => decide(one.approvalId, 'withdraw', opsA), 409, 'approval_state');

      const two = (await file('credentials.revoke-bulk', { tenant: alpha.slug, credentialIds: [c.id] }, opsA)).approval;
      const rejected = ok(await decide(two.approvalId, 'reject', ownerB, 'Not this one'));
      assert.deepEqual(
        [rejected.approval.state, rejected.approval.decidedBy, rejected.approval.note],
        ['rejected', 'operator:owner-b', 'Not this one'],
      );
      assert.deepEqual(
        (await auditOf(two.approvalId)).map((e) => [e.action, e.actor]),
        [
          ['approval.requested', 'operator:ops-a'],
          ['approval.rejected', 'operator:owner-b'],
        ],
      );
      await refuses(() => decide(two.approvalId, 'approve', opsB), 409, 'approval_state');
      await refuses(() => decide(two.approvalId, 'withdraw', opsA), 409, 'approval_state');
      assert.equal(await revokedAt(c.id), null);
      const rejectedList = ok(await get(`/api/admin/approvals?state=rejected&tenant=${alpha.slug}`, auditor)).approvals;
      assert.ok(rejectedList.some((x: { approvalId: string }) => x.approvalId === two.approvalId));
      assert.ok(rejectedList.every((x: { state: string }) => x.state === 'rejected'));
    });

    test('a tenant-admin sees and decides only its own tenant’s approvals, never a platform one', async () => {
      const mine = await issue(alpha);
      const theirs = await issue(beta);
      const alphaOne = (await file('credentials.revoke-bulk', { tenant: alpha.slug, credentialIds: [mine.id] }, taAlpha))
        .approval;
      const betaOne = (await file('credentials.revoke-bulk', { tenant: beta.slug, credentialIds: [theirs.id] }, opsA)).approval;
      const betaTwo = (await file('test.revoke-then-fail', { tenant: beta.slug, credentialId: theirs.id }, opsA)).approval;

      const listedBeta = ok(await get('/api/admin/approvals', taBeta)).approvals as Array<{ tenant: string; approvalId: string }>;
      assert.ok(listedBeta.length >= 1);
      assert.ok(
        listedBeta.every((x) => x.tenant === beta.slug),
        'its own tenant only',
      );
      assert.ok(listedBeta.some((x) => x.approvalId === betaOne.approvalId));
      await refuses(() => get(`/api/admin/approvals?tenant=${alpha.slug}`, taBeta), 403, 'forbidden');
      await refuses(() => get(`/api/admin/approvals/${alphaOne.approvalId}`, taBeta), 404, 'unknown_approval');
      for (const verb of ['approve', 'reject', 'withdraw'] as const) {
        await refuses(() => decide(alphaOne.approvalId, verb, taBeta), 404, 'unknown_approval');
      }
      assert.equal(ok(await get(`/api/admin/approvals/${alphaOne.approvalId}`, taAlpha2)).approvalId, alphaOne.approvalId);
      assert.ok(
        (ok(await get('/api/admin/approvals', taAlpha)).approvals as Array<{ tenant: string }>).every(
          (x) => x.tenant === alpha.slug,
        ),
      );

      // A platform approval (no tenant) is invisible to every tenant-admin.
      const accountId = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';
      ok(await post('/api/members/enroll', { tenant: alpha.slug, accountId, displayName: 'Grace' }, owner), 201);
      const exportOne = (await file('subject.export', { accountId }, ownerB)).approval;
      assert.equal(exportOne.tenant, null);
      await refuses(() => get(`/api/admin/approvals/${exportOne.approvalId}`, taAlpha), 404, 'unknown_approval');
      await refuses(() => decide(exportOne.approvalId, 'reject', taAlpha), 404, 'unknown_approval');
      assert.ok(
        !(ok(await get('/api/admin/approvals', taAlpha)).approvals as Array<{ approvalId: string }>).some(
          (x) => x.approvalId === exportOne.approvalId,
        ),
      );
      ok(await get(`/api/admin/approvals/${exportOne.approvalId}`, auditor));

      // What the desk offers each operator to decide: not its own, its roles, its tenant.
      const desk = await rail.services(approvalsModule);
      const principal = (
        username: string,
        roles: OperatorPrincipal['roles'],
        tenant: string | null = null,
      ): OperatorPrincipal => ({
        plane: 'operator',
        via: 'session',
        username,
        roles,
        tenant,
      });
      const pendingIds = async (p: OperatorPrincipal) => (await desk.pendingFor(p, 200)).map((a) => a.approvalId);
      const forOpsB = await pendingIds(principal('ops-b', ['ops']));
      assert.ok(forOpsB.includes(betaOne.approvalId) && forOpsB.includes(alphaOne.approvalId));
      assert.ok(!forOpsB.includes(exportOne.approvalId), 'subject.export is for owners');
      assert.ok(!(await pendingIds(principal('ops-a', ['ops']))).includes(betaOne.approvalId), 'not its own');
      assert.deepEqual(await pendingIds(principal('support-a', ['support'])), [], 'no action of its roles');
      const forTaBeta = await pendingIds(principal('ta-beta', ['tenant-admin'], beta.slug));
      assert.ok(forTaBeta.includes(betaOne.approvalId) && forTaBeta.includes(betaTwo.approvalId));
      assert.ok(!forTaBeta.includes(alphaOne.approvalId));
      assert.ok((await pendingIds(principal('owner-c', ['owner']))).includes(exportOne.approvalId));

      // The other admin of alpha approves alpha's.
      const done = ok(await decide(alphaOne.approvalId, 'approve', taAlpha2));
      assert.deepEqual(done.approval.result, { revoked: 1, alreadyRevoked: 0 });
      assert.equal(await statusBit(mine.status), 1);
      assert.equal(await statusBit(theirs.status), 0);
    });

    test('expiry: a pending approval past 72 hours reads expired at once, cannot be decided, and the job marks it', async () => {
      const c = await issue(alpha);
      const filed = (await file('credentials.revoke-bulk', { tenant: alpha.slug, credentialIds: [c.id] }, owner)).approval;
      try {
        const filedAt = Date.parse(filed.requestedAt);
        frozen = filedAt + APPROVAL_TTL_MS - 1;
        const decider = await signedInOperator(rail.app, 'ops-late-1', ['ops']);
        assert.equal(ok(await get(`/api/admin/approvals/${filed.approvalId}`, decider)).state, 'pending');
        frozen = filedAt + APPROVAL_TTL_MS;
        const late = await signedInOperator(rail.app, 'ops-late-2', ['ops']);
        assert.equal(ok(await get(`/api/admin/approvals/${filed.approvalId}`, late)).state, 'expired', 'before the job runs');
        assert.equal((await approvalRow(filed.approvalId)).state, 'pending');
        const inList = async (state: string) =>
          (
            ok(await get(`/api/admin/approvals?state=${state}&tenant=${alpha.slug}`, late)).approvals as Array<{
              approvalId: string;
            }>
          ).some((x) => x.approvalId === filed.approvalId);
        assert.equal(await inList('expired'), true);
        assert.equal(await inList('pending'), false);
        await refuses(() => decide(filed.approvalId, 'approve', late), 409, 'approval_state');
        await refuses(() => decide(filed.approvalId, 'reject', late), 409, 'approval_state');
        await refuses(() => decide(filed.approvalId, 'withdraw', owner), 409, 'approval_state');
        assert.equal(await revokedAt(c.id), null);
        const desk = await rail.services(approvalsModule);
        assert.ok(
          !(await desk.pendingFor({ plane: 'operator', via: 'session', username: 'x', roles: ['ops'], tenant: null }, 200)).some(
            (a) => a.approvalId === filed.approvalId,
          ),
        );
        const ran = await rail.jobs.tick();
        assert.ok(ran.includes('backoffice.approvals-expire'), ran.join(', '));
        assert.equal((await approvalRow(filed.approvalId)).state, 'expired', 'the job marked it');
        assert.equal(await inList('expired'), true);
      } finally {
        frozen = undefined;
      }
    });

    test('PostgreSQL: approve and reject fired together on one approval: exactly one wins, the other gets 409', {
      skip: factory.name !== 'postgres',
    }, async () => {
      const first = await signedInOperator(rail.app, 'race-ops', ['ops']);
      const second = await signedInOperator(rail.app, 'race-owner', ['owner']);
      const outcomes = new Set<string>();
      for (let round = 0; round < 10; round++) {
        const c = await issue(alpha);
        const filed = (await file('credentials.revoke-bulk', { tenant: alpha.slug, credentialIds: [c.id] }, owner)).approval;
        const [approve, reject] = await Promise.all([
          decide(filed.approvalId, 'approve', first),
          decide(filed.approvalId, 'reject', second),
        ]);
        const codes = [approve.statusCode, reject.statusCode].sort();
        assert.deepEqual(codes, [200, 409], `${approve.body} / ${reject.body}`);
        const loser = approve.statusCode === 409 ? approve : reject;
        assert.equal(loser.json().error, 'approval_state');
        const won = approve.statusCode === 200 ? 'approved' : 'rejected';
        outcomes.add(won);
        const row = await approvalRow(filed.approvalId);
        assert.equal(row.state, won);
        assert.equal((await revokedAt(c.id)) !== null, won === 'approved', 'revoked exactly when approved');
        const decisions = (await auditOf(filed.approvalId)).filter((e) => e.action !== 'approval.requested');
        assert.deepEqual(
          decisions.map((e) => e.action),
          [`approval.${won}`],
        );
      }
      assert.ok(outcomes.size >= 1);
    });
  });
}
