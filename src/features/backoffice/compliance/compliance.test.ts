/**
 * Compliance (docs/backoffice/compliance.md), on each engine: the data-subject lookup over the
 * holder-data registry, access requests answered by a signed negative response or the four-eyes
 * export, and erasure requests refused on a ground or verified through the portal's erasure.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeProtectedHeader, importJWK, type JWK, jwtVerify } from 'jose';
import { type TestDatabase, testDatabases } from '../../../../test/helpers/databases.ts';
import { FULL_HOLDER_PEPPER, type FullHolder, fullHolders, rowsNaming } from '../../../../test/helpers/full-holder.ts';
import { accountOf, type HolderKey } from '../../../../test/helpers/holder.ts';
import { issueOne, registerType } from '../../../../test/helpers/issuance.ts';
import { signedInOperator } from '../../../../test/helpers/operators.ts';
import { owner, PUBLIC_URL, railOn, stopRail, type TestRail } from '../../../../test/helpers/rail.ts';
import { ok, refusedUnchanged, rowCounts } from '../../../../test/helpers/refusals.ts';
import { HOLDER_DATA } from '../../../adapters/sql/holder-data.ts';
import { SqlKernelViews } from '../../../adapters/sql/kernel/sql-kernel-views.ts';
import { verifyAuditChain } from '../audit/audit-reader.ts';
import { NEGATIVE_RESPONSE_TYP, oneMonthAfter } from './compliance-service.ts';
import { PURPOSES } from './purposes.ts';

const BASE = '/api/admin/compliance';
type Headers = Record<string, string>;

describe('one calendar month after', () => {
  test('the same day next month, or the last day of a shorter month; the time of day kept', () => {
    assert.equal(new Date(oneMonthAfter(Date.parse('2026-01-15T10:30:00Z'))).toISOString(), '2026-02-15T10:30:00.000Z');
    assert.equal(new Date(oneMonthAfter(Date.parse('2026-01-31T08:00:00Z'))).toISOString(), '2026-02-28T08:00:00.000Z');
    assert.equal(new Date(oneMonthAfter(Date.parse('2028-01-31T08:00:00Z'))).toISOString(), '2028-02-29T08:00:00.000Z');
    assert.equal(new Date(oneMonthAfter(Date.parse('2026-12-20T23:59:59.999Z'))).toISOString(), '2027-01-20T23:59:59.999Z');
  });
});

describe('the record of processing’s activities', () => {
  test('every table the holder-data registry names belongs to exactly one activity, and each activity’s tables are registered', () => {
    const registered = new Set(HOLDER_DATA.map((c) => c.table));
    const activities = PURPOSES.filter((p) => p.kind === 'activity');
    for (const table of registered) {
      const owners = activities.filter((p) => p.tables.includes(table)).map((p) => p.purposeId);
      assert.equal(owners.length, 1, `${table}: ${owners.join(', ') || 'no activity'}`);
    }
    for (const p of activities)
      for (const table of p.tables) assert.ok(registered.has(table as never), `${p.purposeId}: ${table}`);
  });
});

for (const factory of testDatabases()) {
  describe(`compliance: data-subject requests (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let now = Date.now();
    const clock = { now: () => now };
    const holders = fullHolders(
      () => rail,
      () => now,
    );
    let ownerA: Headers;
    let ownerB: Headers;
    let ops: Headers;
    let auditor: Headers;
    let support: Headers;
    let analyst: Headers;
    let first: FullHolder;
    let second: FullHolder;

    const post = (url: string, payload: unknown, headers: Headers) =>
      rail.app.inject({ method: 'POST', url: `${BASE}${url}`, headers, payload: payload as object });
    const get = (url: string, headers: Headers) => rail.app.inject({ method: 'GET', url: `${BASE}${url}`, headers });
    const snapshot = () => rowCounts(rail.db, ['compliance_requests', 'approvals', 'audit_log', 'erasure_receipts', 'members']);
    const lookup = async (subject: Record<string, string>, headers = auditor) =>
      ok(await post('/dsar/lookup', { subject }, headers)) as {
        subject: { kind: string; value: string | null };
        held: boolean;
        places: { table: string; column: string; category: string; count: number }[];
        categories: { category: string; count: number }[];
      };
    const countIn = (found: Awaited<ReturnType<typeof lookup>>, table: string, column: string) =>
      found.places.find((p) => p.table === table && p.column === column)?.count ?? 0;

    before(async () => {
      now = Date.now();
      ({ db, rail } = await railOn(factory, { OPENRAIL_DIRECTORY_PEPPER: FULL_HOLDER_PEPPER }, clock, { runJobs: false }));
      await holders.prepare();
      ownerA = await signedInOperator(rail.app, 'owner-a', ['owner']);
      ownerB = await signedInOperator(rail.app, 'owner-b', ['owner']);
      ops = await signedInOperator(rail.app, 'ops-x', ['ops']);
      auditor = await signedInOperator(rail.app, 'auditor-x', ['auditor']);
      support = await signedInOperator(rail.app, 'support-x', ['support']);
      analyst = await signedInOperator(rail.app, 'analyst-x', ['analyst']);
      first = await holders.make();
      second = await holders.make();
      // A signed-in browser of the first holder: the portal's session names the account too.
      const session = await rail.app.inject({
        method: 'POST',
        url: '/account/session',
        headers: await holders.asHolder(first.key),
      });
      assert.equal(session.statusCode, 303, session.body);
    });
    after(() => stopRail(rail, db));

    test('a lookup by account finds the holder in every registered place, with the counts of its own rows only', async () => {
      const found = await lookup({ accountId: first.accountId });
      assert.equal(found.held, true);
      assert.deepEqual(found.subject, { kind: 'account', value: first.accountId });
      const rows = await rowsNaming(rail, first.accountId);
      for (const [table, column, expected] of [
        ['members', 'account_id', 2],
        ['coin_entries', 'account_id', rows.coin_entries],
        ['votes', 'account_id', 1],
        ['wallet_items', 'account_id', rows.wallet_items],
        ['deposits', 'account_id', 1],
        ['channels', 'account_id', 1],
        ['share_settings', 'account_id', rows.share_settings],
        ['sharing_log', 'account_id', rows.sharing_log],
        ['directory_listings', 'account_id', 1],
        ['directory_contacts', 'account_id', 1],
        ['account_sessions', 'account_id', 1],
        ['issued_credentials', 'holder_thumbprint', 1],
      ] as const) {
        assert.equal(countIn(found, table, column), expected, `${table}.${column}`);
      }
      assert.ok(countIn(found, 'audit_log', 'actor') >= 2, 'what the holder did: its vote and its listing');
      assert.ok(countIn(found, 'outbox', 'data') >= 1, 'events that name the account');
      assert.ok(found.categories.some((c) => c.category === 'memberships' && c.count === 2));
      // Counts and categories, never a row: nothing of the holder's data, nothing of the other holder.
      assert.doesNotMatch(JSON.stringify(found), new RegExp(`${first.marks.name}|${second.accountId}|${first.marks.email}`));
      const other = await lookup({ accountId: second.accountId });
      assert.equal(countIn(other, 'members', 'account_id'), 2, 'the other holder has its own two');
      assert.equal(countIn(other, 'account_sessions', 'account_id'), 0, 'and no session: that was the first holder’s');
    });

    test('a lookup by username or e-mail address finds the operator or nobody; a bad subject is refused', async () => {
      const operator = await lookup({ username: 'ops-x' });
      assert.equal(countIn(operator, 'operators', 'username'), 1);
      assert.equal(countIn(operator, 'operator_sessions', 'username'), 1);
      assert.ok(countIn(operator, 'audit_log', 'actor') >= 1, 'its creation names it as the target, its sign-in as the actor');
      assert.equal(countIn(operator, 'operators', 'email'), 0);
      const nobody = await lookup({ email: 'Nobody@Example.org' });
      assert.deepEqual(nobody, {
        subject: { kind: 'email', value: 'nobody@example.org' },
        held: false,
        places: [],
        categories: [],
      });
      for (const subject of [{}, { accountId: first.accountId, email: 'x@example.org' }, { phone: '+3212345678' }]) {
        assert.equal((await post('/dsar/lookup', { subject }, auditor)).statusCode, 400, JSON.stringify(subject));
      }
    });

    test('roles: compliance read for auditor, ops, owner, support; the export for owners; erasure requests for ops and owners', async () => {
      for (const headers of [ownerA, ops, auditor, support]) await lookup({ email: 'reader@example.org' }, headers);
      for (const headers of [analyst]) {
        assert.equal((await post('/dsar/lookup', { subject: { email: 'reader@example.org' } }, headers)).statusCode, 403);
        assert.equal((await get('/dsar/requests', headers)).statusCode, 403);
      }
      const fileBody = { accountId: second.accountId, source: 'A letter' };
      for (const headers of [auditor, support, analyst]) {
        await refusedUnchanged(snapshot, () => post('/erasure/requests', fileBody, headers), 403, 'forbidden');
      }
      for (const headers of [ops, auditor, support]) {
        await refusedUnchanged(
          snapshot,
          () => post('/dsar/export', { accountId: first.accountId, source: 'E-mail' }, headers),
          403,
          'forbidden',
        );
      }
    });

    test('a negative response: signed with the platform key, recorded answered with its due date; refused when anything is held', async () => {
      const receivedAt = new Date(now - 3 * 24 * 3_600_000).toISOString();
      const answer = ok(
        await post(
          '/dsar/negative-response',
          { subject: { email: 'Stranger@Example.org' }, source: 'E-mail', receivedAt },
          support,
        ),
      );
      assert.equal(answer.ok, true);
      assert.equal(answer.request.state, 'answered');
      assert.equal(answer.request.outcome, 'negative');
      assert.equal(answer.request.dueAt, new Date(oneMonthAfter(Date.parse(receivedAt))).toISOString());
      assert.equal(answer.request.answeredBy, 'operator:support-x');
      const entry = await rail.db.selectFrom('audit_log').selectAll().where('seq', '=', answer.auditSeq).executeTakeFirst();
      assert.equal(entry?.action, 'dsar.answered');

      const header = decodeProtectedHeader(answer.statement);
      assert.equal(header.typ, NEGATIVE_RESPONSE_TYP);
      const did = ok(await rail.app.inject({ method: 'GET', url: '/.well-known/did.json' }));
      const method = did.verificationMethod.find((m: { id: string }) => m.id === header.kid);
      assert.ok(method, 'the key is in the platform’s DID document');
      const { payload } = await jwtVerify(answer.statement, await importJWK(method.publicKeyJwk as JWK, 'ES256'));
      assert.equal(payload.iss, did.id);
      assert.equal(payload.jti, answer.request.requestId);
      assert.deepEqual(payload.subject, { kind: 'email', value: 'stranger@example.org' });
      assert.equal(payload.held, false);
      assert.ok(PUBLIC_URL.includes(new URL(`https://${String(did.id).split(':')[2]}`).host));

      const listed = ok(await get('/dsar/requests?state=answered', auditor));
      assert.ok(listed.requests.some((r: { requestId: string }) => r.requestId === answer.request.requestId));

      await refusedUnchanged(
        snapshot,
        () => post('/dsar/negative-response', { subject: { accountId: first.accountId }, source: 'E-mail' }, support),
        409,
        'subject_held',
      );
      await refusedUnchanged(
        snapshot,
        () => post('/dsar/negative-response', { subject: { username: 'owner-a' }, source: 'E-mail' }, support),
        409,
        'subject_held',
      );
      await refusedUnchanged(
        snapshot,
        () =>
          post(
            '/dsar/negative-response',
            { subject: { email: 'late@example.org' }, source: 'E-mail', receivedAt: new Date(now + 86_400_000).toISOString() },
            support,
          ),
        400,
        'invalid_request',
      );
      await refusedUnchanged(
        snapshot,
        () =>
          post(
            '/dsar/negative-response',
            { subject: { email: 'again@example.org' }, source: 'E-mail', requestId: answer.request.requestId },
            support,
          ),
        409,
        'request_state',
      );
    });

    test('an export: filed by an owner with its access request, approved by a second owner, the file the subject’s alone', async () => {
      const filed = ok(await post('/dsar/export', { accountId: first.accountId, source: 'Letter of 1 November' }, ownerA), 202);
      assert.equal(filed.request.state, 'received');
      assert.equal(filed.request.export.approvalId, filed.approval.approvalId);
      assert.equal(filed.approval.action, 'subject.export');
      const approvalUrl = `/api/admin/approvals/${filed.approval.approvalId}/approve`;
      const self = await rail.app.inject({ method: 'POST', url: approvalUrl, headers: ownerA, payload: {} });
      assert.equal(self.statusCode, 403, 'the requester does not approve its own');
      ok(await rail.app.inject({ method: 'POST', url: approvalUrl, headers: ownerB, payload: {} }));

      const listed = ok(await get('/dsar/requests', auditor)).requests.find(
        (r: { requestId: string }) => r.requestId === filed.request.requestId,
      );
      assert.equal(listed.state, 'answered');
      assert.equal(listed.outcome, 'exported');
      assert.equal(listed.answeredBy, 'operator:owner-b');
      assert.deepEqual(listed.export, { approvalId: filed.approval.approvalId, state: 'approved' });

      const approval = ok(
        await rail.app.inject({ method: 'GET', url: `/api/admin/approvals/${filed.approval.approvalId}`, headers: ownerA }),
      );
      const file = JSON.stringify(approval.result);
      assert.match(file, new RegExp(first.accountId));
      assert.match(file, new RegExp(first.marks.reason), 'its coin ledger');
      assert.doesNotMatch(file, new RegExp(second.accountId), 'nothing of another holder');
      const records = approval.result.export.records;
      assert.equal(records.deposits[0].body.title, first.marks.title, 'the deposit with its contents');
      assert.equal(records.directoryListing[0].displayName, first.marks.listed);
      assert.equal(records.votes.length, 1);
      assert.ok(records.walletItems.length >= 2 && records.channels.length === 1 && records.credentials.length === 1);
      assert.ok(records.sharingSettings.length >= 1 && records.sharingLog.length >= 1);
      assert.match(records.credentials[0].issuedAt, /^\d{4}-\d{2}-\d{2}T/, 'times as RFC 3339');
      const other = ok(
        await rail.app.inject({ method: 'GET', url: `/api/admin/approvals/${filed.approval.approvalId}`, headers: ownerB }),
      );
      assert.equal(other.result, null, 'private to the requester');
      await refusedUnchanged(
        snapshot,
        () => post('/dsar/export', { accountId: first.accountId, source: 'E-mail', requestId: filed.request.requestId }, ownerA),
        409,
        'request_state',
      );
    });

    test('an erasure request refused on a ground changes nothing else; it cannot be refused or verified again', async () => {
      const filed = ok(await post('/erasure/requests', { accountId: second.accountId, source: 'Phone call' }, ops), 201);
      assert.equal(filed.request.state, 'received');
      assert.equal(filed.request.filedBy, 'operator:ops-x');
      const id = filed.request.requestId;
      const before = await rowsNaming(rail, second.accountId);
      const refused = ok(
        await post(`/erasure/requests/${id}/refuse`, { ground: 'legal-hold', note: 'Court order 12/26' }, ownerA),
      );
      assert.equal(refused.request.state, 'refused');
      assert.equal(refused.request.ground, 'legal-hold');
      assert.deepEqual(await rowsNaming(rail, second.accountId), before, 'a refusal erases nothing');
      await refusedUnchanged(
        snapshot,
        () => post(`/erasure/requests/${id}/refuse`, { ground: 'cannot-identify' }, ops),
        409,
        'request_state',
      );
      await refusedUnchanged(snapshot, () => post(`/erasure/requests/${id}/verify`, {}, ops), 409, 'request_state');
      await refusedUnchanged(
        snapshot,
        () => post(`/erasure/requests/${id}/refuse`, { ground: 'because' }, ops),
        400,
        'invalid_request',
      );
      await refusedUnchanged(
        snapshot,
        () => post('/erasure/requests/erq_AAAAAAAAAAAAAAAAAAAAAA/verify', {}, ops),
        404,
        'unknown_request',
      );
      assert.equal(ok(await get(`/erasure/requests/${id}`, support)).state, 'refused');
    });

    test('an erasure request verified erases the account as the portal does: no row names it, a receipt, the events, the chain verifies', async () => {
      const holder = await holders.make();
      const filed = ok(
        await post(
          '/erasure/requests',
          { accountId: holder.accountId, source: 'Letter', identityCheck: 'Passport seen at the desk' },
          ownerA,
        ),
        201,
      );
      const id = filed.request.requestId;
      const verified = ok(await post(`/erasure/requests/${id}/verify`, {}, ops));
      assert.ok(['completed', 'verified'].includes(verified.request.state), verified.request.state);
      assert.equal(verified.request.receiptId, verified.receipt.receiptId);
      assert.deepEqual(verified.request.subject, { kind: 'account', value: null }, 'the request no longer names the account');
      assert.equal(verified.request.identityCheck, 'Passport seen at the desk');
      const left = await rowsNaming(rail, holder.accountId);
      assert.deepEqual(
        Object.entries(left).filter(([, n]) => n !== 0),
        [],
      );
      const entry = await rail.db.selectFrom('audit_log').selectAll().where('seq', '=', verified.auditSeq).executeTakeFirst();
      assert.equal(entry?.action, 'erasure.verified');
      const erased = await rail.db
        .selectFrom('audit_log')
        .select(['actor'])
        .where('action', '=', 'account.erased')
        .where('target', '=', verified.receipt.receiptId)
        .executeTakeFirst();
      assert.equal(erased?.actor, 'operator:ops-x', 'the operator who verified is the erasure’s actor');
      const events = await rail.db
        .selectFrom('outbox')
        .select(['tenant'])
        .where('type', '=', 'erasure.completed')
        .where('data', 'like', `%${verified.receipt.receiptId}%`)
        .execute();
      assert.deepEqual(events.map((e) => e.tenant).sort(), ['alpha', 'demo-transit', 'root']);
      const found = await lookup({ accountId: holder.accountId });
      assert.equal(countIn(found, 'members', 'account_id'), 0);
      await refusedUnchanged(snapshot, () => post(`/erasure/requests/${id}/verify`, {}, ops), 409, 'request_state');
      const listed = ok(await get('/erasure/requests?limit=1', auditor));
      assert.equal(listed.requests.length, 1);
      assert.equal(typeof listed.nextCursor, 'string');

      const chain = await verifyAuditChain(new SqlKernelViews(rail.db));
      assert.equal(chain.verified, true, JSON.stringify(chain));
    });

    test('owner token and the request lists page with the list convention', async () => {
      ok(await post('/erasure/requests', { accountId: second.accountId, source: 'Owner token' }, owner), 201);
      const all = ok(await get('/erasure/requests?limit=200', auditor));
      assert.equal(all.nextCursor, null);
      const firstPage = ok(await get('/erasure/requests?limit=1', auditor));
      const rest = ok(await get(`/erasure/requests?limit=200&cursor=${firstPage.nextCursor}`, auditor));
      assert.deepEqual(
        [...firstPage.requests, ...rest.requests].map((r: { requestId: string }) => r.requestId),
        all.requests.map((r: { requestId: string }) => r.requestId),
      );
      assert.deepEqual(ok(await get('/erasure/requests?since=2999-01-01', auditor)).requests, []);
      assert.equal(
        (await get('/dsar/requests?state=completed', auditor)).statusCode,
        400,
        'an access request is never completed',
      );
    });
    test('attestations: once per operator, statement and version; any back-office role, for itself; never the owner token', async () => {
      const body = { statementId: 'code-of-conduct', version: '2026-11' };
      const made = ok(await post('/accountability/attest', body, auditor), 201);
      assert.equal(made.created, true);
      assert.equal(made.attestation.operator, 'auditor-x');
      const again = ok(await post('/accountability/attest', body, auditor));
      assert.deepEqual(
        [again.created, again.auditSeq, again.attestation.attestationId],
        [false, made.auditSeq, made.attestation.attestationId],
      );
      const alphaAdmin = await signedInOperator(rail.app, 'alpha-admin', ['tenant-admin'], 'alpha');
      const scoped = ok(await post('/accountability/attest', body, alphaAdmin), 201);
      assert.equal(scoped.attestation.tenant, 'alpha');
      now += 1000;
      ok(await post('/accountability/attest', { ...body, version: '2026-12', note: 'Read at the induction' }, auditor), 201);
      await refusedUnchanged(snapshot, () => post('/accountability/attest', body, owner), 403, 'forbidden');
      await refusedUnchanged(
        snapshot,
        () => post('/accountability/attest', { ...body, statementId: 'Code Of Conduct' }, ops),
        400,
        'invalid_request',
      );
      const mine = ok(await get('/accountability/attestations?operator=auditor-x', support));
      assert.deepEqual(
        mine.attestations.map((a: { version: string }) => a.version),
        ['2026-12', '2026-11'],
      );
      assert.equal((await get('/accountability/attestations', alphaAdmin)).statusCode, 403, 'reading them is compliance read');
    });

    test('role history from the audit chain, and the separation-of-duties report', async () => {
      await signedInOperator(rail.app, 'both-hats', ['auditor', 'owner']);
      ok(
        await rail.app.inject({
          method: 'POST',
          url: '/api/operators/roles',
          headers: owner,
          payload: { username: 'support-x', roles: ['support', 'auditor'] },
        }),
      );
      const history = ok(await get('/accountability/role-history?operator=support-x', auditor));
      assert.deepEqual(
        history.changes.map((c: { action: string; roles: string[] | null }) => [c.action, c.roles]),
        [
          ['operator.roles_changed', ['support', 'auditor']],
          ['operator.created', ['support']],
        ],
      );
      const firstPage = ok(await get('/accountability/role-history?limit=1', auditor));
      const next = ok(await get(`/accountability/role-history?limit=1&cursor=${firstPage.nextCursor}`, auditor));
      assert.ok(next.changes[0].seq < firstPage.changes[0].seq, 'older on the next page');

      // owner-b approves owner-a's export (above); now owner-a approves one of owner-b's.
      const theirs = ok(await post('/dsar/export', { accountId: second.accountId, source: 'E-mail' }, ownerB), 202);
      ok(
        await rail.app.inject({
          method: 'POST',
          url: `/api/admin/approvals/${theirs.approval.approvalId}/approve`,
          headers: ownerA,
          payload: {},
        }),
      );
      const report = ok(await get('/accountability/role-separation', ops));
      const conflictOf = (name: string) => report.conflicts.find((c: { operator: string }) => c.operator === name);
      assert.deepEqual(conflictOf('both-hats')?.heldTogether, [['auditor', 'owner']]);
      assert.deepEqual(conflictOf('support-x')?.heldTogether, [['auditor', 'support']]);
      assert.equal(conflictOf('ops-x'), undefined, 'one role, nothing to split');
      assert.deepEqual(report.reciprocalApprovals, [
        { first: 'operator:owner-a', second: 'operator:owner-b', firstApprovedSecond: 1, secondApprovedFirst: 1 },
      ]);
      assert.equal(report.truncated, false);
    });
    test('the inventory: every registered column with its rule and row count; auditors, ops and owners only', async () => {
      const inventory = ok(await get('/meta-inventory', auditor));
      assert.equal(inventory.columns.length, HOLDER_DATA.length, 'one row per registered column');
      const members = inventory.columns.find(
        (c: { table: string; column: string }) => c.table === 'members' && c.column === 'account_id',
      );
      const counted = await rowCounts(rail.db, ['members']);
      assert.deepEqual(
        { names: members.names, erasure: members.erasure, exported: members.exported, rows: members.rows },
        { names: 'account', erasure: 'delete', exported: 'memberships', rows: counted.members },
      );
      const audit = inventory.columns.find(
        (c: { table: string; names: string }) => c.table === 'audit_log' && c.names === 'account',
      );
      assert.equal(audit.erasure, 'kept');
      assert.match(audit.erasureNote, /append-only/);
      const desk = await signedInOperator(rail.app, 'support-y', ['support']);
      for (const headers of [desk, analyst]) assert.equal((await get('/meta-inventory', headers)).statusCode, 403);
    });
    test('incidents: the 72-hour clock, moves in order, and an affected scope computed from data (two tenants, a key, a window)', async () => {
      const HOUR = 3_600_000;
      // What the incident is about happens two hours from the suite's start, in two tenants.
      now += 2 * HOUR;
      const windowStart = now;
      const beta = ok(
        await rail.app.inject({ method: 'POST', url: '/api/tenants', headers: owner, payload: { name: 'Beta' } }),
        201,
      );
      const betaType = (await registerType(rail.app, beta.slug, 'Beta pass', ['holder_name'])).typeId;
      const alphaType = (await registerType(rail.app, 'alpha', 'Alpha incident pass', ['holder_name'])).typeId;
      const betaHolders = [
        await issueOne(rail.app, beta.slug, betaType, { holder_name: 'B1' }),
        await issueOne(rail.app, beta.slug, betaType, { holder_name: 'B2' }),
      ];
      await issueOne(rail.app, 'alpha', alphaType, { holder_name: 'A1' });
      const revokedId = (
        await rail.db
          .selectFrom('issued_credentials')
          .select('id')
          .where('holder_thumbprint', '=', accountOf(betaHolders[0]?.key as HolderKey))
          .executeTakeFirstOrThrow()
      ).id;
      ok(
        await rail.app.inject({
          method: 'POST',
          url: '/api/revoke',
          headers: owner,
          payload: { tenant: beta.slug, credentialId: revokedId },
        }),
      );
      const betaKey = await rail.db
        .selectFrom('signing_keys')
        .select('kid')
        .where('tenant', '=', beta.slug)
        .where('purpose', '=', 'issuer')
        .executeTakeFirstOrThrow();

      const opened = ok(
        await post(
          '/incidents',
          {
            title: 'Issuer keys exposed in a backup',
            severity: 'high',
            detectedAt: new Date(now - 70 * HOUR).toISOString(),
            scope: { since: new Date(windowStart).toISOString(), tenants: ['alpha', beta.slug] },
          },
          ops,
        ),
        201,
      );
      const id = opened.incident.incidentId;
      assert.equal(opened.incident.state, 'open');
      assert.deepEqual(opened.incident.clock, {
        notifyBy: new Date(now + 2 * HOUR).toISOString(),
        stoppedAt: null,
        hoursLeft: 2,
        overdue: false,
      });
      const affected = ok(await get(`/incidents/${id}/affected-scope`, auditor));
      assert.deepEqual(affected.tenants, [
        { tenant: 'alpha', credentials: 1, revoked: 0, accounts: 1 },
        { tenant: beta.slug, credentials: 2, revoked: 1, accounts: 2 },
      ]);
      assert.deepEqual(affected.totals, { tenants: 2, credentials: 3, revoked: 1, accounts: 3 });

      // Narrowed to beta's issuing key, then to a key that signed nothing in the window, then to a later window.
      const narrow = async (scope: Record<string, unknown>) => {
        ok(await post(`/incidents/${id}`, { scope: { since: new Date(windowStart).toISOString(), ...scope } }, ownerA));
        return ok(await get(`/incidents/${id}/affected-scope`, auditor)).totals;
      };
      assert.deepEqual(await narrow({ keys: [{ tenant: beta.slug, kid: betaKey.kid }] }), {
        tenants: 1,
        credentials: 2,
        revoked: 1,
        accounts: 2,
      });
      await rail.db
        .insertInto('signing_keys')
        .values({
          tenant: beta.slug,
          kid: 'retired-before-the-window',
          purpose: 'issuer',
          public_jwk: '{}',
          sealed_private_key: '',
          created_at: windowStart - 10 * HOUR,
          retired_at: windowStart - HOUR,
        })
        .execute();
      assert.deepEqual(await narrow({ keys: [{ tenant: beta.slug, kid: 'retired-before-the-window' }] }), {
        tenants: 0,
        credentials: 0,
        revoked: 0,
        accounts: 0,
      });
      assert.deepEqual(await narrow({ types: [{ tenant: 'alpha', typeId: alphaType }] }), {
        tenants: 1,
        credentials: 1,
        revoked: 0,
        accounts: 1,
      });
      const quiet = { since: new Date(windowStart - HOUR).toISOString(), until: new Date(windowStart).toISOString() };
      ok(await post(`/incidents/${id}`, { scope: quiet }, ownerA));
      assert.equal(
        ok(await get(`/incidents/${id}/affected-scope`, auditor)).totals.credentials,
        0,
        'nothing issued in the hour before',
      );

      // The clock runs out; the moves keep their order; notified late stays overdue, its clock stopped.
      now += 3 * HOUR;
      const late = ok(await get(`/incidents/${id}`, auditor));
      assert.deepEqual([late.clock.hoursLeft, late.clock.overdue], [-1, true]);
      await refusedUnchanged(snapshot, () => post(`/incidents/${id}`, { state: 'notified' }, ops), 409, 'incident_state');
      await refusedUnchanged(snapshot, () => post(`/incidents/${id}`, {}, ops), 400, 'invalid_request');
      ok(await post(`/incidents/${id}`, { state: 'assessed', severity: 'critical' }, ops));
      const notified = ok(await post(`/incidents/${id}`, { state: 'notified' }, ops));
      assert.equal(notified.incident.notifiedAt, new Date(now).toISOString());
      assert.deepEqual(notified.incident.clock, {
        notifyBy: opened.incident.clock.notifyBy,
        stoppedAt: new Date(now).toISOString(),
        hoursLeft: null,
        overdue: true,
      });
      ok(await post(`/incidents/${id}`, { state: 'closed' }, ops));
      await refusedUnchanged(snapshot, () => post(`/incidents/${id}`, { state: 'open' }, ops), 409, 'incident_state');
      await refusedUnchanged(
        snapshot,
        () => post('/incidents/inc_AAAAAAAAAAAAAAAAAAAAAA', { state: 'assessed' }, ops),
        404,
        'unknown_incident',
      );

      const events = await rail.db
        .selectFrom('outbox')
        .select(['type', 'tenant'])
        .where('data', 'like', `%${id}%`)
        .orderBy('created_at')
        .execute();
      assert.deepEqual(events[0], { type: 'incident.opened', tenant: 'root' });
      assert.ok(events.slice(1).every((e) => e.type === 'incident.updated' && e.tenant === 'root'));
      assert.equal(events.length, 1 + 7, 'opened, four scope changes, assessed, notified and closed');

      const listed = ok(await get('/incidents?state=closed', auditor));
      assert.deepEqual(
        listed.incidents.map((i: { incidentId: string }) => i.incidentId),
        [id],
      );
      assert.equal((await get('/incidents', analyst)).statusCode, 403, 'not an analyst’s');
      await refusedUnchanged(
        snapshot,
        () => post('/incidents', { title: 'x', severity: 'low', scope: { since: new Date(now).toISOString() } }, auditor),
        403,
        'forbidden',
      );
    });
    test('the programme overview: open requests and their due dates, running incidents, attestations due', async () => {
      const filed = ok(await post('/erasure/requests', { accountId: second.accountId, source: 'Desk' }, ops), 201);
      const running = ok(
        await post(
          '/incidents',
          { title: 'Lost laptop', severity: 'medium', scope: { since: new Date(now).toISOString() } },
          ops,
        ),
        201,
      );
      const programme = ok(await get('/program', auditor));
      const erasure = programme.requests.erasure;
      const received = ok(await get('/erasure/requests?state=received&limit=200', auditor)).requests;
      assert.equal(erasure.open, received.length);
      assert.equal(erasure.nextDue, received.map((r: { dueAt: string }) => r.dueAt).sort()[0]);
      assert.ok(received.some((r: { requestId: string }) => r.requestId === filed.request.requestId));
      assert.equal(programme.requests.access.open, 0, 'every access request was answered');
      assert.deepEqual(
        programme.incidents.map((i: { incidentId: string }) => i.incidentId),
        [running.incident.incidentId],
        'the closed incident is not running',
      );
      const conduct = programme.attestationsDue.find((d: { statementId: string }) => d.statementId === 'code-of-conduct');
      assert.equal(conduct.version, '2026-12', 'the newest version');
      assert.equal(conduct.attested, 1);
      assert.ok(conduct.missing.includes('ops-x') && !conduct.missing.includes('auditor-x'));
      assert.equal((await get('/program', analyst)).statusCode, 403);
    });
    test('the record of processing: purposes, a type bound to one, categories with counts, recipients, storage without secrets', async () => {
      const alphaType = (
        await rail.db
          .selectFrom('credential_types')
          .select('type_id')
          .where('tenant', '=', 'alpha')
          .orderBy('created_at')
          .executeTakeFirstOrThrow()
      ).type_id;
      await refusedUnchanged(
        snapshot,
        () => post('/ropa/type-purpose', { tenant: 'alpha', typeId: alphaType, purposeId: 'verification' }, ops),
        400,
        'invalid_request',
      );
      await refusedUnchanged(
        snapshot,
        () => post('/ropa/type-purpose', { tenant: 'alpha', typeId: 'no-such-type', purposeId: 'entitlement' }, ops),
        404,
        'unknown_type',
      );
      ok(await post('/ropa/type-purpose', { tenant: 'alpha', typeId: alphaType, purposeId: 'entitlement' }, ops));
      const bound = ok(
        await post('/ropa/type-purpose', { tenant: 'alpha', typeId: alphaType, purposeId: 'membership-proof' }, ownerA),
      );
      assert.equal(bound.binding.boundBy, 'operator:owner-a');
      const entry = await rail.db.selectFrom('audit_log').selectAll().where('seq', '=', bound.auditSeq).executeTakeFirst();
      assert.deepEqual([entry?.action, entry?.tenant, entry?.target], ['ropa.type_bound', 'alpha', alphaType]);

      const purposes = ok(await get('/ropa/purposes', auditor)).purposes;
      const proof = purposes.find((p: { purposeId: string }) => p.purposeId === 'membership-proof');
      assert.deepEqual(proof.types, [{ tenant: 'alpha', typeId: alphaType }]);
      assert.deepEqual(
        purposes.find((p: { purposeId: string }) => p.purposeId === 'entitlement').types,
        [],
        'rebinding replaced it',
      );

      const record = ok(await get('/ropa', auditor));
      assert.equal(record.controller.storage.engine, factory.name);
      assert.doesNotMatch(JSON.stringify(record.controller), /openrail-ci|password/, 'no database credentials');
      const membership = record.activities.find((a: { purposeId: string }) => a.purposeId === 'membership');
      const memberships = membership.categories.find((c: { category: string }) => c.category === 'memberships');
      assert.equal(memberships.rows, (await rowCounts(rail.db, ['members'])).members);
      const proofRecord = record.credentialPurposes.find((p: { purposeId: string }) => p.purposeId === 'membership-proof');
      assert.deepEqual(
        proofRecord.types.map((t: { typeId: string }) => t.typeId),
        [alphaType],
      );
      assert.deepEqual(proofRecord.claims, ['holder_name']);
      assert.ok(
        record.unboundTypes.some((t: { tenant: string }) => t.tenant === 'beta'),
        'beta’s types are bound to nothing yet',
      );
      const alphaChannels = record.recipients.channels.find((c: { tenant: string }) => c.tenant === 'alpha');
      assert.ok(alphaChannels.active >= 2, 'the holders’ channels with alpha');
      assert.equal((await get('/ropa', analyst)).statusCode, 403);
    });
    test('retention: rules above their floors, a dry run and a purge with the same counts, what must stay stays', async () => {
      const rules = ok(await get('/retention/rules', auditor));
      const rule = (category: string) => rules.rules.find((r: { category: string }) => r.category === category);
      assert.deepEqual([rule('audit-log').purgeable, rule('audit-log').keepDays], [false, null]);
      assert.deepEqual([rule('approvals').keepDays, rule('approvals').floorDays], [730, 365]);
      assert.equal(rules.lastRun, null);
      await refusedUnchanged(
        snapshot,
        () => post('/retention/rules', { category: 'audit-log', keepDays: 3650 }, ops),
        409,
        'retention_floor',
      );
      await refusedUnchanged(
        snapshot,
        () => post('/retention/rules', { category: 'approvals', keepDays: 364 }, ops),
        409,
        'retention_floor',
      );
      await refusedUnchanged(
        snapshot,
        () => post('/retention/rules', { category: 'everything', keepDays: 30 }, ops),
        400,
        'invalid_request',
      );
      await refusedUnchanged(
        snapshot,
        () => post('/retention/rules', { category: 'approvals', keepDays: 400 }, auditor),
        403,
        'forbidden',
      );
      const set = ok(await post('/retention/rules', { category: 'data-subject-requests', keepDays: 365 }, ownerA));
      assert.deepEqual(set.rule.keepDays, 365);
      ok(await post('/retention/rules', { category: 'incidents', keepDays: 1095 }, ops));

      // Four years on: what was answered, closed and decided in this suite is past every rule.
      now += 4 * 365 * 86_400_000;
      const desk = await signedInOperator(rail.app, 'purger', ['ops']);
      const reader = await signedInOperator(rail.app, 'purge-auditor', ['auditor']);
      const openRequest = ok(await post('/erasure/requests', { accountId: second.accountId, source: 'Desk' }, desk), 201).request
        .requestId;
      const kept = async () => ({
        received: Number(
          (
            await rail.db
              .selectFrom('compliance_requests')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('state', '=', 'received')
              .executeTakeFirstOrThrow()
          ).n,
        ),
        running: Number(
          (
            await rail.db
              .selectFrom('incidents')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('state', '<>', 'closed')
              .executeTakeFirstOrThrow()
          ).n,
        ),
        audit: (await rowCounts(rail.db, ['audit_log'])).audit_log ?? 0,
      });
      const before = await kept();
      assert.ok(before.received >= 1 && before.running >= 1);

      const dry = ok(await post('/retention/purge-run', { dryRun: true }, desk));
      assert.equal(dry.dryRun, true);
      assert.ok(dry.counts['data-subject-requests'] >= 4, JSON.stringify(dry.counts));
      assert.equal(dry.counts.incidents, 1, 'the closed incident: three years under its rule, past it in four');
      assert.ok(dry.counts['erasure-receipts'] >= 1 && dry.counts.approvals >= 2);
      assert.equal(dry.cutoffs['data-subject-requests'], new Date(now - 365 * 86_400_000).toISOString());
      assert.equal(dry.cutoffs['audit-log'], undefined, 'never purged');

      const started = ok(await post('/retention/purge-run', { dryRun: false }, desk), 202);
      assert.equal(started.run.state, 'running');
      const again = ok(await post('/retention/purge-run', { dryRun: false }, desk));
      assert.deepEqual([again.created, again.run.runId, again.auditSeq], [false, started.run.runId, started.auditSeq]);
      await rail.jobs.tick();
      const after = ok(await get('/retention/rules', reader)).lastRun;
      assert.equal(after.runId, started.run.runId);
      assert.equal(after.state, 'done');
      assert.deepEqual(after.counts, dry.counts, 'the purge deleted what the dry run counted');
      assert.deepEqual(
        ok(await post('/retention/purge-run', { dryRun: true }, desk)).counts,
        Object.fromEntries(Object.keys(dry.counts).map((k) => [k, 0])),
      );

      const left = await kept();
      assert.equal(left.received, before.received, 'received requests stay');
      assert.equal(left.running, before.running, 'running incidents stay');
      assert.ok(left.audit > before.audit, 'the audit chain only grows');
      assert.equal(ok(await get(`/erasure/requests/${openRequest}`, reader)).state, 'received');
      const purged = await rail.db
        .selectFrom('audit_log')
        .select(['actor', 'detail'])
        .where('action', '=', 'retention.purged')
        .executeTakeFirstOrThrow();
      assert.equal(purged.actor, 'system:retention');
      assert.deepEqual(JSON.parse(purged.detail).counts, dry.counts);
      assert.equal(ok(await get('/program', reader)).lastPurge.runId, started.run.runId);
      const chain = await verifyAuditChain(new SqlKernelViews(rail.db));
      assert.equal(chain.verified, true, JSON.stringify(chain));
    });
    test('an organisation’s own view in the console: requests about its members, incidents touching it, its types’ purposes', async () => {
      const admin = await signedInOperator(rail.app, 'alpha-console', ['tenant-admin'], 'alpha');
      const view = ok(await rail.app.inject({ method: 'GET', url: '/api/compliance?tenant=alpha', headers: admin }));
      assert.equal(view.tenant, 'alpha');
      assert.ok(view.requests.length > 0);
      assert.ok(
        view.requests.every(
          (r: { accountId: string | null }) => r.accountId === second.accountId || r.accountId === first.accountId,
        ),
        'the requests are about its members',
      );
      assert.ok(view.types.length > 0 && view.types.every((t: { tenant: string }) => t.tenant === 'alpha'));
      assert.ok(view.types.some((t: { purposeId: string | null }) => t.purposeId === 'membership-proof'));
      for (const i of view.incidents) assert.equal(typeof i.affected.credentials, 'number');
      const refused = await rail.app.inject({ method: 'GET', url: '/api/compliance?tenant=beta', headers: admin });
      assert.equal(refused.statusCode, 403, 'another organisation’s');
      const none = await rail.app.inject({ method: 'GET', url: '/api/compliance', headers: admin });
      assert.equal(none.statusCode, 403, 'a scoped operator names its own organisation');
      const unnamed = await rail.app.inject({ method: 'GET', url: '/api/compliance', headers: owner });
      assert.equal(unnamed.statusCode, 400, 'the view is of one organisation');
      const reader = await signedInOperator(rail.app, 'console-auditor', ['auditor']);
      assert.equal(
        (await rail.app.inject({ method: 'GET', url: '/api/compliance?tenant=alpha', headers: reader })).statusCode,
        403,
      );
    });
  });
}
