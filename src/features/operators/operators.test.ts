import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { bearer, owner, railOn, stopRail, type TestRail } from '../../../test/helpers/rail.ts';
import type { Clock } from '../../core/clock.ts';

/** Lockout policy from the brief: five wrong passwords lock the account. */
const MAX_FAILED_LOGINS = 5;

/** Computed here, independently of src, so the test checks what is stored rather than echoing the code. */
const sha256b64url = (s: string) => createHash('sha256').update(s, 'utf8').digest('base64url');

for (const factory of testDatabases()) {
  describe(`operator accounts and sign-in over HTTP (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    // A clock the suite moves forward by hand: lockout and session expiry are tested without waiting.
    let now = Date.now();
    const clock: Clock = { now: () => now };

    /** Every response of the suite, checked at the end for leaked passwords and hashes. */
    const seen: Array<{ what: string; res: LightMyRequestResponse }> = [];
    const passwords = new Set<string>();
    let counter = 0;

    before(async () => {
      ({ db, rail } = await railOn(factory, {}, clock));
    });
    after(() => stopRail(rail, db));

    const call = async (url: string, headers: Record<string, string>, payload: unknown) => {
      const res = await rail.app.inject({ method: 'POST', url, headers, payload: payload as object });
      seen.push({ what: `POST ${url}`, res });
      return res;
    };
    /** A strong password that contains none of the suite's usernames. */
    const password = () => {
      const p = `Pw-${++counter}-correct-horse-battery-staple`;
      passwords.add(p);
      return p;
    };
    const createOperator = (body: Record<string, unknown>, headers: Record<string, string> = owner) => {
      if (typeof body.password === 'string') passwords.add(body.password);
      return call('/api/operators', headers, body);
    };
    const login = (username: string, pw: string) => {
      passwords.add(pw);
      return call('/api/login', {}, { username, password: pw });
    };
    const createTenant = (headers: Record<string, string>, name = `Tenant ${++counter}`) =>
      call('/api/tenants', headers, { name });
    const manage = (action: 'roles' | 'suspend' | 'enable' | 'remove', body: Record<string, unknown>, headers = owner) =>
      call(`/api/operators/${action}`, headers, body);

    const row = (username: string) =>
      rail.db.selectFrom('operators').selectAll().where('username', '=', username).executeTakeFirst();
    const operatorCount = async () => (await rail.db.selectFrom('operators').select('username').execute()).length;
    const tenantCount = async () => (await rail.db.selectFrom('tenants').select('slug').execute()).length;
    const auditCount = async () => (await rail.db.selectFrom('audit_log').select('seq').execute()).length;

    /** Creates an operator and signs it in; returns its password and session token. */
    const signedIn = async (username: string, roles: string[], tenant?: string) => {
      const pw = password();
      const created = await createOperator({ username, password: pw, roles, ...(tenant ? { tenant } : {}) });
      assert.equal(created.statusCode, 201, created.body);
      const res = await login(username, pw);
      assert.equal(res.statusCode, 200, res.body);
      return { password: pw, token: res.json().token as string };
    };

    const assertRefusedLogin = (res: LightMyRequestResponse) => {
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(res.json().error, 'invalid_credentials');
    };

    test('the owner creates an operator; the password is kept only as an scrypt hash', async () => {
      const pw = password();
      const res = await createOperator({ username: 'ana', password: pw, roles: ['issuer'] });
      assert.equal(res.statusCode, 201, res.body);
      assert.deepEqual(res.json(), { username: 'ana', roles: ['issuer'], tenant: null, status: 'active' });

      const stored = await row('ana');
      assert.ok(stored, 'a row was written');
      assert.ok(stored.password_hash.startsWith('scrypt$'), stored.password_hash);
      assert.ok(!stored.password_hash.includes(pw), 'the hash does not contain the password');
      assert.equal(stored.password_hash.split('$').length, 6, 'scrypt$N$r$p$salt$hash');
      assert.deepEqual(JSON.parse(stored.roles), ['issuer']);
      assert.equal(stored.status, 'active');
      assert.equal(stored.tenant, null);
      assert.equal(stored.failed_attempts, 0);
      assert.equal(stored.locked_until, null);

      // Two operators with the same password get different hashes (salted).
      const twin = await createOperator({ username: 'ana-twin', password: pw, roles: ['issuer'] });
      assert.equal(twin.statusCode, 201, twin.body);
      assert.notEqual((await row('ana-twin'))?.password_hash, stored.password_hash);
    });

    test('login gives a Bearer session that an issuer can use; only its hash is stored', async () => {
      const pw = password();
      assert.equal((await createOperator({ username: 'bo', password: pw, roles: ['issuer'] })).statusCode, 201);
      const res = await login('bo', pw);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.deepEqual(Object.keys(body).sort(), ['expiresIn', 'roles', 'status', 'tenant', 'token', 'tokenType', 'username']);
      assert.equal(body.tokenType, 'Bearer');
      assert.equal(body.username, 'bo');
      assert.deepEqual(body.roles, ['issuer']);
      assert.equal(body.tenant, null);
      assert.equal(body.status, 'active');
      assert.ok(Number.isInteger(body.expiresIn) && body.expiresIn > 0, String(body.expiresIn));
      assert.equal(typeof body.token, 'string');
      assert.ok(body.token.length >= 32, 'the token carries enough entropy');

      const sessions = await rail.db.selectFrom('operator_sessions').selectAll().where('username', '=', 'bo').execute();
      assert.equal(sessions.length, 1);
      const session = sessions[0];
      assert.ok(session);
      assert.notEqual(session.token_hash, body.token);
      assert.ok(!session.token_hash.includes(body.token));
      assert.equal(session.token_hash, sha256b64url(body.token));
      assert.equal(session.expires_at - session.created_at, body.expiresIn * 1000, 'expiresIn matches the stored session');
      const all = await rail.db.selectFrom('operator_sessions').select('token_hash').execute();
      assert.ok(!all.some((s) => s.token_hash === body.token), 'no session row holds a clear token');

      const created = await createTenant(bearer(body.token), 'Bo Issuing');
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(created.json().slug, 'bo-issuing');

      // Two sign-ins give two distinct tokens, both usable.
      const second = (await login('bo', pw)).json().token;
      assert.notEqual(second, body.token);
      assert.equal((await createTenant(bearer(second))).statusCode, 201);
    });

    test("a 'verifier'-only operator gets 403 forbidden on POST /api/tenants", async () => {
      const { token } = await signedIn('vera', ['verifier']);
      const before = await tenantCount();
      for (const url of ['/api/tenants', '/v1/tenants']) {
        const res = await call(url, bearer(token), { name: 'Vera Co' });
        assert.equal(res.statusCode, 403, res.body);
        assert.equal(res.json().error, 'forbidden');
        assert.equal(typeof res.json().message, 'string');
      }
      assert.equal(await tenantCount(), before, 'nothing was created');
    });

    test('demotion and promotion take effect on the very next call with the same token', async () => {
      const { token } = await signedIn('dee', ['issuer']);
      assert.equal((await createTenant(bearer(token))).statusCode, 201);

      const demoted = await manage('roles', { username: 'dee', roles: ['verifier'] });
      assert.equal(demoted.statusCode, 200, demoted.body);
      assert.deepEqual(demoted.json(), { username: 'dee', roles: ['verifier'], tenant: null, status: 'active' });
      assert.deepEqual(JSON.parse((await row('dee'))?.roles ?? '[]'), ['verifier']);

      const before = await tenantCount();
      const refused = await createTenant(bearer(token));
      assert.equal(refused.statusCode, 403, refused.body);
      assert.equal(refused.json().error, 'forbidden');
      assert.equal(await tenantCount(), before);

      const promoted = await manage('roles', { username: 'dee', roles: ['verifier', 'issuer'] });
      assert.equal(promoted.statusCode, 200, promoted.body);
      assert.deepEqual(promoted.json().roles, ['verifier', 'issuer']);
      assert.equal((await createTenant(bearer(token))).statusCode, 201, 'the same token works again');
    });

    test('suspension stops the same token and sign-in at once; enabling restores both', async () => {
      const { token, password: pw } = await signedIn('sue', ['issuer']);
      assert.equal((await createTenant(bearer(token))).statusCode, 201);

      const suspended = await manage('suspend', { username: 'sue' });
      assert.equal(suspended.statusCode, 200, suspended.body);
      assert.equal(suspended.json().status, 'suspended');
      assert.equal((await row('sue'))?.status, 'suspended');

      const before = await tenantCount();
      const refused = await createTenant(bearer(token));
      assert.equal(refused.statusCode, 401, refused.body);
      assert.equal(refused.json().error, 'unauthorized');
      assert.match(String(refused.headers['www-authenticate']), /^Bearer realm="openrail"/);
      assert.equal(await tenantCount(), before);
      assertRefusedLogin(await login('sue', pw));
      assert.equal((await row('sue'))?.failed_attempts, 0, 'a refused sign-in of a suspended operator is no failure');

      const enabled = await manage('enable', { username: 'sue' });
      assert.equal(enabled.statusCode, 200, enabled.body);
      assert.equal(enabled.json().status, 'active');
      assert.equal((await createTenant(bearer(token))).statusCode, 201, 'the same token works again');
      const again = await login('sue', pw);
      assert.equal(again.statusCode, 200, again.body);
      assert.equal((await createTenant(bearer(again.json().token))).statusCode, 201);
    });

    test('removal answers 200 with the removed operator and deletes its sessions', async () => {
      const { token, password: pw } = await signedIn('rae', ['issuer']);
      await login('rae', pw);
      const stored = await rail.db.selectFrom('operator_sessions').select('token_hash').where('username', '=', 'rae').execute();
      assert.equal(stored.length, 2);
      assert.equal((await createTenant(bearer(token))).statusCode, 201);

      const removed = await manage('remove', { username: 'rae' });
      assert.equal((await row('rae'))?.status, 'removed');
      assert.equal(removed.statusCode, 200, removed.body);
      assert.deepEqual(removed.json(), { username: 'rae', roles: ['issuer'], tenant: null, status: 'removed' });
      const sessions = await rail.db.selectFrom('operator_sessions').select('token_hash').where('username', '=', 'rae').execute();
      assert.equal(sessions.length, 0, 'the sessions are gone');
    });

    test('the console cannot take the owner role away, or suspend or remove an owner: 409 approval_required, nothing changed', async () => {
      await signedIn('olive', ['owner', 'issuer']);
      const attempts: Array<['roles' | 'suspend' | 'remove', Record<string, unknown>]> = [
        ['roles', { username: 'olive', roles: ['issuer'] }],
        ['roles', { username: 'olive', roles: ['owner'], tenant: (await createTenant(owner)).json().slug }],
        ['suspend', { username: 'olive' }],
        ['remove', { username: 'olive' }],
      ];
      const stored = await row('olive');
      assert.equal(stored?.status, 'active');
      for (const [action, body] of attempts) {
        const entries = await auditCount();
        const res = await manage(action, body);
        assert.equal(res.statusCode, 409, `${action}: ${res.body}`);
        assert.equal(res.json().error, 'approval_required');
        assert.deepEqual(await row('olive'), stored, 'the operator is as it was');
        assert.equal(await auditCount(), entries, 'no audit entry');
      }
      // Adding roles to an owner, or enabling one, takes nothing away.
      assert.equal((await manage('roles', { username: 'olive', roles: ['owner', 'issuer', 'auditor'] })).statusCode, 200);
      assert.equal((await manage('enable', { username: 'olive' })).statusCode, 200);
    });

    test('an owner operator cannot grant the owner role on the console (409 approval_required); the owner token can', async () => {
      const { token } = await signedIn('oscar', ['owner']);
      await signedIn('pia', ['issuer']);
      const entries = await auditCount();
      const operators = await operatorCount();
      const created = await createOperator({ username: 'quinn', email: 'quinn@example.org', roles: ['owner'] }, bearer(token));
      assert.equal(created.statusCode, 409, created.body);
      assert.equal(created.json().error, 'approval_required');
      const granted = await manage('roles', { username: 'pia', roles: ['issuer', 'owner'] }, bearer(token));
      assert.equal(granted.statusCode, 409, granted.body);
      assert.equal(granted.json().error, 'approval_required');
      assert.equal(await operatorCount(), operators, 'no operator was made');
      assert.deepEqual(JSON.parse((await row('pia'))?.roles ?? '[]'), ['issuer']);
      assert.equal(await auditCount(), entries, 'no audit entry');
      assert.equal((await manage('roles', { username: 'pia', roles: ['issuer', 'owner'] })).statusCode, 200);
    });

    test('a removed operator loses its tokens and sign-in, and the username stays reserved', async () => {
      const { token, password: pw } = await signedIn('rex', ['issuer']);
      const second = (await login('rex', pw)).json().token as string;
      assert.equal((await createTenant(bearer(token))).statusCode, 201);

      // The answer to the removal itself is checked by the test above; here only its effect.
      await manage('remove', { username: 'rex' });
      assert.equal((await row('rex'))?.status, 'removed');

      const before = await tenantCount();
      for (const t of [token, second]) {
        const res = await createTenant(bearer(t));
        assert.equal(res.statusCode, 401, res.body);
        assert.equal(res.json().error, 'unauthorized');
      }
      assert.equal(await tenantCount(), before);
      assertRefusedLogin(await login('rex', pw));

      const hashBefore = (await row('rex'))?.password_hash;
      const recreate = await createOperator({ username: 'rex', password: password(), roles: ['owner'] });
      assert.equal(recreate.statusCode, 409, recreate.body);
      assert.equal(recreate.json().error, 'conflict');
      const after = await row('rex');
      assert.equal(after?.status, 'removed', 'a removed operator stays removed');
      assert.equal(after?.password_hash, hashBefore);
      assert.deepEqual(JSON.parse(after?.roles ?? '[]'), ['issuer']);

      // Removal is final: the console cannot bring the account back.
      for (const [action, body] of [
        ['enable', { username: 'rex' }],
        ['roles', { username: 'rex', roles: ['owner'] }],
        ['suspend', { username: 'rex' }],
        ['remove', { username: 'rex' }],
      ] as const) {
        const res = await manage(action, body);
        assert.equal(res.statusCode, 404, `${action}: ${res.body}`);
        assert.equal(res.json().error, 'unknown_operator');
      }
      assert.equal((await row('rex'))?.status, 'removed');
      assertRefusedLogin(await login('rex', pw));
      for (const t of [token, second]) assert.equal((await createTenant(bearer(t))).statusCode, 401);
    });

    test('a wrong password and an unknown user give the same 401', async () => {
      const pw = password();
      assert.equal((await createOperator({ username: 'wes', password: pw, roles: ['issuer'] })).statusCode, 201);
      const wrong = await login('wes', `${pw}-not`);
      const unknown = await login('nobody-here', pw);
      for (const res of [wrong, unknown]) assertRefusedLogin(res);
      assert.equal(wrong.body, unknown.body, 'identical bodies');
      assert.equal(wrong.headers['www-authenticate'], unknown.headers['www-authenticate']);
      assert.equal(wrong.headers['content-type'], unknown.headers['content-type']);
      assert.equal((await row('wes'))?.failed_attempts, 1, 'the wrong password was counted');
      assert.equal(await row('nobody-here'), undefined, 'an unknown username leaves no trace');

      // A success clears the counter.
      assert.equal((await login('wes', pw)).statusCode, 200);
      assert.equal((await row('wes'))?.failed_attempts, 0);
      // Schema refusals stay 400, never a hint about the account.
      const empty = await call('/api/login', {}, { username: 'wes', password: '' });
      assert.equal(empty.statusCode, 400, empty.body);
    });

    test(`after ${MAX_FAILED_LOGINS} wrong passwords even the right one is refused until the lock ends`, async () => {
      const pw = password();
      assert.equal((await createOperator({ username: 'lou', password: pw, roles: ['issuer'] })).statusCode, 201);
      const reference = await login('nobody-at-all', pw);
      for (let i = 1; i <= MAX_FAILED_LOGINS; i++) {
        const res = await login('lou', `wrong-password-${i}-xxxxxxxx`);
        assertRefusedLogin(res);
        assert.equal(res.body, reference.body, 'the lockout is not revealed by the body');
        const r = await row('lou');
        assert.equal(r?.failed_attempts, i);
        if (i < MAX_FAILED_LOGINS) assert.equal(r?.locked_until, null, `not locked after ${i}`);
      }
      const locked = await row('lou');
      assert.equal(locked?.failed_attempts, MAX_FAILED_LOGINS);
      assert.equal(typeof locked?.locked_until, 'number');
      assert.ok((locked?.locked_until ?? 0) > now, 'locked_until lies in the future');

      const refused = await login('lou', pw);
      assertRefusedLogin(refused);
      assert.equal(refused.body, reference.body, 'a locked account answers like a wrong password');
      assert.equal(
        await rail.db.selectFrom('operator_sessions').select('token_hash').where('username', '=', 'lou').executeTakeFirst(),
        undefined,
        'no session was created',
      );
      const still = await row('lou');
      assert.equal(still?.failed_attempts, MAX_FAILED_LOGINS);
      assert.equal(still?.locked_until, locked?.locked_until, 'attempts during the lock do not extend it');

      // Once the lock has passed, a wrong password counts from one again instead of re-locking.
      now = (locked?.locked_until ?? now) + 1;
      assertRefusedLogin(await login('lou', 'wrong-password-after-lock-xxxx'));
      const recounted = await row('lou');
      assert.equal(recounted?.failed_attempts, 1);
      assert.equal(recounted?.locked_until, null);

      // And the right password works and clears the counter.
      const res = await login('lou', pw);
      assert.equal(res.statusCode, 200, res.body);
      const cleared = await row('lou');
      assert.equal(cleared?.failed_attempts, 0);
      assert.equal(cleared?.locked_until, null);
    });

    test('a session bearer stops working when it expires', async () => {
      const pw = password();
      assert.equal((await createOperator({ username: 'exp', password: pw, roles: ['issuer'] })).statusCode, 201);
      const res = await login('exp', pw);
      const { token, expiresIn } = res.json();
      now += expiresIn * 1000 - 1;
      assert.equal((await createTenant(bearer(token))).statusCode, 201, 'still valid just before expiry');
      now += 1;
      const expired = await createTenant(bearer(token));
      assert.equal(expired.statusCode, 401, expired.body);
      assert.equal(expired.json().error, 'unauthorized');
    });

    test('weak passwords are refused with 400 weak_password and nothing is written', async () => {
      const before = await operatorCount();
      const cases: Array<[string, string]> = [
        ['wendy', 'short-pw-11'],
        ['wendy', ''],
        ['wendy', 'xx-wendy-is-my-name-123'],
        ['wendy', 'XX-WENDY-SHOUTS-12345'],
        ['walt.ops', 'prefix-walt.ops-suffix'],
      ];
      for (const [username, pw] of cases) {
        assert.ok(pw.length < 12 || pw.toLowerCase().includes(username), 'the case is weak by the policy');
        const res = await createOperator({ username, password: pw, roles: ['issuer'] });
        assert.equal(res.statusCode, 400, `${pw}: ${res.body}`);
        assert.equal(res.json().error, 'weak_password', pw);
        assert.equal(await row(username), undefined, `no row for ${username}`);
      }
      assert.equal(await operatorCount(), before);

      // Twelve characters is enough.
      const ok = await createOperator({ username: 'wendy', password: 'abcdefghijk!', roles: ['issuer'] });
      assert.equal(ok.statusCode, 201, ok.body);
    });

    test('a taken username is refused with 409 and the first account is untouched', async () => {
      const pw = password();
      assert.equal((await createOperator({ username: 'dup', password: pw, roles: ['issuer'] })).statusCode, 201);
      const before = await row('dup');
      const res = await createOperator({ username: 'dup', password: password(), roles: ['owner'] });
      assert.equal(res.statusCode, 409, res.body);
      assert.equal(res.json().error, 'conflict');
      assert.deepEqual(await row('dup'), before);
      assert.equal((await login('dup', pw)).statusCode, 200, 'the original password still works');
    });

    test('an unknown tenant scope is refused with 404 unknown_tenant', async () => {
      const before = await operatorCount();
      const res = await createOperator({ username: 'tia', password: password(), roles: ['issuer'], tenant: 'no-such-tenant' });
      assert.equal(res.statusCode, 404, res.body);
      assert.equal(res.json().error, 'unknown_tenant');
      assert.equal(await row('tia'), undefined);
      assert.equal(await operatorCount(), before);
    });

    test('only the owner manages operators', async () => {
      const { token } = await signedIn('ivy', ['issuer', 'verifier']);
      const target = password();
      assert.equal((await createOperator({ username: 'tom', password: target, roles: ['verifier'] })).statusCode, 201);
      const before = await operatorCount();
      const tomBefore = await row('tom');

      const attempts: Array<[string, Record<string, unknown>]> = [
        ['/api/operators', { username: 'mallory', password: password(), roles: ['owner'] }],
        ['/api/operators/roles', { username: 'ivy', roles: ['owner'] }],
        ['/api/operators/roles', { username: 'tom', roles: ['owner'] }],
        ['/api/operators/suspend', { username: 'tom' }],
        ['/api/operators/enable', { username: 'tom' }],
        ['/api/operators/remove', { username: 'tom' }],
      ];
      for (const [url, body] of attempts) {
        const res = await call(url, bearer(token), body);
        assert.equal(res.statusCode, 403, `${url}: ${res.body}`);
        assert.equal(res.json().error, 'forbidden');
        const anonymous = await call(url, {}, body);
        assert.equal(anonymous.statusCode, 401, `${url}: ${anonymous.body}`);
        assert.equal(anonymous.json().error, 'unauthorized');
      }
      assert.equal(await operatorCount(), before);
      assert.equal(await row('mallory'), undefined);
      assert.deepEqual(JSON.parse((await row('ivy'))?.roles ?? '[]'), ['issuer', 'verifier']);
      assert.deepEqual(await row('tom'), tomBefore);
    });

    test('a tenant-scoped issuer acts on its own tenant only', async () => {
      const other = await createTenant(owner, 'Other Co');
      assert.equal(other.statusCode, 201, other.body);
      const otherSlug = other.json().slug as string;

      const pw = password();
      const created = await createOperator({ username: 'tess', password: pw, roles: ['issuer'], tenant: 'demo-transit' });
      assert.equal(created.statusCode, 201, created.body);
      assert.deepEqual(created.json(), { username: 'tess', roles: ['issuer'], tenant: 'demo-transit', status: 'active' });
      assert.equal((await row('tess'))?.tenant, 'demo-transit');
      const signin = await login('tess', pw);
      assert.equal(signin.statusCode, 200, signin.body);
      assert.equal(signin.json().tenant, 'demo-transit');
      const scoped = bearer(signin.json().token);

      const before = await tenantCount();
      for (const url of ['/api/tenants', '/v1/tenants']) {
        const res = await call(url, scoped, { name: 'Scoped Attempt' });
        assert.equal(res.statusCode, 403, `${url}: ${res.body}`);
        assert.equal(res.json().error, 'forbidden');
      }
      assert.equal(await tenantCount(), before, 'a scoped credential creates no tenant');

      const own = await call('/api/tenants/update', scoped, { tenant: 'demo-transit', description: 'Edited by its own issuer.' });
      assert.equal(own.statusCode, 200, own.body);
      assert.equal(own.json().slug, 'demo-transit');
      assert.equal(own.json().profile.description, 'Edited by its own issuer.');
      const demo = await rail.db.selectFrom('tenants').selectAll().where('slug', '=', 'demo-transit').executeTakeFirst();
      assert.equal(demo?.description, 'Edited by its own issuer.');

      const snapshot = async () => rail.db.selectFrom('tenants').selectAll().where('slug', 'in', [otherSlug, 'root']).execute();
      const untouched = await snapshot();
      for (const slug of [otherSlug, 'root']) {
        const res = await call('/api/tenants/update', scoped, { tenant: slug, description: 'Not yours.' });
        assert.equal(res.statusCode, 403, `${slug}: ${res.body}`);
        assert.equal(res.json().error, 'forbidden');
      }
      assert.deepEqual(await snapshot(), untouched, 'other tenants are unchanged');

      const noTenant = await call('/api/tenants/update', scoped, { description: 'Which tenant?' });
      assert.equal(noTenant.statusCode, 400, noTenant.body);
      assert.equal(noTenant.json().error, 'invalid_request');
      const afterAll = await rail.db.selectFrom('tenants').selectAll().where('slug', '=', 'demo-transit').executeTakeFirst();
      assert.equal(afterAll?.description, 'Edited by its own issuer.', 'a body without tenant changes nothing');
    });

    test('no response ever carried a password or a password hash', async () => {
      assert.ok(seen.length > 50, `the suite made requests (${seen.length})`);
      assert.ok(passwords.size > 10);
      const hashes = (await rail.db.selectFrom('operators').select('password_hash').execute()).map((r) => r.password_hash);
      assert.ok(hashes.length > 10);
      // The digest part alone must not leak either.
      const secrets = [...passwords, ...hashes, ...hashes.map((h) => h.split('$').at(-1) ?? h)].filter((s) => s.length >= 8);
      for (const { what, res } of seen) {
        const text = `${JSON.stringify(res.headers)}\n${res.body}`;
        for (const secret of secrets) assert.ok(!text.includes(secret), `${what} (${res.statusCode}) leaked a secret`);
        assert.ok(!/password_?hash|scrypt\$/i.test(text), `${what} mentions a password hash`);
      }
    });
  });
}
