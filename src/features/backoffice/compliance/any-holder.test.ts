/**
 * Data-subject requests for every holder (docs/backoffice/compliance.md), on each engine: an
 * account the service holds data of without any membership is exported and can be refused on a
 * ground; the lookup and the inventory find the subject in the audit chain too, and say what an
 * erasure keeps and why; one export per access request; a negative response answers the access
 * request it names, whose own records are not data held on the subject.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, testDatabases } from '../../../../test/helpers/databases.ts';
import { FULL_HOLDER_PEPPER, fullHolders } from '../../../../test/helpers/full-holder.ts';
import { accountOf, newHolderKey } from '../../../../test/helpers/holder.ts';
import { signedInOperator } from '../../../../test/helpers/operators.ts';
import { owner, PUBLIC_URL, railOn, stopRail, type TestRail } from '../../../../test/helpers/rail.ts';
import { ok, refusedUnchanged, rowCounts } from '../../../../test/helpers/refusals.ts';
import type { SubjectPlace as Place } from '../../../ports/compliance-store.ts';

const BASE = '/api/admin/compliance';
type Headers = Record<string, string>;

for (const factory of testDatabases()) {
  describe(`compliance: every holder is answered (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    // The wall clock, moved on when a test lets something expire.
    let skew = 0;
    const clock = { now: () => Date.now() + skew };
    const holders = fullHolders(() => rail, clock.now);
    let ownerA: Headers;
    let ownerB: Headers;
    let ops: Headers;
    let support: Headers;
    let auditor: Headers;

    const post = (url: string, payload: unknown, headers: Headers) =>
      rail.app.inject({
        method: 'POST',
        url: url.startsWith('/api/') ? url : `${BASE}${url}`,
        headers,
        payload: payload as object,
      });
    const get = (url: string, headers: Headers) =>
      rail.app.inject({ method: 'GET', url: url.startsWith('/api/') ? url : `${BASE}${url}`, headers });
    const snapshot = () => rowCounts(rail.db, ['compliance_requests', 'approvals', 'audit_log', 'outbox']);
    const lookup = async (subject: Record<string, string>) =>
      ok(await post('/dsar/lookup', { subject }, auditor)) as { held: boolean; places: Place[] };
    const place = (found: { places: Place[] }, table: string, column: string) =>
      found.places.find((p) => p.table === table && p.column === column);

    /** A holder with a deposited bill (a wallet item and a deposit) and a portal session: no membership anywhere. */
    const nonMember = async () => {
      const key = await newHolderKey();
      const accountId = accountOf(key);
      const title = `Water bill ${randomBytes(4).toString('hex')}`;
      const bill = {
        contractVersion: '0.3.0',
        depositId: `bill-${randomBytes(6).toString('hex')}`,
        accountId,
        kind: 'bill',
        title,
        issuedAt: '2026-11-01T08:00:00Z',
        amount: { value: 1999, currency: 'EUR' },
      };
      ok(await post('/api/tenants/alpha/bills', bill, owner), 201);
      const session = await rail.app.inject({ method: 'POST', url: '/account/session', headers: await holders.asHolder(key) });
      assert.equal(session.statusCode, 303, session.body);
      return { accountId, title };
    };

    before(async () => {
      ({ db, rail } = await railOn(factory, { OPENRAIL_DIRECTORY_PEPPER: FULL_HOLDER_PEPPER }, clock, { runJobs: false }));
      await holders.prepare();
      ownerA = await signedInOperator(rail.app, 'owner-a', ['owner']);
      ownerB = await signedInOperator(rail.app, 'owner-b', ['owner']);
      ops = await signedInOperator(rail.app, 'ops-x', ['ops']);
      support = await signedInOperator(rail.app, 'support-x', ['support']);
      auditor = await signedInOperator(rail.app, 'auditor-x', ['auditor']);
    });
    after(() => stopRail(rail, db));

    test('an account with data and no membership is found and exported through four eyes', async () => {
      const { accountId, title } = await nonMember();
      const found = await lookup({ accountId });
      assert.equal(found.held, true);
      assert.equal(place(found, 'members', 'account_id'), undefined, 'no membership');
      for (const [table, column] of [
        ['wallet_items', 'account_id'],
        ['deposits', 'account_id'],
        ['account_sessions', 'account_id'],
      ] as const) {
        assert.ok((place(found, table, column)?.count ?? 0) >= 1, `${table}.${column}`);
      }

      await refusedUnchanged(
        snapshot,
        () => post('/dsar/export', { accountId: randomBytes(32).toString('base64url'), source: 'E-mail' }, ownerA),
        404,
        'unknown_account',
      );
      const filed = ok(await post('/dsar/export', { accountId, source: 'Letter of 2 November' }, ownerA), 202);
      ok(await post(`/api/admin/approvals/${filed.approval.approvalId}/approve`, {}, ownerB));
      const approval = ok(await get(`/api/admin/approvals/${filed.approval.approvalId}`, ownerA));
      const exported = approval.result.export;
      assert.equal(exported.accountId, accountId);
      assert.deepEqual(exported.memberships, []);
      assert.equal(exported.records.deposits[0].body.title, title, 'the deposit with its contents');
      assert.ok(exported.records.walletItems.length >= 1);
      const listed = ok(await get('/dsar/requests?state=answered', auditor)).requests.find(
        (r: { requestId: string }) => r.requestId === filed.request.requestId,
      );
      assert.equal(listed.outcome, 'exported');

      // Filed at the desk itself, the same rule: any account the lookup finds.
      const other = await nonMember();
      const desk = ok(
        await post('/api/admin/approvals', { action: 'subject.export', params: { accountId: other.accountId } }, ownerA),
        201,
      );
      assert.equal(desk.approval.state, 'pending');
    });

    test('an access request refused on a ground: audited, listed as refused, never refused or answered again', async () => {
      const { accountId } = await nonMember();
      const body = { subject: { accountId }, source: 'E-mail', ground: 'manifestly-unfounded', note: 'The fifth this week' };
      for (const headers of [support, auditor])
        await refusedUnchanged(snapshot, () => post('/dsar/refuse', body, headers), 403, 'forbidden');
      await refusedUnchanged(snapshot, () => post('/dsar/refuse', { ...body, ground: 'because' }, ops), 400, 'invalid_request');

      const refused = ok(await post('/dsar/refuse', body, ops));
      assert.equal(refused.ok, true);
      assert.deepEqual(
        [
          refused.request.state,
          refused.request.ground,
          refused.request.note,
          refused.request.answeredBy,
          refused.request.outcome,
        ],
        ['refused', 'manifestly-unfounded', 'The fifth this week', 'operator:ops-x', null],
      );
      assert.deepEqual(refused.request.subject, { kind: 'account', value: accountId });
      const entry = await rail.db
        .selectFrom('audit_log')
        .selectAll()
        .where('seq', '=', refused.auditSeq)
        .executeTakeFirstOrThrow();
      assert.deepEqual([entry.action, entry.target, entry.tenant], ['dsar.refused', refused.request.requestId, null]);
      assert.deepEqual(JSON.parse(entry.detail), { ground: 'manifestly-unfounded', subjectKind: 'account' });
      const listed = ok(await get('/dsar/requests?state=refused', auditor)).requests;
      assert.deepEqual(
        listed.map((r: { requestId: string }) => r.requestId),
        [refused.request.requestId],
      );

      const again = { ...body, requestId: refused.request.requestId };
      await refusedUnchanged(snapshot, () => post('/dsar/refuse', again, ops), 409, 'request_state');
      await refusedUnchanged(
        snapshot,
        () => post('/dsar/export', { accountId, source: 'E-mail', requestId: refused.request.requestId }, ownerA),
        409,
        'request_state',
      );
      // Whom the service cannot identify is refused as well: any subject.
      const stranger = ok(
        await post(
          '/dsar/refuse',
          { subject: { email: 'Who@Example.org' }, source: 'Phone call', ground: 'cannot-identify' },
          ownerA,
        ),
      );
      assert.deepEqual(stranger.request.subject, { kind: 'email', value: 'who@example.org' });
    });

    test('one export per request: filed again while one is pending or answered is refused; after a rejection it is filed anew', async () => {
      const accountId = randomBytes(32).toString('base64url');
      ok(await post('/api/members/enroll', { tenant: 'alpha', accountId, displayName: 'Ada' }, owner), 201);
      const first = ok(await post('/dsar/export', { accountId, source: 'Desk' }, ownerA), 202);
      const requestId = first.request.requestId;
      const again = { accountId, source: 'Desk', requestId };
      await refusedUnchanged(snapshot, () => post('/dsar/export', again, ownerA), 409, 'request_state');
      await refusedUnchanged(snapshot, () => post('/dsar/export', again, ownerB), 409, 'request_state');
      await refusedUnchanged(
        snapshot,
        () => post('/dsar/refuse', { subject: { accountId }, source: 'Desk', requestId, ground: 'legal-hold' }, ops),
        409,
        'request_state',
      );

      ok(await post(`/api/admin/approvals/${first.approval.approvalId}/reject`, { note: 'Identity not checked' }, ownerB));
      const second = ok(await post('/dsar/export', again, ownerA), 202);
      assert.equal(second.request.requestId, requestId);
      assert.notEqual(second.approval.approvalId, first.approval.approvalId);
      ok(await post(`/api/admin/approvals/${second.approval.approvalId}/approve`, {}, ownerB));
      await refusedUnchanged(snapshot, () => post('/dsar/export', again, ownerA), 409, 'request_state');
      const exports = await rail.db
        .selectFrom('approvals')
        .select('state')
        .where('action', '=', 'subject.export')
        .where('account_id', '=', accountId)
        .orderBy('requested_at')
        .execute();
      assert.deepEqual(
        exports.map((a) => a.state),
        ['rejected', 'approved'],
      );
    });

    test('a negative response answers the access request it names: the request and its exports are not data held', async () => {
      // A holder known only by a portal session: the export is filed while the session is held.
      const key = await newHolderKey();
      const accountId = accountOf(key);
      const session = await rail.app.inject({ method: 'POST', url: '/account/session', headers: await holders.asHolder(key) });
      assert.equal(session.statusCode, 303, session.body);
      const cookie = /openrail_account=[^;]+/.exec(String(session.headers['set-cookie']))?.[0] ?? '';
      const filed = ok(await post('/dsar/export', { accountId, source: 'Letter of 3 November' }, ownerA), 202);
      const requestId = filed.request.requestId;
      ok(await post(`/api/admin/approvals/${filed.approval.approvalId}/reject`, { note: 'Identity not checked' }, ownerB));
      const again = ok(await post('/dsar/export', { accountId, source: 'Letter', requestId }, ownerA), 202);
      ok(await post(`/api/admin/approvals/${again.approval.approvalId}/reject`, { note: 'Still not checked' }, ownerB));

      // Then the holder signs out and its replay marks expire: what is left is the request and its two exports.
      const out = await rail.app.inject({
        method: 'POST',
        url: '/account/signout',
        headers: { origin: PUBLIC_URL, cookie },
      });
      assert.equal(out.statusCode, 303, out.body);
      skew += 15 * 60_000;
      await rail.jobs.tick();
      const left = await lookup({ accountId });
      assert.deepEqual(left.places.map((p) => [`${p.table}.${p.column}`, p.count]).sort(), [
        ['approvals.account_id', 2],
        ['compliance_requests.account_id', 1],
      ]);

      // Another request is answered by what the service holds: this one's record and exports.
      await refusedUnchanged(
        snapshot,
        () => post('/dsar/negative-response', { subject: { accountId }, source: 'Phone call' }, support),
        409,
        'subject_held',
      );
      const answer = ok(await post('/dsar/negative-response', { subject: { accountId }, source: 'Letter', requestId }, support));
      assert.deepEqual(
        [answer.request.requestId, answer.request.state, answer.request.outcome, answer.request.answeredBy],
        [requestId, 'answered', 'negative', 'operator:support-x'],
      );
      const payload = JSON.parse(Buffer.from(String(answer.statement).split('.')[1] ?? '', 'base64url').toString());
      assert.deepEqual([payload.jti, payload.held, payload.subject], [requestId, false, { kind: 'account', value: accountId }]);
      const entry = await rail.db
        .selectFrom('audit_log')
        .selectAll()
        .where('seq', '=', answer.auditSeq)
        .executeTakeFirstOrThrow();
      assert.deepEqual([entry.action, entry.target], ['dsar.answered', requestId]);
      await refusedUnchanged(
        snapshot,
        () => post('/dsar/negative-response', { subject: { accountId }, source: 'Letter', requestId }, support),
        409,
        'request_state',
      );

      // A request held beside it is data held on the subject: the named one is not answered negative.
      const other = await rail.app.inject({ method: 'POST', url: '/account/session', headers: await holders.asHolder(key) });
      assert.equal(other.statusCode, 303, other.body);
      const second = ok(await post('/dsar/export', { accountId, source: 'Second letter' }, ownerA), 202);
      const third = ok(await post('/dsar/export', { accountId, source: 'Third letter' }, ownerA), 202);
      for (const filedNow of [second, third])
        ok(await post(`/api/admin/approvals/${filedNow.approval.approvalId}/reject`, { note: 'No' }, ownerB));
      await refusedUnchanged(
        snapshot,
        () =>
          post(
            '/dsar/negative-response',
            { subject: { accountId }, source: 'Letter', requestId: second.request.requestId },
            support,
          ),
        409,
        'subject_held',
      );
    });

    test('the audit chain: the lookup and the inventory find what names the subject, and say it is kept and why', async () => {
      const holder = await holders.make();
      const before = await lookup({ accountId: holder.accountId });
      const target = place(before, 'audit_log', 'target');
      assert.ok((target?.count ?? 0) >= 3, 'enrolled twice and coins: entries whose target is the account');
      assert.equal(target?.erasure, 'kept');
      assert.match(target?.erasureNote ?? '', /append-only/);
      assert.ok((place(before, 'audit_log', 'detail')?.count ?? 0) >= 1, 'entries whose details name it');
      assert.equal(place(before, 'members', 'account_id')?.erasure, 'delete');

      const filed = ok(await post('/erasure/requests', { accountId: holder.accountId, source: 'Letter' }, ops), 201);
      ok(await post(`/erasure/requests/${filed.request.requestId}/verify`, {}, ops));
      const erased = await lookup({ accountId: holder.accountId });
      assert.equal(erased.held, true, 'the audit chain still names the account');
      assert.equal(place(erased, 'members', 'account_id'), undefined);
      assert.ok((place(erased, 'audit_log', 'target')?.count ?? 0) >= (target?.count ?? 0));
      for (const p of erased.places) {
        assert.ok(['kept', 'expires'].includes(p.erasure), `${p.table}.${p.column}: ${p.erasure}`);
        assert.ok(p.erasureNote, `${p.table}.${p.column} says why`);
      }

      const operator = await lookup({ username: 'ops-x' });
      assert.ok((place(operator, 'audit_log', 'target')?.count ?? 0) >= 1, 'its creation names it as the target');

      const inventory = ok(await get('/meta-inventory', auditor)).columns as Array<{
        table: string;
        column: string;
        names: string;
        erasure: string;
        erasureNote: string | null;
      }>;
      for (const column of ['actor', 'target', 'detail']) {
        const row = inventory.find((c) => c.table === 'audit_log' && c.column === column && c.names === 'account');
        assert.equal(row?.erasure, 'kept', `audit_log.${column}`);
        assert.match(row?.erasureNote ?? '', /append-only/);
      }
    });
  });
}
