import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { accountOf, type HolderKey, holderJws, newHolderKey } from '../../../test/helpers/holder.ts';
import { issueOne, registerType } from '../../../test/helpers/issuance.ts';
import { present } from '../../../test/helpers/presentation.ts';
import { bearer, owner, PUBLIC_URL, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import type { Clock } from '../../core/clock.ts';

const thumbprint = accountOf;
const fakeAccount = () => randomBytes(32).toString('base64url');
const HOUR = 3600 * 1000;
const TABLES = ['members', 'coin_entries', 'proposals', 'votes', 'enrolment_types', 'audit_log', 'outbox'] as const;

for (const factory of testDatabases()) {
  describe(`membership and governance (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let now = Date.now();
    const clock: Clock = { now: () => now };
    let alphaOnly: Record<string, string>;
    let passVct: string;
    let ticketVct: string;

    const post = (url: string, payload: unknown, headers: Record<string, string> = owner) =>
      rail.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });
    const asHolder = async (key: HolderKey): Promise<Record<string, string>> => ({
      authorization: `Holder ${await holderJws({ aud: PUBLIC_URL, iat: Math.floor(now / 1000) }, { key })}`,
    });
    const counts = async () => {
      const out: Record<string, number> = {};
      for (const t of TABLES) {
        const r = await sql<{ n: number }>`select count(*) as n from ${sql.table(t)}`.execute(rail.db);
        out[t] = Number(r.rows[0]?.n);
      }
      const spent = await sql<{
        n: number;
      }>`select count(*) as n from presentation_transactions where enrolled_at is not null`.execute(rail.db);
      out.spentTransactions = Number(spent.rows[0]?.n);
      return out;
    };
    /** Asserts the refusal and that it changed nothing. */
    const refuses = async (send: () => Promise<LightMyRequestResponse>, status: number, code: string) => {
      const before = await counts();
      const res = await send();
      assert.equal(res.statusCode, status, res.body);
      assert.equal(res.json().error, code, res.body);
      assert.deepEqual(await counts(), before, `${code} changed nothing`);
      return res;
    };
    const enrol = async (tenant: string, accountId: string, extra: Record<string, unknown> = {}) => {
      const res = await post('/api/members/enroll', { tenant, accountId, ...extra });
      assert.equal(res.statusCode, 201, res.body);
      return res.json();
    };
    const coins = (tenant: string, accountId: string, delta: number, idempotencyKey: string, reason = 'desk') =>
      post('/api/members/update', { tenant, accountId, coins: { delta, reason, idempotencyKey } });
    const proposal = (body: Record<string, unknown>, headers: Record<string, string> = owner) =>
      post('/api/proposals', body, headers);
    const openProposal = async (tenant: string, extra: Record<string, unknown> = {}) => {
      const created = await proposal({
        tenant,
        action: 'create',
        title: 'New clubhouse colour',
        options: ['Green', 'Blue', 'Red'],
        opensAt: new Date(now - HOUR).toISOString(),
        closesAt: new Date(now + HOUR).toISOString(),
        ...extra,
      });
      assert.equal(created.statusCode, 201, created.body);
      const opened = await proposal({ tenant, action: 'open', proposalId: created.json().proposalId });
      assert.equal(opened.statusCode, 200, opened.body);
      return opened.json() as { proposalId: string };
    };

    /** A hosted verification of `vct` answered by the holder of `issued`; `ok` false sends a wrong nonce. */
    /** A hosted verification, answered by the holder's wallet unless `issued` is null; `redirectUri` makes it same-device. */
    const verification = async (
      vct: string,
      issued: { credential: string; key: HolderKey } | null,
      ok = true,
      redirectUri?: string,
    ) => {
      const req = await post(
        '/verify/request',
        { vct, claims: [], nonce: randomBytes(18).toString('base64url'), aud: 'https://club.example', redirectUri },
        {},
      );
      assert.equal(req.statusCode, 201, req.body);
      const { transactionId, resultToken } = req.json();
      if (issued) {
        const object = await rail.app.inject({ method: 'GET', url: `/oid4vp/request/${transactionId}` });
        const payload = JSON.parse(Buffer.from(object.body.split('.')[1] ?? '', 'base64url').toString());
        const vp = await present(issued.credential, issued.key, [], {
          nonce: ok ? payload.nonce : 'not-the-nonce-0123456789',
          iat: Math.floor(now / 1000),
        });
        const res = await rail.app.inject({
          method: 'POST',
          url: '/oid4vp/response',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ vp_token: JSON.stringify({ credential: [vp] }), state: payload.state }).toString(),
        });
        assert.equal(res.statusCode, ok ? 200 : 400, res.body);
        const code = ok && redirectUri ? /#response_code=([\w-]+)$/.exec(res.json().redirect_uri)?.[1] : undefined;
        return { transactionId, resultToken, responseCode: code };
      }
      return { transactionId, resultToken };
    };

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, {}, clock, { runJobs: false });
      for (const name of ['Alpha', 'Beta']) assert.equal((await post('/api/tenants', { name })).statusCode, 201);
      const password = `pw-${randomBytes(12).toString('hex')}`;
      const made = await post('/api/operators', { username: 'alpha-admin', password, roles: ['tenant-admin'], tenant: 'alpha' });
      assert.equal(made.statusCode, 201, made.body);
      alphaOnly = bearer((await post('/api/login', { username: 'alpha-admin', password }, {})).json().token);
      passVct = (await registerType(rail.app, 'alpha', 'Club Pass', ['holder_name'])).vct;
      ticketVct = (await registerType(rail.app, 'alpha', 'Day Ticket', ['holder_name'])).vct;
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('an operator enrols an account; the record, its audit entry and its event are written together', async () => {
      const account = fakeAccount();
      const before = await counts();
      const res = await post('/api/members/enroll', {
        tenant: 'alpha',
        accountId: account,
        displayName: '  Ada  Lovelace ',
        tier: 'gold',
      });
      assert.equal(res.statusCode, 201, res.body);
      const m = res.json();
      assert.deepEqual(
        { ...m, joinedAt: undefined },
        {
          tenant: 'alpha',
          accountId: account,
          displayName: 'Ada Lovelace',
          tier: 'gold',
          status: 'active',
          balance: 0,
          joinedAt: undefined,
        },
      );
      assert.equal(m.joinedAt, new Date(now).toISOString());
      const after = await counts();
      assert.equal(after.members, Number(before.members) + 1);
      assert.equal(after.audit_log, Number(before.audit_log) + 1);
      assert.equal(after.outbox, Number(before.outbox) + 1);
      const event = await rail.db.selectFrom('outbox').selectAll().orderBy('seq', 'desc').executeTakeFirstOrThrow();
      assert.equal(event.type, 'member.enrolled');
      assert.deepEqual(JSON.parse(event.data), { accountId: account, via: 'operator', tier: 'gold' });
      const audit = await rail.db.selectFrom('audit_log').selectAll().orderBy('seq', 'desc').executeTakeFirstOrThrow();
      assert.equal(audit.action, 'member.enrolled');
      assert.equal(audit.actor, 'owner-token');
    });

    test('enrolment refusals: again, unknown tenant, bad bodies, another tenant’s scope', async () => {
      const account = fakeAccount();
      await enrol('alpha', account);
      await refuses(() => post('/api/members/enroll', { tenant: 'alpha', accountId: account }), 409, 'already_member');
      await refuses(() => post('/api/members/enroll', { tenant: 'nowhere', accountId: fakeAccount() }), 404, 'unknown_tenant');
      await refuses(() => post('/api/members/enroll', { tenant: 'alpha', accountId: 'short' }), 400, 'invalid_request');
      await refuses(
        () => post('/api/members/enroll', { tenant: 'alpha', accountId: fakeAccount(), displayName: 'A\u202Eevil' }),
        400,
        'invalid_request',
      );
      await refuses(
        () => post('/api/members/enroll', { tenant: 'alpha', accountId: fakeAccount(), tier: 'Gold Tier' }),
        400,
        'invalid_request',
      );
      await refuses(() => post('/api/members/enroll', { tenant: 'beta', accountId: fakeAccount() }, alphaOnly), 403, 'forbidden');
      // The scoped operator acts on its own tenant.
      assert.equal((await post('/api/members/enroll', { tenant: 'alpha', accountId: fakeAccount() }, alphaOnly)).statusCode, 201);
    });

    test('update: tier, display name and status; erased is final and drops the display name', async () => {
      const account = fakeAccount();
      await enrol('alpha', account, { displayName: 'Grace' });
      const res = await post('/api/members/update', { tenant: 'alpha', accountId: account, tier: 'silver', status: 'suspended' });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().member.tier, 'silver');
      assert.equal(res.json().member.status, 'suspended');
      const event = await rail.db.selectFrom('outbox').selectAll().orderBy('seq', 'desc').executeTakeFirstOrThrow();
      assert.equal(event.type, 'member.updated');
      assert.deepEqual(JSON.parse(event.data), {
        accountId: account,
        changed: ['tier', 'status'],
        tier: 'silver',
        status: 'suspended',
      });
      const erased = await post('/api/members/update', { tenant: 'alpha', accountId: account, status: 'erased' });
      assert.equal(erased.json().member.displayName, null);
      await refuses(
        () => post('/api/members/update', { tenant: 'alpha', accountId: account, status: 'active' }),
        409,
        'member_erased',
      );
      await refuses(() => coins('alpha', account, 5, 'erased-1'), 409, 'member_erased');
      await refuses(
        () => post('/api/members/update', { tenant: 'alpha', accountId: fakeAccount(), tier: 'x' }),
        404,
        'unknown_member',
      );
      await refuses(() => post('/api/members/update', { tenant: 'alpha', accountId: account }), 400, 'invalid_request');
      const other = fakeAccount();
      await enrol('alpha', other);
      await refuses(
        () =>
          post('/api/members/update', {
            tenant: 'alpha',
            accountId: other,
            tier: 'x',
            coins: { delta: 1, reason: 'r', idempotencyKey: 'k' },
          }),
        400,
        'invalid_request',
      );
      // Another tenant's member is not found from there, and a scoped operator cannot reach it.
      await refuses(() => post('/api/members/update', { tenant: 'beta', accountId: other, tier: 'x' }), 404, 'unknown_member');
      await enrol('beta', other);
      await refuses(
        () => post('/api/members/update', { tenant: 'beta', accountId: other, tier: 'x' }, alphaOnly),
        403,
        'forbidden',
      );
    });

    test('coins: grants, debits, idempotent keys, never below zero', async () => {
      const account = fakeAccount();
      await enrol('alpha', account);
      const grant = await coins('alpha', account, 10, 'grant-1', 'welcome');
      assert.equal(grant.statusCode, 200, grant.body);
      assert.equal(grant.json().member.balance, 10);
      assert.deepEqual(
        { ...grant.json().coinEntry, createdAt: undefined },
        {
          delta: 10,
          reason: 'welcome',
          idempotencyKey: 'grant-1',
          balanceAfter: 10,
          createdAt: undefined,
        },
      );
      // The same body again: the same entry, nothing written.
      const before = await counts();
      const again = await coins('alpha', account, 10, 'grant-1', 'welcome');
      assert.equal(again.statusCode, 200);
      assert.deepEqual(again.json(), grant.json());
      assert.deepEqual(await counts(), before);
      await refuses(() => coins('alpha', account, 11, 'grant-1', 'welcome'), 409, 'idempotency_conflict');
      await refuses(() => coins('alpha', account, 10, 'grant-1', 'other reason'), 409, 'idempotency_conflict');
      await refuses(() => coins('alpha', fakeAccount(), 10, 'grant-1', 'welcome'), 404, 'unknown_member');
      const debit = await coins('alpha', account, -7, 'spend-1');
      assert.equal(debit.json().member.balance, 3);
      await refuses(() => coins('alpha', account, -4, 'spend-2'), 409, 'insufficient_balance');
      // The refused key was not spent: it may be used for a debit that fits.
      assert.equal((await coins('alpha', account, -3, 'spend-2')).json().member.balance, 0);
      await refuses(() => coins('alpha', account, 0, 'zero'), 400, 'invalid_request');
      const stored = await rail.db
        .selectFrom('members')
        .select('balance')
        .where('tenant', '=', 'alpha')
        .where('account_id', '=', account)
        .executeTakeFirstOrThrow();
      assert.equal(Number(stored.balance), 0);
      const sum = await rail.db
        .selectFrom('coin_entries')
        .select((eb) => eb.fn.sum<number>('delta').as('s'))
        .where('account_id', '=', account)
        .executeTakeFirstOrThrow();
      assert.equal(Number(sum.s), 0, 'the ledger adds up to the balance');
      // Keys are the tenant's: beta may use the same one.
      await enrol('beta', account);
      assert.equal((await coins('beta', account, 2, 'grant-1', 'welcome')).statusCode, 200);
    });

    test('concurrent debits against a small balance never take it below zero', async () => {
      const account = fakeAccount();
      await enrol('alpha', account);
      await coins('alpha', account, 5, 'race-grant');
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => coins('alpha', account, -1, `race-${i}`)));
      assert.equal(results.filter((r) => r.statusCode === 200).length, 5);
      assert.ok(results.every((r) => r.statusCode === 200 || r.json().error === 'insufficient_balance'));
      const m = await rail.db.selectFrom('members').select('balance').where('account_id', '=', account).executeTakeFirstOrThrow();
      assert.equal(Number(m.balance), 0);
    });

    test('proposals: draft, open, vote by wallet and at a desk, close with the tally', async () => {
      const voter = await newHolderKey();
      const deskMember = fakeAccount();
      await enrol('alpha', thumbprint(voter), { tier: 'gold' });
      await enrol('alpha', deskMember, { tier: 'gold' });
      const created = await proposal({
        tenant: 'alpha',
        action: 'create',
        title: 'Season dates',
        options: ['Spring', 'Autumn'],
        tiers: ['gold'],
        opensAt: new Date(now - HOUR).toISOString(),
        closesAt: new Date(now + HOUR).toISOString(),
      });
      assert.equal(created.statusCode, 201, created.body);
      const p = created.json();
      assert.equal(p.state, 'draft');
      assert.equal(p.tally, undefined);
      // A draft takes no votes.
      await refuses(
        async () => post('/member/vote', { proposalId: p.proposalId, option: 'Spring' }, await asHolder(voter)),
        409,
        'proposal_not_open',
      );
      const opened = await proposal({ tenant: 'alpha', action: 'open', proposalId: p.proposalId });
      assert.equal(opened.json().state, 'open');
      await refuses(() => proposal({ tenant: 'alpha', action: 'open', proposalId: p.proposalId }), 409, 'proposal_state');
      // The holder sees it, not yet voted.
      const me = await rail.app.inject({ method: 'GET', url: '/member/me', headers: await asHolder(voter) });
      assert.equal(me.statusCode, 200, me.body);
      assert.deepEqual(
        me.json().proposals.find((x: { proposalId: string }) => x.proposalId === p.proposalId),
        {
          proposalId: p.proposalId,
          tenant: 'alpha',
          title: 'Season dates',
          options: ['Spring', 'Autumn'],
          opensAt: p.opensAt,
          closesAt: p.closesAt,
          voted: false,
        },
      );
      const vote = await post('/member/vote', { proposalId: p.proposalId, option: 'Spring' }, await asHolder(voter));
      assert.equal(vote.statusCode, 201, vote.body);
      assert.equal(vote.json().assisted, false);
      const voteEvent = await rail.db.selectFrom('outbox').selectAll().orderBy('seq', 'desc').executeTakeFirstOrThrow();
      assert.equal(voteEvent.type, 'vote.cast');
      assert.ok(!voteEvent.data.includes('Spring'), 'the event does not carry the ballot');
      await refuses(
        async () => post('/member/vote', { proposalId: p.proposalId, option: 'Autumn' }, await asHolder(voter)),
        409,
        'already_voted',
      );
      await refuses(
        () =>
          post('/api/proposals/vote', {
            tenant: 'alpha',
            proposalId: p.proposalId,
            accountId: thumbprint(voter),
            option: 'Autumn',
          }),
        409,
        'already_voted',
      );
      const desk = await post('/api/proposals/vote', {
        tenant: 'alpha',
        proposalId: p.proposalId,
        accountId: deskMember,
        option: 'Autumn',
      });
      assert.equal(desk.statusCode, 201, desk.body);
      assert.equal(desk.json().assisted, true);
      const seen = await rail.app.inject({ method: 'GET', url: '/v1/member/me', headers: await asHolder(voter) });
      assert.equal(seen.json().proposals.find((x: { proposalId: string }) => x.proposalId === p.proposalId).voted, true);
      // No tally before the close.
      const shown = await proposal({ tenant: 'alpha', action: 'show', proposalId: p.proposalId });
      assert.equal(shown.json().tally, undefined);
      assert.equal(shown.json().votesCast, 2);
      const closed = await proposal({ tenant: 'alpha', action: 'close', proposalId: p.proposalId });
      assert.equal(closed.statusCode, 200, closed.body);
      const tally = {
        total: 2,
        assisted: 1,
        options: [
          { option: 'Spring', votes: 1, assisted: 0 },
          { option: 'Autumn', votes: 1, assisted: 1 },
        ],
      };
      assert.deepEqual(closed.json().tally, tally);
      assert.deepEqual((await proposal({ tenant: 'alpha', action: 'show', proposalId: p.proposalId })).json().tally, tally);
      const closeEvent = await rail.db.selectFrom('outbox').selectAll().orderBy('seq', 'desc').executeTakeFirstOrThrow();
      assert.equal(closeEvent.type, 'proposal.closed');
      assert.deepEqual(JSON.parse(closeEvent.data), { proposalId: p.proposalId, tally });
      await refuses(() => proposal({ tenant: 'alpha', action: 'close', proposalId: p.proposalId }), 409, 'proposal_state');
      await refuses(
        () =>
          post('/api/proposals/vote', { tenant: 'alpha', proposalId: p.proposalId, accountId: fakeAccount(), option: 'Spring' }),
        403,
        'not_a_member',
      );
      const late = fakeAccount();
      await enrol('alpha', late, { tier: 'gold' });
      await refuses(
        () => post('/api/proposals/vote', { tenant: 'alpha', proposalId: p.proposalId, accountId: late, option: 'Spring' }),
        409,
        'proposal_not_open',
      );
      const after = await rail.app.inject({ method: 'GET', url: '/member/me', headers: await asHolder(voter) });
      assert.equal(
        after.json().proposals.some((x: { proposalId: string }) => x.proposalId === p.proposalId),
        false,
      );
    });

    test('vote refusals: not a member, inactive, tier, option, window, unknown, other tenant', async () => {
      const key = await newHolderKey();
      const account = thumbprint(key);
      const { proposalId } = await openProposal('alpha', { tiers: ['gold'] });
      const vote = async (option = 'Green', id = proposalId) =>
        post('/member/vote', { proposalId: id, option }, await asHolder(key));
      await refuses(() => vote(), 403, 'not_a_member');
      await enrol('alpha', account, { tier: 'bronze' });
      await refuses(() => vote(), 403, 'not_eligible');
      await post('/api/members/update', { tenant: 'alpha', accountId: account, tier: 'gold', status: 'suspended' });
      await refuses(() => vote(), 403, 'member_inactive');
      await post('/api/members/update', { tenant: 'alpha', accountId: account, status: 'active' });
      await refuses(() => vote('Purple'), 400, 'unknown_option');
      await refuses(() => vote('Green', `prop_${'A'.repeat(22)}`), 404, 'unknown_proposal');
      await refuses(
        async () => post('/member/vote', { proposalId, option: 'Green', extra: 1 }, await asHolder(key)),
        400,
        'invalid_request',
      );
      await refuses(() => post('/member/vote', { proposalId, option: 'Green' }, {}), 401, 'unauthorized');
      await refuses(() => post('/member/vote', { proposalId, option: 'Green' }), 401, 'unauthorized');
      // A proposal whose window has not begun, or has ended.
      const future = await openProposal('alpha', {
        opensAt: new Date(now + HOUR).toISOString(),
        closesAt: new Date(now + 2 * HOUR).toISOString(),
      });
      await refuses(() => vote('Green', future.proposalId), 409, 'proposal_not_open');
      now += 3 * HOUR;
      try {
        await refuses(() => vote('Green', future.proposalId), 409, 'proposal_not_open');
      } finally {
        now -= 3 * HOUR;
      }
      // Another tenant's operator, and another tenant named with this proposal.
      await refuses(
        () => post('/api/proposals/vote', { tenant: 'beta', proposalId, accountId: account, option: 'Green' }, alphaOnly),
        403,
        'forbidden',
      );
      await refuses(
        () => post('/api/proposals/vote', { tenant: 'beta', proposalId, accountId: account, option: 'Green' }),
        404,
        'unknown_proposal',
      );
      await refuses(() => proposal({ tenant: 'beta', action: 'close', proposalId }), 404, 'unknown_proposal');
      await refuses(() => proposal({ tenant: 'beta', action: 'show', proposalId }, alphaOnly), 403, 'forbidden');
      assert.equal((await vote()).statusCode, 201);
    });

    test('proposal bodies are checked per action', async () => {
      const base = { tenant: 'alpha', action: 'create', title: 'T', options: ['A', 'B'] };
      const at = (ms: number) => new Date(now + ms).toISOString();
      await refuses(() => proposal({ ...base, opensAt: at(0) }), 400, 'invalid_request');
      await refuses(() => proposal({ ...base, opensAt: at(HOUR), closesAt: at(0) }), 400, 'invalid_request');
      await refuses(() => proposal({ ...base, opensAt: at(-2 * HOUR), closesAt: at(-HOUR) }), 400, 'invalid_request');
      await refuses(() => proposal({ ...base, options: ['A'], opensAt: at(0), closesAt: at(HOUR) }), 400, 'invalid_request');
      await refuses(() => proposal({ ...base, options: ['A', 'A'], opensAt: at(0), closesAt: at(HOUR) }), 400, 'invalid_request');
      await refuses(
        () => proposal({ ...base, options: Array.from({ length: 17 }, (_, i) => `o${i}`), opensAt: at(0), closesAt: at(HOUR) }),
        400,
        'invalid_request',
      );
      await refuses(() => proposal({ ...base, opensAt: at(0), closesAt: at(400 * 24 * HOUR) }), 400, 'invalid_request');
      await refuses(() => proposal({ tenant: 'alpha', action: 'open' }), 400, 'invalid_request');
      await refuses(
        () => proposal({ tenant: 'alpha', action: 'open', proposalId: `prop_${'B'.repeat(22)}`, title: 'x' }),
        400,
        'invalid_request',
      );
      await refuses(
        () => proposal({ tenant: 'alpha', action: 'open', proposalId: `prop_${'B'.repeat(22)}` }),
        404,
        'unknown_proposal',
      );
      await refuses(() => proposal({ ...base, tenant: 'beta', opensAt: at(0), closesAt: at(HOUR) }, alphaOnly), 403, 'forbidden');
      await refuses(() => proposal({ ...base, title: '\u0000', opensAt: at(0), closesAt: at(HOUR) }), 400, 'invalid_request');
    });

    test('many concurrent votes by one member: exactly one counts', async () => {
      const key = await newHolderKey();
      await enrol('alpha', thumbprint(key));
      const { proposalId } = await openProposal('alpha');
      const headers = await Promise.all(Array.from({ length: 10 }, () => asHolder(key)));
      const results = await Promise.all(
        headers.map((h, i) => post('/member/vote', { proposalId, option: i % 2 ? 'Green' : 'Blue' }, h)),
      );
      assert.equal(results.filter((r) => r.statusCode === 201).length, 1, results.map((r) => r.body).join('\n'));
      assert.ok(results.filter((r) => r.statusCode !== 201).every((r) => r.json().error === 'already_voted'));
      const closed = await proposal({ tenant: 'alpha', action: 'close', proposalId });
      assert.equal(closed.json().tally.total, 1);
    });

    test('enrolment types: only the tenant’s own types, replaced as a set', async () => {
      await refuses(
        () => post('/api/members/enrolment-types', { tenant: 'alpha', typeIds: ['no-such-type'] }),
        404,
        'unknown_type',
      );
      await refuses(() => post('/api/members/enrolment-types', { tenant: 'beta', typeIds: ['club-pass'] }), 404, 'unknown_type');
      await refuses(
        () => post('/api/members/enrolment-types', { tenant: 'alpha', typeIds: ['club-pass', 'club-pass'] }),
        400,
        'invalid_request',
      );
      await refuses(() => post('/api/members/enrolment-types', { tenant: 'beta', typeIds: [] }, alphaOnly), 403, 'forbidden');
      const set = await post('/api/members/enrolment-types', { tenant: 'alpha', typeIds: ['club-pass'] });
      assert.equal(set.statusCode, 200, set.body);
      assert.deepEqual(set.json(), { tenant: 'alpha', typeIds: ['club-pass'] });
    });

    test('POST /member/enroll: the holder who presented is enrolled, once; every refusal changes nothing', async () => {
      assert.equal((await post('/api/members/enrolment-types', { tenant: 'alpha', typeIds: ['club-pass'] })).statusCode, 200);
      const issued = await issueOne(rail.app, 'alpha', 'club-pass', { holder_name: 'Ada' });
      const done = await verification(passVct, issued);
      const enroll = (body: Record<string, unknown>) => post('/member/enroll', body, {});
      // A wrong result token reads as an unknown transaction.
      await refuses(() => enroll({ transactionId: done.transactionId, resultToken: 'vrt_wrong' }), 404, 'unknown_transaction');
      await refuses(
        () => enroll({ transactionId: `vtx_${'C'.repeat(22)}`, resultToken: done.resultToken }),
        404,
        'unknown_transaction',
      );
      const res = await enroll(done);
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().accountId, thumbprint(issued.key));
      assert.equal(res.json().tenant, 'alpha');
      const audit = await rail.db.selectFrom('audit_log').selectAll().orderBy('seq', 'desc').executeTakeFirstOrThrow();
      assert.equal(audit.actor, `holder:${thumbprint(issued.key)}`);
      assert.ok(!audit.detail.includes('Ada'), 'no claim value is recorded');
      const tx = await rail.db
        .selectFrom('presentation_transactions')
        .select(['holder_thumbprint', 'outcome'])
        .where('id', '=', done.transactionId)
        .executeTakeFirstOrThrow();
      assert.equal(tx.holder_thumbprint, thumbprint(issued.key));
      // Reused: the transaction enrols at most once.
      await refuses(() => enroll(done), 409, 'transaction_used');
      // The member is seen by its wallet.
      const me = await rail.app.inject({ method: 'GET', url: '/member/me', headers: await asHolder(issued.key) });
      const mine = me.json().memberships;
      assert.equal(mine.length, 1);
      assert.equal(mine[0].tenantName, 'Alpha');
      // Already a member: a second good transaction is refused and stays unspent.
      const second = await verification(passVct, issued);
      await refuses(() => enroll(second), 409, 'already_member');
      // Pending, failed, and a type the tenant does not enrol with.
      const pending = await verification(passVct, null);
      await refuses(() => enroll(pending), 409, 'verification_pending');
      const other = await issueOne(rail.app, 'alpha', 'club-pass', { holder_name: 'Bob' });
      const failed = await verification(passVct, other, false);
      await refuses(() => enroll(failed), 409, 'verification_failed');
      const ticket = await issueOne(rail.app, 'alpha', 'day-ticket', { holder_name: 'Bob' });
      const wrongType = await verification(ticketVct, ticket);
      await refuses(() => enroll(wrongType), 403, 'type_not_enrolling');
      // An expired transaction is unknown.
      const late = await verification(passVct, other);
      now += 11 * 60 * 1000;
      try {
        await refuses(() => enroll(late), 404, 'unknown_transaction');
      } finally {
        now -= 11 * 60 * 1000;
      }
      await refuses(() => enroll({ transactionId: done.transactionId }), 400, 'invalid_request');
    });

    test('POST /member/enroll: a same-device answer enrols only with the response code its browser brought back', async () => {
      assert.equal((await post('/api/members/enrolment-types', { tenant: 'alpha', typeIds: ['club-pass'] })).statusCode, 200);
      const issued = await issueOne(rail.app, 'alpha', 'club-pass', { holder_name: 'Grace' });
      const { responseCode, ...done } = await verification(passVct, issued, true, 'https://club.example/back');
      assert.ok(responseCode, 'the wallet is sent back with a response code');
      const enroll = (headers: Record<string, string>) => post('/member/enroll', done, headers);
      // Whoever holds only the result token (the party that opened it) enrols no one.
      await refuses(() => enroll({}), 403, 'response_code_required');
      await refuses(() => enroll({ 'response-code': `${responseCode}x` }), 403, 'wrong_response_code');
      const res = await enroll({ 'response-code': responseCode });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().accountId, thumbprint(issued.key));
    });

    test('racing requests: one transaction enrols once; one idempotency key applies once', async () => {
      assert.equal((await post('/api/members/enrolment-types', { tenant: 'alpha', typeIds: ['club-pass'] })).statusCode, 200);
      const issued = await issueOne(rail.app, 'alpha', 'club-pass', { holder_name: 'Eve' });
      const done = await verification(passVct, issued);
      const enrolments = await Promise.all(Array.from({ length: 6 }, () => post('/member/enroll', done, {})));
      assert.equal(enrolments.filter((r) => r.statusCode === 201).length, 1, enrolments.map((r) => r.body).join('\n'));
      assert.ok(enrolments.filter((r) => r.statusCode !== 201).every((r) => r.json().error === 'transaction_used'));
      const account = thumbprint(issued.key);
      const grants = await Promise.all(Array.from({ length: 6 }, () => coins('alpha', account, 7, 'race-once', 'bonus')));
      assert.ok(
        grants.every((r) => r.statusCode === 200),
        grants.map((r) => r.body).join('\n'),
      );
      assert.ok(grants.every((r) => JSON.stringify(r.json().coinEntry) === JSON.stringify(grants[0]?.json().coinEntry)));
      const m = await rail.db.selectFrom('members').select('balance').where('account_id', '=', account).executeTakeFirstOrThrow();
      assert.equal(Number(m.balance), 7, 'granted once');
    });

    test('a scoped operator never reaches another tenant’s members or proposals', async () => {
      const account = fakeAccount();
      await enrol('beta', account);
      const { proposalId } = await openProposal('beta');
      for (const [url, body] of [
        ['/api/members/enroll', { tenant: 'beta', accountId: fakeAccount() }],
        ['/api/members/update', { tenant: 'beta', accountId: account, tier: 'x' }],
        ['/api/members/update', { tenant: 'beta', accountId: account, coins: { delta: 5, reason: 'r', idempotencyKey: 'iso' } }],
        ['/api/proposals', { tenant: 'beta', action: 'close', proposalId }],
        ['/api/proposals/vote', { tenant: 'beta', proposalId, accountId: account, option: 'Green' }],
        ['/api/members/enrolment-types', { tenant: 'beta', typeIds: [] }],
      ] as const) {
        await refuses(() => post(url, body, alphaOnly), 403, 'forbidden');
      }
      // Named under its own tenant, beta's proposal is not found.
      await refuses(
        () => post('/api/proposals/vote', { tenant: 'alpha', proposalId, accountId: account, option: 'Green' }, alphaOnly),
        404,
        'unknown_proposal',
      );
    });
  });
}
