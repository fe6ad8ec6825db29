/**
 * Operators in the back office (docs/backoffice/people.md), over HTTP on each engine: the list and
 * its filters and pages, one operator, every change and its refusals, access lost on the next
 * call, the password change, the identity link, and four eyes over owner changes through the
 * approval desk, with the last active platform owner kept.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { type TestDatabase, testDatabases } from '../../../../test/helpers/databases.ts';
import { operatorAddress, signedInOperator } from '../../../../test/helpers/operators.ts';
import { bearer, owner, ownerCalls, railOn, startRail, stopRail, type TestRail } from '../../../../test/helpers/rail.ts';
import { ok, refusedUnchanged, rowCounts } from '../../../../test/helpers/refusals.ts';

const BASE = '/api/admin/people/operators';
const TABLES = ['operators', 'operator_sessions', 'operator_identities', 'audit_log', 'approvals'] as const;
type Headers = Record<string, string>;

/** What the suites share: posting, reading, and proving a refusal changed nothing. */
function harness(rail: () => TestRail) {
  const { post, get } = ownerCalls(rail);
  const refuses = (send: () => Promise<LightMyRequestResponse>, status: number, code: string) =>
    refusedUnchanged(() => rowCounts(rail().db, TABLES), send, status, code);
  const entry = (seq: number) => rail().db.selectFrom('audit_log').selectAll().where('seq', '=', seq).executeTakeFirstOrThrow();
  const password = () => `Pw-${randomBytes(9).toString('hex')}-staple`;
  /** A sign-in from an address of its own (sign-ins are budgeted per address). */
  const login = (username: string, pw: string) =>
    rail().app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { username, password: pw },
      remoteAddress: operatorAddress(),
    });
  /** An operator created through the back office, with its password. */
  const create = async (username: string, roles: string[], tenant?: string) => {
    const pw = password();
    const made = ok(await post(BASE, { username, password: pw, roles, ...(tenant ? { tenant } : {}) }), 201);
    return { pw, made };
  };
  const approve = (approvalId: string, headers: Headers) => post(`/api/admin/approvals/${approvalId}/approve`, {}, headers);
  return { post, get, ok, refuses, entry, password, login, create, approve };
}

for (const factory of testDatabases()) {
  describe(`back-office operators (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    const h = harness(() => rail);
    const { post, get, ok, refuses, entry, login, create, approve } = h;

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, {}, undefined, { runJobs: false });
      for (const name of ['Alpha', 'Beta']) ok(await post('/api/tenants', { name }), 201);
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('create answers {ok, auditSeq, operator} under the rules of POST /api/operators, and refuses what it refuses', async () => {
      const pw = h.password();
      const made = ok(await post(BASE, { username: 'cora', password: pw, roles: ['ops', 'ops'], tenant: null }), 201);
      assert.equal(made.ok, true);
      assert.equal(made.operator.username, 'cora');
      assert.deepEqual(made.operator.roles, ['ops']);
      assert.equal(made.operator.status, 'active');
      assert.equal(made.operator.activeSessions, 0);
      assert.equal(made.operator.lastSignInAt, null);
      const audited = await entry(made.auditSeq);
      assert.equal(audited.action, 'operator.created');
      assert.equal(audited.actor, 'owner-token');
      assert.equal(audited.target, 'cora');
      assert.doesNotMatch(audited.detail, new RegExp(pw));
      assert.doesNotMatch(JSON.stringify(made), /password|scrypt/i);

      await refuses(() => post(BASE, { username: 'cora', password: h.password(), roles: ['ops'] }), 409, 'conflict');
      await refuses(() => post(BASE, { username: 'dora', password: 'short', roles: ['ops'] }), 400, 'weak_password');
      await refuses(
        () => post(BASE, { username: 'dora', password: 'dora-is-my-password', roles: ['ops'] }),
        400,
        'weak_password',
      );
      await refuses(
        () => post(BASE, { username: 'dora', password: h.password(), roles: ['ops'], tenant: 'nowhere' }),
        404,
        'unknown_tenant',
      );
      await refuses(() => post(BASE, { username: 'dora', password: h.password(), roles: ['janitor'] }), 400, 'invalid_request');
      await refuses(() => post(BASE, { username: 'Dora', password: h.password(), roles: ['ops'] }), 400, 'invalid_request');
      await refuses(() => post(BASE, { username: 'dora', password: h.password(), roles: [] }), 400, 'invalid_request');
      // Only an owner, platform-wide, manages operators; a scoped owner and the readers are refused.
      const ops = await signedInOperator(rail.app, 'create-ops', ['ops']);
      const scopedOwner = await signedInOperator(rail.app, 'create-scoped-owner', ['owner'], 'alpha');
      for (const headers of [ops, scopedOwner]) {
        await refuses(() => post(BASE, { username: 'dora', password: h.password(), roles: ['ops'] }, headers), 403, 'forbidden');
      }
    });

    test('the list filters by status, role, tenant and username prefix, and pages by username', async () => {
      for (const [username, roles, tenant] of [
        ['list-a1', ['support'], 'alpha'],
        ['list-a2', ['tenant-admin'], 'alpha'],
        ['list-b1', ['tenant-admin'], 'beta'],
        ['list-p1', ['analyst'], undefined],
        ['list-p2', ['auditor', 'analyst'], undefined],
      ] as const) {
        await create(username, [...roles], tenant);
      }
      ok(await post(`${BASE}/list-p2/suspend`));
      const names = (rows: Array<{ username: string }>) => rows.map((r) => r.username);
      assert.deepEqual(names(ok(await get(`${BASE}?q=list-`)).operators), [
        'list-a1',
        'list-a2',
        'list-b1',
        'list-p1',
        'list-p2',
      ]);
      assert.deepEqual(names(ok(await get(`${BASE}?q=list-&tenant=alpha`)).operators), ['list-a1', 'list-a2']);
      assert.deepEqual(names(ok(await get(`${BASE}?q=list-&role=analyst`)).operators), ['list-p1', 'list-p2']);
      assert.deepEqual(names(ok(await get(`${BASE}?q=list-&role=analyst&status=active`)).operators), ['list-p1']);
      assert.deepEqual(names(ok(await get(`${BASE}?q=list-&status=suspended`)).operators), ['list-p2']);
      assert.deepEqual(names(ok(await get(`${BASE}?q=list_`)).operators), [], 'an underscore is a character, not a wildcard');

      // Pages of two: each operator once, in username order, and null after the last.
      const walked: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const body: { operators: Array<{ username: string }>; nextCursor: string | null } = ok(
          await get(`${BASE}?q=list-&limit=2${cursor ? `&cursor=${cursor}` : ''}`),
        );
        assert.ok(body.operators.length <= 2);
        walked.push(...names(body.operators));
        cursor = body.nextCursor;
        pages++;
      } while (cursor !== null);
      assert.deepEqual(walked, ['list-a1', 'list-a2', 'list-b1', 'list-p1', 'list-p2']);
      assert.equal(pages, 3);

      assert.equal((await get(`${BASE}?cursor=bm90LWEtY3Vyc29y`)).json().error, 'invalid_request');
      assert.equal((await get(`${BASE}?limit=201`)).statusCode, 400);
      assert.equal((await get(`${BASE}?role=janitor`)).statusCode, 400);
      // The read row: ops, auditor and support read; analysts and tenant-admins do not.
      const auditor = await signedInOperator(rail.app, 'list-auditor', ['auditor']);
      assert.equal((await get(BASE, auditor)).statusCode, 200);
      for (const [username, roles, tenant] of [
        ['list-analyst', ['analyst'], undefined],
        ['list-tadmin', ['tenant-admin'], 'alpha'],
        ['list-issuer', ['issuer'], undefined],
      ] as const) {
        const headers = await signedInOperator(rail.app, username, [...roles], tenant);
        assert.equal((await get(BASE, headers)).json().error, 'forbidden');
        assert.equal((await get(`${BASE}/cora`, headers)).json().error, 'forbidden');
      }
    });

    test('one operator shows its lock, live sessions, identity link and last sign-in', async () => {
      const { pw } = await create('gina', ['support']);
      ok(await login('gina', pw));
      ok(await login('gina', pw));
      const signedIn = await rail.db
        .selectFrom('audit_log')
        .select('at')
        .where('action', '=', 'operator.signed_in')
        .where('target', '=', 'gina')
        .orderBy('seq', 'desc')
        .executeTakeFirstOrThrow();
      const one = ok(await get(`${BASE}/gina`));
      assert.equal(one.activeSessions, 2);
      assert.equal(one.lastSignInAt, new Date(Number(signedIn.at)).toISOString());
      assert.equal(one.lockedUntil, null);
      assert.equal(one.identity, null);
      for (let i = 0; i < 5; i++) assert.equal((await login('gina', 'wrong-password-here')).statusCode, 401);
      assert.ok(Date.parse(ok(await get(`${BASE}/gina`)).lockedUntil) > Date.now());
      assert.equal((await get(`${BASE}/nobody`)).json().error, 'unknown_operator');
      assert.equal((await get(`${BASE}/NOT..valid`)).statusCode, 400);
    });

    test('roles and suspension take effect on the operator’s next call; enable and remove answer the operator', async () => {
      const { pw } = await create('hugo', ['ops']);
      const hugo = bearer(ok(await login('hugo', pw)).token);
      assert.equal((await get(BASE, hugo)).statusCode, 200);

      const changed = ok(await post(`${BASE}/hugo/roles`, { roles: ['analyst'], tenant: 'alpha' }));
      assert.deepEqual(changed.operator.roles, ['analyst']);
      assert.equal(changed.operator.tenant, 'alpha');
      const audited = await entry(changed.auditSeq);
      assert.equal(audited.action, 'operator.roles_changed');
      assert.equal(audited.tenant, 'alpha');
      assert.equal((await get(BASE, hugo)).json().error, 'forbidden', 'the new roles hold on the next call');

      ok(await post(`${BASE}/hugo/roles`, { roles: ['ops'], tenant: null }));
      assert.equal((await get(BASE, hugo)).statusCode, 200);

      const suspended = ok(await post(`${BASE}/hugo/suspend`, {}));
      assert.equal(suspended.operator.status, 'suspended');
      assert.equal((await entry(suspended.auditSeq)).action, 'operator.suspended');
      assert.equal((await get(BASE, hugo)).statusCode, 401, 'a suspended operator is refused on its next call');
      assert.equal((await login('hugo', pw)).statusCode, 401);

      const enabled = ok(await post(`${BASE}/hugo/enable`));
      assert.equal(enabled.operator.status, 'active');
      assert.equal((await entry(enabled.auditSeq)).action, 'operator.enabled');
      assert.equal((await get(BASE, hugo)).statusCode, 200, 'its session works again once enabled');

      const removed = ok(await post(`${BASE}/hugo/remove`));
      assert.equal(removed.operator.status, 'removed');
      assert.equal(removed.operator.activeSessions, 0);
      assert.equal((await entry(removed.auditSeq)).action, 'operator.removed');
      assert.equal((await get(BASE, hugo)).statusCode, 401);
      // Removed is final: every change is unknown_operator; the record stays readable.
      assert.equal(ok(await get(`${BASE}/hugo`)).status, 'removed');
      for (const [what, body] of [
        ['enable', undefined],
        ['suspend', {}],
        ['remove', {}],
        ['roles', { roles: ['ops'] }],
        ['password', { password: h.password() }],
        ['idp', { issuer: 'https://idp.example.com', subject: 'hugo' }],
      ] as const) {
        await refuses(() => post(`${BASE}/hugo/${what}`, body), 404, 'unknown_operator');
      }
      await refuses(() => post(`${BASE}/nobody/roles`, { roles: ['ops'] }), 404, 'unknown_operator');
      await create('ines', ['ops']);
      await refuses(() => post(`${BASE}/ines/roles`, { roles: ['ops'], tenant: 'nowhere' }), 404, 'unknown_tenant');
      await refuses(() => post(`${BASE}/ines/roles`, { roles: ['ops'], extra: 1 }), 400, 'invalid_request');
      await refuses(() => post(`${BASE}/ines/enable`, { extra: 1 }), 400, 'invalid_request');
      const support = await signedInOperator(rail.app, 'roles-support', ['support']);
      await refuses(() => post(`${BASE}/ines/suspend`, {}, support), 403, 'forbidden');
    });

    test('a new password ends every session of the operator, signs in, and is audited without the secret', async () => {
      const { pw } = await create('jana', ['support']);
      const first = bearer(ok(await login('jana', pw)).token);
      const second = bearer(ok(await login('jana', pw)).token);
      const fresh = `New-${randomBytes(8).toString('hex')}-password`;
      const changed = ok(await post(`${BASE}/jana/password`, { password: fresh }));
      assert.equal(changed.operator.activeSessions, 0);
      const audited = await entry(changed.auditSeq);
      assert.equal(audited.action, 'operator.password_changed');
      assert.equal(audited.detail, '{}');
      assert.doesNotMatch(JSON.stringify(audited), new RegExp(fresh));
      for (const session of [first, second]) assert.equal((await get(BASE, session)).statusCode, 401);
      assert.equal((await login('jana', pw)).statusCode, 401, 'the old password no longer signs in');
      const again = bearer(ok(await login('jana', fresh)).token);
      assert.equal((await get(BASE, again)).statusCode, 200);

      await refuses(() => post(`${BASE}/jana/password`, { password: 'too-short' }), 400, 'weak_password');
      await refuses(() => post(`${BASE}/jana/password`, { password: 'my-name-is-jana-ok' }), 400, 'weak_password');
      await refuses(() => post(`${BASE}/jana/password`, {}), 400, 'invalid_request');
      assert.equal((await get(BASE, again)).statusCode, 200, 'a refused change ends no session');
    });

    test('an operator’s password and identity link are its own to set (or the owner token’s): any other operator is refused', async () => {
      const { pw } = await create('olga-owner', ['owner']);
      const olga = bearer(ok(await login('olga-owner', pw)).token);
      const { pw: opsPw } = await create('oleg-ops', ['ops']);
      const oleg = bearer(ok(await login('oleg-ops', opsPw)).token);
      const other = await signedInOperator(rail.app, 'otto-owner', ['owner']);
      const fresh = `Own-${randomBytes(8).toString('hex')}-password`;
      const link = { issuer: 'https://login.example.com/tenant-7', subject: 'olga' };
      // Another owner, whatever the target holds: no operator sets another's.
      for (const target of ['olga-owner', 'oleg-ops']) {
        await refuses(() => post(`${BASE}/${target}/password`, { password: fresh }, other), 403, 'forbidden');
        await refuses(() => post(`${BASE}/${target}/idp`, { ...link, subject: target }, other), 403, 'forbidden');
      }
      await refuses(() => post(`${BASE}/olga-owner/password`, { password: fresh }, oleg), 403, 'forbidden');
      assert.equal((await login('olga-owner', fresh)).statusCode, 401, 'the refused password does not sign in');
      // The operator itself, proving its current password; the break-glass owner token, for anyone.
      await refuses(() => post(`${BASE}/olga-owner/password`, { password: fresh }, olga), 401, 'invalid_credentials');
      await refuses(
        () => post(`${BASE}/olga-owner/password`, { password: fresh, currentPassword: 'not-her-password' }, olga),
        401,
        'invalid_credentials',
      );
      ok(await post(`${BASE}/olga-owner/idp`, link, olga));
      ok(await post(`${BASE}/olga-owner/password`, { password: fresh, currentPassword: pw }, olga));
      ok(await post(`${BASE}/oleg-ops/password`, { password: `${fresh}-ops`, currentPassword: opsPw }, oleg));
      ok(await post(`${BASE}/olga-owner/password`, { password: `${fresh}-2` }, owner));
      assert.equal((await login('olga-owner', `${fresh}-2`)).statusCode, 200);
      assert.equal((await login('oleg-ops', `${fresh}-ops`)).statusCode, 200);
    });

    test('an enterprise identity links to one operator only, and unlinks', async () => {
      await create('kai', ['ops']);
      await create('lea', ['ops']);
      const identity = { issuer: 'https://login.example.com/tenant-7', subject: 'AbC-123_kai' };
      const linked = ok(await post(`${BASE}/kai/idp`, identity));
      assert.equal(linked.operator.identity.issuer, identity.issuer);
      assert.equal(linked.operator.identity.subject, identity.subject);
      const audited = await entry(linked.auditSeq);
      assert.equal(audited.action, 'operator.idp_linked');
      assert.deepEqual(JSON.parse(audited.detail), identity);
      assert.equal(ok(await get(`${BASE}/kai`)).identity.subject, identity.subject);

      await refuses(() => post(`${BASE}/lea/idp`, identity), 409, 'identity_linked');
      // The same identity again is no conflict; another identity replaces the link.
      ok(await post(`${BASE}/kai/idp`, identity));
      const other = { issuer: 'https://login.example.com/tenant-7', subject: 'kai-2' };
      assert.equal(ok(await post(`${BASE}/kai/idp`, other)).operator.identity.subject, 'kai-2');
      assert.equal(ok(await post(`${BASE}/lea/idp`, identity)).operator.identity.subject, identity.subject);

      for (const body of [
        { issuer: 'http://login.example.com', subject: 'x' },
        { issuer: 'https://login.example.com/?tenant=7', subject: 'x' },
        { issuer: 'https://user:pw@login.example.com', subject: 'x' },
        { issuer: `https://login.example.com/${'a'.repeat(250)}`, subject: 'x' },
        { issuer: 'https://login.example.com', subject: 'has space' },
        { issuer: 'https://login.example.com', subject: 'x'.repeat(256) },
        { issuer: 'https://login.example.com' },
        { issuer: null, subject: 'x' },
        {},
      ]) {
        await refuses(() => post(`${BASE}/kai/idp`, body), 400, 'invalid_request');
      }

      const unlinked = ok(await post(`${BASE}/lea/idp`, { issuer: null }));
      assert.equal(unlinked.operator.identity, null);
      const gone = await entry(unlinked.auditSeq);
      assert.equal(gone.action, 'operator.idp_unlinked');
      assert.deepEqual(JSON.parse(gone.detail), identity);
      assert.equal(ok(await post(`${BASE}/kai/idp`, identity)).operator.identity.subject, identity.subject);
      // Removal takes the link with it, so the identity can go to another operator.
      ok(await post(`${BASE}/kai/remove`, {}));
      assert.equal(ok(await post(`${BASE}/lea/idp`, identity)).operator.identity.subject, identity.subject);
    });

    test('taking owner away, suspending or removing an owner files an approval that a second owner decides', async () => {
      const ana = await signedInOperator(rail.app, 'owner-ana', ['owner']);
      const ben = await signedInOperator(rail.app, 'owner-ben', ['owner']);
      const { pw } = await create('owner-cid', ['owner', 'ops']);
      const cid = bearer(ok(await login('owner-cid', pw)).token);

      // Roles that keep owner are a direct change.
      assert.deepEqual(ok(await post(`${BASE}/owner-cid/roles`, { roles: ['owner'] }, ana)).operator.roles, ['owner']);

      const filed = await post(`${BASE}/owner-cid/roles`, { roles: ['ops'], reason: 'Moves to operations.' }, ana);
      assert.equal(filed.statusCode, 202, filed.body);
      const { approval, auditSeq } = filed.json();
      assert.equal(approval.action, 'operator.roles');
      assert.equal(approval.state, 'pending');
      assert.equal(approval.reason, 'Moves to operations.');
      assert.deepEqual(approval.params, { username: 'owner-cid', roles: ['ops'] });
      assert.equal((await entry(auditSeq)).action, 'approval.requested');
      assert.deepEqual(ok(await get(`${BASE}/owner-cid`)).roles, ['owner'], 'nothing changes while it is pending');
      assert.equal(
        (await post(BASE, { username: 'x-probe', email: 'x-probe@example.org', roles: ['ops'] }, cid)).statusCode,
        201,
      );

      const same = await approve(approval.approvalId, ana);
      assert.equal(same.statusCode, 403, same.body);
      assert.equal(same.json().error, 'same_operator');
      assert.deepEqual(ok(await get(`${BASE}/owner-cid`)).roles, ['owner']);

      ok(await approve(approval.approvalId, ben));
      assert.deepEqual(ok(await get(`${BASE}/owner-cid`)).roles, ['ops']);
      const changed = await rail.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'operator.roles_changed')
        .where('target', '=', 'owner-cid')
        .orderBy('seq', 'desc')
        .executeTakeFirstOrThrow();
      assert.equal(changed.actor, 'operator:owner-ben', 'the approver is the actor of the change');
      assert.equal(
        (await post(BASE, { username: 'y-probe', email: 'y-probe@example.org', roles: ['ops'] }, cid)).json().error,
        'forbidden',
        'the demoted owner loses the owner operations on its next call',
      );

      // Narrowing an owner to one tenant takes the platform away just the same.
      await create('owner-dan', ['owner']);
      const narrowed = await post(`${BASE}/owner-dan/roles`, { roles: ['owner'], tenant: 'alpha' }, ana);
      assert.equal(narrowed.statusCode, 202, narrowed.body);

      // Suspension and removal of an owner.
      const { pw: evaPw } = await create('owner-eva', ['owner']);
      const eva = bearer(ok(await login('owner-eva', evaPw)).token);
      const suspension = await post(`${BASE}/owner-eva/suspend`, {}, ana);
      assert.equal(suspension.statusCode, 202, suspension.body);
      assert.equal(suspension.json().approval.action, 'operator.suspend');
      assert.equal((await get(BASE, eva)).statusCode, 200, 'still active while pending');
      ok(await approve(suspension.json().approval.approvalId, ben));
      assert.equal(ok(await get(`${BASE}/owner-eva`)).status, 'suspended');
      assert.equal((await get(BASE, eva)).statusCode, 401);

      const removal = await post(`${BASE}/owner-eva/remove`, undefined, ben);
      assert.equal(removal.statusCode, 202, removal.body);
      assert.equal((await approve(removal.json().approval.approvalId, ben)).json().error, 'same_operator');
      ok(await approve(removal.json().approval.approvalId, ana));
      const eva2 = ok(await get(`${BASE}/owner-eva`));
      assert.equal(eva2.status, 'removed');
      assert.equal(eva2.activeSessions, 0);

      // An unknown target is refused when filed, not later.
      await refuses(() => post(`${BASE}/nobody/suspend`, {}, ana), 404, 'unknown_operator');
    });

    test('granting owner takes a second owner too, unless the break-glass owner token grants it', async () => {
      const ana = await signedInOperator(rail.app, 'grant-ana', ['owner']);
      const ben = await signedInOperator(rail.app, 'grant-ben', ['owner']);
      await create('grant-fay', ['ops']);
      await refuses(
        () => post(BASE, { username: 'grant-gus', email: 'gus@example.org', roles: ['owner'] }, ana),
        409,
        'approval_required',
      );
      const filed = await post(`${BASE}/grant-fay/roles`, { roles: ['ops', 'owner'] }, ana);
      assert.equal(filed.statusCode, 202, filed.body);
      assert.deepEqual(ok(await get(`${BASE}/grant-fay`)).roles, ['ops'], 'nothing changes while it is pending');
      assert.equal((await approve(filed.json().approval.approvalId, ana)).json().error, 'same_operator');
      ok(await approve(filed.json().approval.approvalId, ben));
      assert.deepEqual(ok(await get(`${BASE}/grant-fay`)).roles, ['ops', 'owner']);
      // The owner token, the root of trust, grants at once (how a deployment gets its first owners).
      await create('grant-hal', ['ops']);
      assert.deepEqual(ok(await post(`${BASE}/grant-hal/roles`, { roles: ['owner'] })).operator.roles, ['owner']);
      ok(await post(BASE, { username: 'grant-ivy', password: h.password(), roles: ['owner'] }), 201);
    });
  });

  describe(`the last active platform owner (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    const h = harness(() => rail);
    const { post, get, ok, refuses, approve } = h;

    before(async () => {
      ({ db, rail } = await railOn(factory, {}, undefined, { runJobs: false }));
    });
    after(() => stopRail(rail, db));

    test('is kept: filing, and approving, a change that would leave none is 409 last_owner', async () => {
      const ana = await signedInOperator(rail.app, 'ana', ['owner']);
      await signedInOperator(rail.app, 'ben', ['owner']);
      // A tenant-scoped owner is no platform owner: it does not count.
      ok(await post('/api/tenants', { name: 'Gamma' }), 201);
      await signedInOperator(rail.app, 'scoped', ['owner'], 'gamma');

      // The owner token files both suspensions; each leaves the other owner, so both are filed.
      const ofAna = ok(await post(`${BASE}/ana/suspend`, {}), 202).approval.approvalId;
      const ofBen = ok(await post(`${BASE}/ben/suspend`, {}), 202).approval.approvalId;
      ok(await approve(ofBen, ana));
      // Ana approving her own suspension (the owner token asked) would leave no owner operator.
      const refused = await approve(ofAna, ana);
      assert.equal(refused.statusCode, 409, refused.body);
      assert.equal(refused.json().error, 'last_owner');
      assert.equal(ok(await get(`${BASE}/ana`)).status, 'active');
      assert.equal(ok(await get(`/api/admin/approvals/${ofAna}`)).state, 'pending', 'the approval stays pending');
      // Filing another change that would leave none is refused at once.
      await refuses(() => post(`${BASE}/ana/remove`, {}), 409, 'last_owner');
      await refuses(() => post(`${BASE}/ana/roles`, { roles: ['ops'] }), 409, 'last_owner');
    });
  });
}
