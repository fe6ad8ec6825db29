/**
 * One person is one pair of eyes (docs/security.md, "Separation of duties" and "Four eyes";
 * issue 24, points 1 and 2), on each engine, with a real SMTP server:
 * - every path that creates an operator or sets how one signs in, from one table: no operator
 *   chooses or learns another's password or identity; operators are invited by mail (or linked
 *   to an enterprise identity) by the roles that write operators; the owner token alone sets a
 *   first password;
 * - the invitation, as its person takes it: the mailed link (its code in the fragment), the page,
 *   the password chosen, the link spent; a reset of an active operator the same way;
 * - four eyes means two people: an account one operator invited (whose mail it read: the puppet
 *   of the probe), or one that shared an enterprise identity with it, never decides its requests,
 *   neither at the approval desk nor for an integration token.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { type TestDatabase, testDatabases } from '../helpers/databases.ts';
import { issueOne, registerType } from '../helpers/issuance.ts';
import { operatorAddress, signedInOperator } from '../helpers/operators.ts';
import { bearer, owner, PUBLIC_URL, startRail, type TestRail } from '../helpers/rail.ts';
import { refusedUnchanged, rowCounts } from '../helpers/refusals.ts';
import { type Mailbox, mailTo, startSmtp } from '../helpers/smtp.ts';

type Headers = Record<string, string>;
const TABLES = ['operators', 'operator_sessions', 'operator_identities', 'audit_log', 'approvals', 'issued_credentials'];
const PEOPLE = '/api/admin/people/operators';
const PASSWORD = 'a-long-enough-password';
const FORM = { 'content-type': 'application/x-www-form-urlencoded', origin: PUBLIC_URL };

/** The invitation code a mail carries: after `#` in its link, and printed below it. */
function invitationCode(raw: string): string {
  const text = raw.replace(/=\r?\n/g, '');
  const link = /\/operator\/invitation#([A-Za-z0-9_-]{43})/.exec(text)?.[1];
  assert.ok(link, `a link with the code in its fragment:\n${text}`);
  assert.doesNotMatch(text, /invitation\?[^\s]*[A-Za-z0-9_-]{43}/, 'never in a query');
  const subject = /^Subject:(.*)$/im.exec(raw)?.[1] ?? '';
  assert.ok(!subject.includes(link), 'never in the subject');
  return link;
}

for (const factory of testDatabases()) {
  describe(`one person is one pair of eyes (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let mail: Mailbox;
    let now = Date.now();
    const clock = { now: () => now };
    let ownerA: Headers;
    let opsA: Headers;
    let taAlpha: Headers;
    let supportA: Headers;
    let typeId: string;

    const post = (url: string, payload: unknown, headers: Headers = owner) =>
      rail.app.inject({ method: 'POST', url, headers, payload: payload as object });
    const ok = (res: LightMyRequestResponse, status = 200) => {
      assert.equal(res.statusCode, status, res.body);
      return res.json();
    };
    const refuses = (send: () => Promise<LightMyRequestResponse>, status: number, code: string) =>
      refusedUnchanged(() => rowCounts(rail.db, TABLES), send, status, code);
    const login = (username: string, password: string) =>
      rail.app.inject({ method: 'POST', url: '/api/login', payload: { username, password }, remoteAddress: operatorAddress() });
    const accept = (code: string, password = PASSWORD, confirm = password, headers: Headers = FORM) =>
      rail.app.inject({
        method: 'POST',
        url: '/operator/invitation',
        headers,
        payload: new URLSearchParams({ code, password, confirm }).toString(),
        remoteAddress: operatorAddress(),
      });
    /** Invites `username` by mail as `by`, and answers the code its person receives. */
    const invite = async (username: string, roles: string[], by: Headers, tenant?: string) => {
      const email = `${username}@people.example`;
      const before = mail.messages.filter((m) => m.to.includes(email)).length;
      ok(await post(PEOPLE, { username, email, roles, ...(tenant ? { tenant } : {}) }, by), 201);
      return invitationCode(await mailTo(mail, email, before));
    };
    /** An invited operator that has accepted: its session. */
    const invitedAndAccepted = async (username: string, roles: string[], by: Headers) => {
      const code = await invite(username, roles, by);
      assert.equal((await accept(code)).statusCode, 200);
      return bearer(ok(await login(username, PASSWORD)).token);
    };
    const credential = async () => {
      const { credential: sdJwt } = await issueOne(rail.app, 'alpha', typeId, { holder: 'Ada' });
      const idx = JSON.parse(Buffer.from(sdJwt.split('.')[1] ?? '', 'base64url').toString()).status.status_list.idx;
      return (
        await rail.db
          .selectFrom('issued_credentials')
          .select('id')
          .where('tenant', '=', 'alpha')
          .where('idx', '=', idx)
          .executeTakeFirstOrThrow()
      ).id;
    };
    const revokeBulk = async (by: Headers) =>
      ok(
        await post(
          '/api/admin/approvals',
          { action: 'credentials.revoke-bulk', params: { tenant: 'alpha', credentialIds: [await credential()] } },
          by,
        ),
        201,
      ).approval as { approvalId: string; params: { credentialIds: string[] } };
    const approve = (id: string, by: Headers) => post(`/api/admin/approvals/${id}/approve`, {}, by);

    before(async () => {
      mail = await startSmtp();
      db = await factory.create();
      rail = await startRail(db, { OPENRAIL_SMTP_URL: mail.url, OPENRAIL_DEMO: 'off' }, clock, { runJobs: false });
      ok(await post('/api/tenants', { name: 'Alpha' }), 201);
      ({ typeId } = await registerType(rail.app, 'alpha', 'Alpha Pass', ['holder']));
      ownerA = await signedInOperator(rail.app, 'owner-a', ['owner']);
      opsA = await signedInOperator(rail.app, 'ops-a', ['ops']);
      taAlpha = await signedInOperator(rail.app, 'ta-alpha', ['tenant-admin'], 'alpha');
      supportA = await signedInOperator(rail.app, 'support-a', ['support']);
    });
    after(async () => {
      await rail.stop();
      await db.drop();
      await mail.close();
    });

    test('every path that creates an operator or sets how one signs in, from one table', async (t) => {
      const link = { issuer: 'https://idp.example', subject: 'someone' };
      const refused: Array<[string, () => Promise<LightMyRequestResponse>, number, string]> = [
        // A first password: the owner token's alone.
        [
          'console, password, an owner',
          () => post('/api/operators', { username: 'p1', password: PASSWORD, roles: ['ops'] }, ownerA),
          403,
          'forbidden',
        ],
        [
          'console, anything, ops',
          () => post('/api/operators', { username: 'p2', email: 'p2@x.example', roles: ['ops'] }, opsA),
          403,
          'forbidden',
        ],
        [
          'back office, password, an owner',
          () => post(PEOPLE, { username: 'p3', password: PASSWORD, roles: ['ops'] }, ownerA),
          403,
          'forbidden',
        ],
        // Only the roles that write operators create them, by invitation or identity.
        [
          'back office, invitation, ops',
          () => post(PEOPLE, { username: 'p4', email: 'p4@x.example', roles: ['ops'] }, opsA),
          403,
          'forbidden',
        ],
        [
          'back office, identity, ops',
          () => post(PEOPLE, { username: 'p5', identity: link, roles: ['ops'] }, opsA),
          403,
          'forbidden',
        ],
        [
          'back office, invitation, a tenant-admin',
          () => post(PEOPLE, { username: 'p6', email: 'p6@x.example', roles: ['tenant-admin'], tenant: 'alpha' }, taAlpha),
          403,
          'forbidden',
        ],
        // The organisation's admins are operators it already has: nobody is made there.
        [
          'org admins, password, ops',
          () => post('/api/admin/orgs/alpha/admins', { username: 'p7', password: PASSWORD }, opsA),
          400,
          'invalid_request',
        ],
        [
          'org admins, password, its tenant-admin',
          () => post('/api/admin/orgs/alpha/admins', { username: 'p8', password: PASSWORD }, taAlpha),
          400,
          'invalid_request',
        ],
        [
          'org admins, a new name, its tenant-admin',
          () => post('/api/admin/orgs/alpha/admins', { username: 'p9' }, taAlpha),
          404,
          'unknown_operator',
        ],
        // Exactly one way to sign in.
        [
          'two ways to sign in',
          () => post(PEOPLE, { username: 'p10', email: 'p10@x.example', password: PASSWORD, roles: ['ops'] }),
          400,
          'invalid_request',
        ],
        ['no way to sign in', () => post(PEOPLE, { username: 'p11', roles: ['ops'] }), 400, 'invalid_request'],
        // Another operator's password or identity: never, whatever the roles.
        [
          'password of a tenant-admin, an owner',
          () => post(`${PEOPLE}/ta-alpha/password`, { password: PASSWORD }, ownerA),
          403,
          'forbidden',
        ],
        [
          'password of ops, its tenant-admin',
          () => post(`${PEOPLE}/ops-a/password`, { password: PASSWORD }, taAlpha),
          403,
          'forbidden',
        ],
        ['password of support, ops', () => post(`${PEOPLE}/support-a/password`, { password: PASSWORD }, opsA), 403, 'forbidden'],
        ['identity of ops, an owner', () => post(`${PEOPLE}/ops-a/idp`, link, ownerA), 403, 'forbidden'],
        ['identity of an owner, support', () => post(`${PEOPLE}/owner-a/idp`, link, supportA), 403, 'forbidden'],
        [
          'unlinking the identity of an owner, support',
          () => post(`${PEOPLE}/owner-a/idp`, { issuer: null }, supportA),
          403,
          'forbidden',
        ],
        [
          'unlinking the identity of ops, an owner',
          () => post(`${PEOPLE}/ops-a/idp`, { issuer: null }, ownerA),
          403,
          'forbidden',
        ],
        // A reset goes to the address on record; only invited operators' addresses change.
        ['a reset, ops', () => post(`${PEOPLE}/support-a/invite`, {}, opsA), 403, 'forbidden'],
      ];
      for (const [name, send, status, code] of refused) {
        await t.test(name, () => refuses(send, status, code).then(() => undefined));
      }
      assert.equal(mail.messages.length, 0, 'no refused request mailed anything');

      // What is allowed: the owner token's first password; an owner's invitation or identity link;
      // an operator's own password, proving its current one.
      assert.equal(
        ok(await post('/api/operators', { username: 'first', password: PASSWORD, roles: ['owner'] }), 201).status,
        'active',
      );
      const invited = ok(
        await post(PEOPLE, { username: 'invitee', email: 'invitee@people.example', roles: ['ops'] }, ownerA),
        201,
      );
      assert.equal(invited.operator.status, 'invited');
      const linked = ok(await post(PEOPLE, { username: 'linked', identity: link, roles: ['support'] }, ownerA), 201);
      assert.deepEqual([linked.operator.status, linked.operator.identity.subject], ['active', 'someone']);
      assert.equal((await login('linked', PASSWORD)).statusCode, 401, 'an identity-only operator has no password');
      assert.equal(ok(await post('/api/login', { username: 'first', password: PASSWORD }, {})).username, 'first');
      const first = bearer(ok(await login('first', PASSWORD)).token);
      ok(await post(`${PEOPLE}/first/password`, { password: `${PASSWORD}-2`, currentPassword: PASSWORD }, first));
      const invitedMail = await mailTo(mail, 'invitee@people.example');
      assert.match(invitedMail, /operator:owner-a invited you to operate openrail as "invitee"/);
      await refuses(() => post(`${PEOPLE}/ops-a/invite`, { email: 'elsewhere@x.example' }, ownerA), 403, 'forbidden');
    });

    test('an invitation: the mailed link, the page, a password its person chooses, the link spent', async () => {
      const code = await invite('ivan', ['support'], ownerA);
      const stranger = await login('ivan', PASSWORD);
      const unknown = await login('nobody-at-all', PASSWORD);
      assert.deepEqual([stranger.statusCode, stranger.body], [unknown.statusCode, unknown.body], 'invited is not signed in');

      const page = await rail.app.inject({ method: 'GET', url: '/operator/invitation' });
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /<form id="invitation-form" method="post" action="\/operator\/invitation">/);
      assert.match(String(page.headers['content-security-policy']), /script-src 'sha256-/);

      const unchanged = () => rowCounts(rail.db, TABLES);
      const before = await unchanged();
      assert.equal((await accept(code, PASSWORD, `${PASSWORD}!`)).statusCode, 400, 'the two passwords differ');
      assert.equal((await accept(code, 'short')).statusCode, 400, 'weak');
      assert.equal((await accept(code, 'ivan-is-my-password')).statusCode, 400, 'holds the username');
      const foreign = await accept(code, PASSWORD, PASSWORD, { ...FORM, origin: 'https://evil.example' });
      assert.equal(foreign.statusCode, 403, 'from another site');
      assert.deepEqual(await unchanged(), before, 'no refusal spends the link');

      const done = await accept(code);
      assert.equal(done.statusCode, 200, done.body);
      assert.match(done.body, /<code>ivan<\/code> is ready/);
      assert.equal(ok(await login('ivan', PASSWORD)).status, 'active');
      const accepted = await rail.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'operator.invitation_accepted')
        .where('target', '=', 'ivan')
        .executeTakeFirstOrThrow();
      assert.equal(accepted.actor, 'operator:ivan', 'its own person set it');

      const again = await accept(code, `${PASSWORD}-other`);
      const garbage = await accept('A'.repeat(43), `${PASSWORD}-other`);
      assert.equal(again.statusCode, 410);
      assert.equal(garbage.statusCode, 410);
      assert.equal((await login('ivan', `${PASSWORD}-other`)).statusCode, 401, 'a spent link sets nothing');

      // An invitation lasts 72 hours.
      const late = await invite('lena', ['support'], ownerA);
      const then = now;
      now += 73 * 3_600_000;
      assert.equal((await accept(late)).statusCode, 410);
      now = then; // The operators' sessions (12 hours) live on in the other tests.
      // Only whoever invited lena (or the owner token) chooses where her invitation goes.
      const otherOwner = await signedInOperator(rail.app, 'owner-other', ['owner']);
      await refuses(() => post(`${PEOPLE}/lena/invite`, { email: 'taken-over@x.example' }, otherOwner), 403, 'forbidden');
      // Sent again, to a corrected address, it works; the first link does not.
      const resent = ok(await post(`${PEOPLE}/lena/invite`, { email: 'lena.fixed@people.example' }, ownerA));
      assert.equal(resent.operator.status, 'invited');
      const fresh = invitationCode(await mailTo(mail, 'lena.fixed@people.example'));
      assert.equal((await accept(late)).statusCode, 410);
      assert.equal((await accept(fresh)).statusCode, 200);
    });

    test('a wrong current password counts as a failed sign-in: five lock the account, the right one too', async () => {
      const session = await invitedAndAccepted('guess', ['support'], ownerA);
      const change = (currentPassword: string) =>
        post(`${PEOPLE}/guess/password`, { password: `${PASSWORD}-next`, currentPassword }, session);
      for (let i = 0; i < 5; i++) assert.equal((await change(`wrong-guess-${i}`)).statusCode, 401);
      const locked = await change(PASSWORD);
      assert.equal(locked.statusCode, 401, 'locked');
      assert.equal((await login('guess', PASSWORD)).statusCode, 401, 'and its sign-in too');
    });

    test('a password reset: mailed to the address on record, the old password works until the new one is chosen', async () => {
      const session = await invitedAndAccepted('rosa', ['support'], ownerA);
      ok(await post(`${PEOPLE}/rosa/invite`, {}, ownerA));
      const resetMail = await mailTo(mail, 'rosa@people.example', 1);
      assert.match(resetMail, /Subject: Reset your openrail operator password/);
      assert.equal((await login('rosa', PASSWORD)).statusCode, 200, 'nothing changes until rosa acts');
      assert.equal((await accept(invitationCode(resetMail), `${PASSWORD}-new`)).statusCode, 200);
      assert.equal(
        (await rail.app.inject({ method: 'GET', url: '/api/admin/me', headers: session })).statusCode,
        401,
        'sessions end',
      );
      assert.equal((await login('rosa', PASSWORD)).statusCode, 401);
      assert.equal((await login('rosa', `${PASSWORD}-new`)).statusCode, 200);
    });

    test('four eyes means two people: the account an operator invited never decides its requests, nor it theirs', async () => {
      // The probe's escalation: an owner invites an account at an address it reads, and takes it.
      const puppet = await invitedAndAccepted('puppet', ['ops'], ownerA);
      const mine = await revokeBulk(ownerA);
      const byPuppet = await approve(mine.approvalId, puppet);
      assert.equal(byPuppet.statusCode, 403, byPuppet.body);
      assert.equal(byPuppet.json().error, 'same_operator');
      assert.match(byPuppet.json().message, /linked to operator:owner-a/);
      const revoked = await rail.db
        .selectFrom('issued_credentials')
        .select('revoked_at')
        .where('id', 'in', mine.params.credentialIds)
        .execute();
      assert.deepEqual(
        revoked.map((r) => r.revoked_at),
        [null],
        'nothing was revoked',
      );
      // Stopping an action is no way around four eyes: a linked operator may reject.
      const stoppable = await revokeBulk(ownerA);
      assert.equal(ok(await post(`/api/admin/approvals/${stoppable.approvalId}/reject`, {}, puppet)).approval.state, 'rejected');
      const today = ok(await rail.app.inject({ method: 'GET', url: '/api/admin/today', headers: puppet }));
      assert.ok(!JSON.stringify(today).includes(mine.approvalId), 'it is not among the approvals the puppet could decide');
      // The other way round too.
      const theirs = await revokeBulk(puppet);
      assert.equal((await approve(theirs.approvalId, ownerA)).json().error, 'same_operator');
      // A person of its own decides: an operator the owner token made.
      assert.equal(ok(await approve(mine.approvalId, opsA)).approval.state, 'approved');
    });

    test('four eyes follows links down a chain, never across siblings', async () => {
      // owner-a invites mid, whom the owner token makes an owner; mid invites leaf.
      await invitedAndAccepted('mid', ['ops'], ownerA);
      ok(await post(`${PEOPLE}/mid/roles`, { roles: ['owner'] }));
      const mid = bearer(ok(await login('mid', PASSWORD)).token);
      const leaf = await invitedAndAccepted('leaf', ['ops'], mid);
      const mine = await revokeBulk(ownerA);
      const byLeaf = await approve(mine.approvalId, leaf);
      assert.equal(byLeaf.json().error, 'same_operator', 'leaf is down owner-a’s chain');
      assert.equal((await approve((await revokeBulk(leaf)).approvalId, ownerA)).json().error, 'same_operator');
      // Two operators one owner invited are not one person through that owner.
      const [sib1, sib2] = [
        await invitedAndAccepted('sib-1', ['ops'], ownerA),
        await invitedAndAccepted('sib-2', ['ops'], ownerA),
      ];
      assert.equal(ok(await approve((await revokeBulk(sib1)).approvalId, sib2)).approval.state, 'approved');
    });

    test('four eyes means two people: operators that shared an enterprise identity are one person', async () => {
      const identity = { issuer: 'https://login.example.org', subject: 'the-same-person' };
      for (const username of ['twin-1', 'twin-2']) {
        ok(await post('/api/operators', { username, password: PASSWORD, roles: ['owner'] }), 201);
      }
      // Linked to twin-1, then moved to twin-2: the history remembers.
      ok(await post(`${PEOPLE}/twin-1/idp`, identity));
      ok(await post(`${PEOPLE}/twin-1/idp`, { issuer: null }));
      ok(await post(`${PEOPLE}/twin-2/idp`, identity));
      const twin1 = bearer(ok(await login('twin-1', PASSWORD)).token);
      const twin2 = bearer(ok(await login('twin-2', PASSWORD)).token);
      const mine = await revokeBulk(twin1);
      assert.equal((await approve(mine.approvalId, twin2)).json().error, 'same_operator');

      // The integration token desk holds the same rule.
      const request = ok(
        await post(
          '/api/admin/integration/provisioning',
          { tenant: 'alpha', label: 'Backend', reason: 'Nightly', scopes: ['issuance'], rateClass: 'standard' },
          twin1,
        ),
        201,
      ).request;
      await refuses(() => post('/api/admin/integration/tokens', { requestId: request.id }, twin2), 403, 'same_operator');
      assert.equal((await post('/api/admin/integration/tokens', { requestId: request.id }, ownerA)).statusCode, 201);
    });
  });
}
