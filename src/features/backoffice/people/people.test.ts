/**
 * The people views of the back office (docs/backoffice/people.md), over HTTP on each engine:
 * members, governance (list and the membership service's use cases), the coin ledger, consent and
 * the economy across tenants; their filters and pages; a tenant-admin held to its own tenant.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { type TestDatabase, testDatabases } from '../../../../test/helpers/databases.ts';
import { billBody } from '../../../../test/helpers/deposits.ts';
import { accountOf, type HolderKey, holderJws, newHolderKey } from '../../../../test/helpers/holder.ts';
import { signedInOperator } from '../../../../test/helpers/operators.ts';
import { owner, ownerCalls, PUBLIC_URL, startRail, type TestRail } from '../../../../test/helpers/rail.ts';
import { ok, refusedUnchanged, rowCounts } from '../../../../test/helpers/refusals.ts';

const BASE = '/api/admin/people';
const TABLES = ['proposals', 'votes', 'members', 'coin_entries', 'audit_log', 'outbox'] as const;
type Headers = Record<string, string>;
const account = () => randomBytes(32).toString('base64url').slice(0, 43);

for (const factory of testDatabases()) {
  describe(`back-office people views (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let alphaAdmin: Headers;
    let betaAdmin: Headers;
    let analyst: Headers;
    let support: Headers;
    /** Members enrolled by the suite: alpha has four, beta two. */
    const alpha: string[] = [];
    const beta: string[] = [];

    const { post, get } = ownerCalls(() => rail);
    const refuses = (send: () => Promise<LightMyRequestResponse>, status: number, code: string) =>
      refusedUnchanged(() => rowCounts(rail.db, TABLES), send, status, code);
    const enrol = async (tenant: string, tier = 'member') => {
      const accountId = account();
      ok(await post('/api/members/enroll', { tenant, accountId, tier, displayName: 'Marguerite Example' }), 201);
      return accountId;
    };
    const coins = async (tenant: string, accountId: string | undefined, delta: number) =>
      ok(
        await post('/api/members/update', {
          tenant,
          accountId,
          coins: { delta, reason: 'desk', idempotencyKey: `k-${randomBytes(6).toString('hex')}` },
        }),
      );
    /** Every row of a list, walking its pages of `limit`. */
    const walk = async <T>(url: string, key: string, limit: number, headers: Headers = owner) => {
      const rows: T[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const sep = url.includes('?') ? '&' : '?';
        const body: Record<string, unknown> & { nextCursor: string | null } = ok(
          await get(`${url}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, headers),
        );
        const shown = body[key] as T[];
        assert.ok(shown.length <= limit);
        rows.push(...shown);
        cursor = body.nextCursor;
        pages++;
      } while (cursor !== null && pages < 50);
      return { rows, pages };
    };

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, {}, undefined, { runJobs: false });
      for (const name of ['Alpha', 'Beta']) ok(await post('/api/tenants', { name }), 201);
      alphaAdmin = await signedInOperator(rail.app, 'alpha-admin', ['tenant-admin'], 'alpha');
      betaAdmin = await signedInOperator(rail.app, 'beta-admin', ['tenant-admin'], 'beta');
      analyst = await signedInOperator(rail.app, 'ann-analyst', ['analyst']);
      support = await signedInOperator(rail.app, 'sam-support', ['support']);
      for (const tier of ['member', 'member', 'gold', 'gold']) alpha.push(await enrol('alpha', tier));
      for (let i = 0; i < 2; i++) beta.push(await enrol('beta'));
      ok(await post('/api/members/update', { tenant: 'alpha', accountId: alpha[1], status: 'suspended' }));
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('members: every tenant, newest first, filtered, paged, without display names', async () => {
      const all = ok(await get(`${BASE}/members`));
      assert.equal(all.members.length, 6);
      assert.deepEqual(new Set(all.members.map((m: { accountId: string }) => m.accountId)), new Set([...alpha, ...beta]));
      const times = all.members.map((m: { enrolledAt: string }) => Date.parse(m.enrolledAt));
      assert.deepEqual(
        times,
        [...times].sort((a, b) => b - a),
        'newest enrolment first',
      );
      assert.deepEqual(Object.keys(all.members[0]).sort(), ['accountId', 'balance', 'enrolledAt', 'status', 'tenant', 'tier']);
      assert.doesNotMatch(JSON.stringify(all), /Marguerite/);

      const gold = ok(await get(`${BASE}/members?tenant=alpha&tier=gold`)).members;
      assert.deepEqual(gold.map((m: { accountId: string }) => m.accountId).sort(), [alpha[2], alpha[3]].sort());
      const suspended = ok(await get(`${BASE}/members?status=suspended`)).members;
      assert.deepEqual(
        suspended.map((m: { accountId: string }) => m.accountId),
        [alpha[1]],
      );

      const { rows, pages } = await walk<{ accountId: string }>(`${BASE}/members`, 'members', 4);
      assert.equal(pages, 2);
      assert.deepEqual(
        rows.map((r) => r.accountId),
        all.members.map((m: { accountId: string }) => m.accountId),
        'the pages show each member once, in the order of the list',
      );
      const since = ok(await get(`${BASE}/members?since=${encodeURIComponent(all.members[1].enrolledAt)}`)).members;
      assert.ok(since.length >= 2 && since.length <= 6);
      assert.ok(since.every((m: { enrolledAt: string }) => m.enrolledAt >= all.members[1].enrolledAt));
      assert.equal(ok(await get(`${BASE}/members?until=2000-01-01`)).members.length, 0);

      // A tenant-admin sees its own tenant, named or not, and is refused another.
      const own = ok(await get(`${BASE}/members`, alphaAdmin)).members;
      assert.equal(own.length, 4);
      assert.ok(own.every((m: { tenant: string }) => m.tenant === 'alpha'));
      assert.equal(ok(await get(`${BASE}/members?tenant=alpha`, alphaAdmin)).members.length, 4);
      assert.equal((await get(`${BASE}/members?tenant=beta`, alphaAdmin)).json().error, 'forbidden');
      assert.equal((await get(`${BASE}/members`, analyst)).json().error, 'forbidden');
      assert.equal((await get(`${BASE}/members?status=gone`)).statusCode, 400);
      assert.equal((await get(`${BASE}/members?cursor=${Buffer.from('["x"]').toString('base64url')}`)).statusCode, 400);
    });

    test('the coin ledger: entries of every tenant, newest first, by account and window', async () => {
      await coins('alpha', alpha[0], 100);
      await coins('alpha', alpha[0], -30);
      await coins('alpha', alpha[2], 50);
      await coins('beta', beta[0], 7);
      const all = ok(await get(`${BASE}/coin-ledger`)).entries;
      assert.equal(all.length, 4);
      const order = all.map((e: { createdAt: string }) => e.createdAt);
      assert.deepEqual(order, [...order].sort().reverse(), 'newest first');
      const mine = ok(await get(`${BASE}/coin-ledger?accountId=${alpha[0]}`)).entries;
      assert.deepEqual(mine.map((e: { delta: number }) => e.delta).sort(), [-30, 100]);
      assert.deepEqual(mine.find((e: { delta: number }) => e.delta === -30).balanceAfter, 70);
      const paged = await walk<{ entryId: string }>(`${BASE}/coin-ledger`, 'entries', 3);
      assert.deepEqual(
        paged.rows.map((r) => r.entryId),
        all.map((e: { entryId: string }) => e.entryId),
      );
      assert.equal(ok(await get(`${BASE}/coin-ledger?until=2000-01-01T00:00:00Z`)).entries.length, 0);
      assert.equal(ok(await get(`${BASE}/coin-ledger?since=2000-01-01`)).entries.length, 4);

      const own = ok(await get(`${BASE}/coin-ledger`, alphaAdmin)).entries;
      assert.equal(own.length, 3);
      assert.ok(own.every((e: { tenant: string }) => e.tenant === 'alpha'));
      assert.equal((await get(`${BASE}/coin-ledger?tenant=beta`, alphaAdmin)).json().error, 'forbidden');
      assert.equal((await get(`${BASE}/coin-ledger?accountId=short`)).statusCode, 400);
      assert.equal(ok(await get(`${BASE}/coin-ledger`, support)).entries.length, 4);
    });

    test('the economy: coins issued, spent and outstanding and members, one row per tenant', async () => {
      const rows = ok(await get(`${BASE}/economy`)).tenants;
      const of = (slug: string) => rows.find((r: { tenant: string }) => r.tenant === slug);
      // Seeded tenants (root, the demo) appear too, each once.
      assert.equal(new Set(rows.map((r: { tenant: string }) => r.tenant)).size, rows.length);
      assert.deepEqual(of('alpha'), { tenant: 'alpha', issued: 150, spent: 30, outstanding: 120, members: 4, activeMembers: 3 });
      assert.deepEqual(of('beta'), { tenant: 'beta', issued: 7, spent: 0, outstanding: 7, members: 2, activeMembers: 2 });
      const before2000 = ok(await get(`${BASE}/economy?tenant=alpha&until=2000-01-01`)).tenants;
      assert.deepEqual(before2000, [{ tenant: 'alpha', issued: 0, spent: 0, outstanding: 120, members: 4, activeMembers: 3 }]);
      const paged = await walk<{ tenant: string }>(`${BASE}/economy`, 'tenants', 1);
      assert.deepEqual(
        paged.rows.map((r) => r.tenant),
        rows.map((r: { tenant: string }) => r.tenant),
      );

      assert.deepEqual(ok(await get(`${BASE}/economy`, alphaAdmin)).tenants, [of('alpha')]);
      assert.equal((await get(`${BASE}/economy?tenant=beta`, alphaAdmin)).json().error, 'forbidden');
      assert.equal(ok(await get(`${BASE}/economy`, analyst)).tenants.length, rows.length);
      assert.equal((await get(`${BASE}/economy`, support)).json().error, 'forbidden');
    });

    test('governance: create, open and close run POST /api/proposals’ use cases; the list shows tallies once closed', async () => {
      const opensAt = new Date(Date.now() - 60_000).toISOString();
      const closesAt = new Date(Date.now() + 86_400_000).toISOString();
      const draft = { tenant: 'alpha', action: 'create', title: 'New clubhouse', options: ['Yes', 'No'], opensAt, closesAt };
      const created = ok(await post(`${BASE}/governance`, draft), 201);
      assert.equal(created.ok, true);
      const id = created.proposal.proposalId;
      assert.equal(created.proposal.state, 'draft');
      const audited = async (seq: number) =>
        rail.db.selectFrom('audit_log').selectAll().where('seq', '=', seq).executeTakeFirstOrThrow();
      assert.equal((await audited(created.auditSeq)).action, 'proposal.created');
      assert.equal((await audited(created.auditSeq)).target, id);

      const opened = ok(await post(`${BASE}/governance`, { tenant: 'alpha', action: 'open', proposalId: id }, alphaAdmin));
      assert.equal(opened.proposal.state, 'open');
      const auditOpen = await audited(opened.auditSeq);
      assert.equal(auditOpen.action, 'proposal.opened');
      assert.equal(auditOpen.actor, 'operator:alpha-admin');

      // Votes at a desk, then the close publishes the tally.
      ok(await post('/api/proposals/vote', { tenant: 'alpha', proposalId: id, accountId: alpha[0], option: 'Yes' }), 201);
      ok(await post('/api/proposals/vote', { tenant: 'alpha', proposalId: id, accountId: alpha[2], option: 'No' }), 201);
      ok(await post('/api/proposals/vote', { tenant: 'alpha', proposalId: id, accountId: alpha[3], option: 'Yes' }), 201);
      const listedOpen = ok(await get(`${BASE}/governance?tenant=alpha&state=open`)).proposals;
      assert.equal(listedOpen.length, 1);
      assert.equal(listedOpen[0].votesCast, 3);
      assert.equal(listedOpen[0].tally, undefined, 'no tally before the close');

      const closed = ok(await post(`${BASE}/governance`, { tenant: 'alpha', action: 'close', proposalId: id }));
      assert.equal((await audited(closed.auditSeq)).action, 'proposal.closed');
      const tally = {
        total: 3,
        assisted: 3,
        options: [
          { option: 'Yes', votes: 2, assisted: 2 },
          { option: 'No', votes: 1, assisted: 1 },
        ],
      };
      assert.deepEqual(closed.proposal.tally, tally);
      const listed = ok(await get(`${BASE}/governance?state=closed`)).proposals;
      assert.equal(listed.length, 1);
      assert.deepEqual(listed[0].tally, tally, 'the list shows the tally the close published');

      // Refusals: the use cases' own, the tenant scope, the role row, and show is not here.
      await refuses(
        () => post(`${BASE}/governance`, { tenant: 'alpha', action: 'close', proposalId: id }),
        409,
        'proposal_state',
      );
      await refuses(
        () => post(`${BASE}/governance`, { tenant: 'beta', action: 'open', proposalId: id }),
        404,
        'unknown_proposal',
      );
      await refuses(() => post(`${BASE}/governance`, { ...draft, tenant: 'nowhere' }), 404, 'unknown_tenant');
      await refuses(
        () => post(`${BASE}/governance`, { tenant: 'alpha', action: 'show', proposalId: id }),
        400,
        'invalid_request',
      );
      await refuses(() => post(`${BASE}/governance`, { tenant: 'alpha', action: 'open' }), 400, 'invalid_request');
      await refuses(() => post(`${BASE}/governance`, { ...draft, proposalId: id }), 400, 'invalid_request');
      await refuses(() => post(`${BASE}/governance`, { ...draft, tenant: 'beta' }, alphaAdmin), 403, 'forbidden');
      await refuses(() => post(`${BASE}/governance`, draft, analyst), 403, 'forbidden');
      await refuses(() => post(`${BASE}/governance`, draft, support), 403, 'forbidden');

      // Lists: across tenants, newest first, paged; a tenant-admin sees its own.
      for (const tenant of ['beta', 'beta', 'alpha']) {
        ok(await post(`${BASE}/governance`, { ...draft, tenant, title: `Later ${tenant}` }), 201);
      }
      const all = ok(await get(`${BASE}/governance`, analyst)).proposals;
      assert.equal(all.length, 4);
      assert.equal(all[3].proposalId, id, 'the first proposal is last');
      const drafts = ok(await get(`${BASE}/governance?state=draft`)).proposals;
      assert.equal(drafts.length, 3);
      const paged = await walk<{ proposalId: string }>(`${BASE}/governance`, 'proposals', 3);
      assert.equal(paged.pages, 2);
      assert.deepEqual(
        paged.rows.map((p) => p.proposalId),
        all.map((p: { proposalId: string }) => p.proposalId),
      );
      const own = ok(await get(`${BASE}/governance`, betaAdmin)).proposals;
      assert.equal(own.length, 2);
      assert.ok(own.every((p: { tenant: string }) => p.tenant === 'beta'));
      assert.equal((await get(`${BASE}/governance?tenant=alpha`, betaAdmin)).json().error, 'forbidden');
      assert.equal((await get(`${BASE}/governance`, support)).json().error, 'forbidden');
    });

    test('consent: what holders share with which tenant, element names only, by the tenant shared with', async () => {
      // alpha's water-bill product, and a holder with one accepted bill.
      const made = ok(await post('/api/products', { tenant: 'alpha', kind: 'bill', name: 'Water bill' }), 201);
      ok(await post(`/api/products/${made.productId}/approve`));
      const key: HolderKey = await newHolderKey();
      const accountId = accountOf(key);
      const holder = async () => ({ authorization: `Holder ${await holderJws({ aud: PUBLIC_URL }, { key })}` });
      ok(await post('/api/members/enroll', { tenant: 'alpha', accountId }), 201);
      const bill = ok(await post('/api/tenants/alpha/bills', billBody(accountId)), 201);
      const itemUrl = `/api/wallet/${accountId}/items/${bill.itemId}`;
      ok(await post(`${itemUrl}/accept`, { decision: 'accept' }, await holder()));
      ok(
        await post(
          `${itemUrl}/sharing`,
          {
            shares: [
              { tenant: 'beta', elements: ['amount'] },
              { tenant: 'alpha', elements: ['title', 'reference'] },
            ],
          },
          await holder(),
        ),
      );
      const all = ok(await get(`${BASE}/consent`)).consents;
      assert.equal(all.length, 2);
      const [toAlpha, toBeta] = all;
      assert.equal(toAlpha.tenant, 'alpha');
      assert.equal(toBeta.tenant, 'beta');
      assert.deepEqual(toBeta, {
        tenant: 'beta',
        accountId,
        itemId: bill.itemId,
        itemTenant: 'alpha',
        itemKind: 'deposit',
        elements: ['amount'],
        channel: 'requested',
        since: toBeta.since,
      });
      assert.ok(Date.parse(toBeta.since) > Date.now() - 600_000);
      assert.deepEqual(toAlpha.elements.sort(), ['reference', 'title']);
      assert.doesNotMatch(JSON.stringify(all), /4215|WB-2026-10-4471|Water, October/, 'names of elements only, never values');

      assert.deepEqual(ok(await get(`${BASE}/consent?accountId=${accountId}&tenant=beta`)).consents, [toBeta]);
      assert.deepEqual(ok(await get(`${BASE}/consent?accountId=${account()}`)).consents, []);
      assert.equal(ok(await get(`${BASE}/consent?until=2000-01-01`)).consents.length, 0);
      const paged = await walk<{ tenant: string }>(`${BASE}/consent`, 'consents', 1);
      assert.deepEqual(
        paged.rows.map((r) => r.tenant),
        ['alpha', 'beta'],
      );
      // A tenant-admin sees what is shared with its own tenant: beta sees the alpha item shared with it.
      assert.deepEqual(ok(await get(`${BASE}/consent`, betaAdmin)).consents, [toBeta]);
      assert.deepEqual(ok(await get(`${BASE}/consent`, alphaAdmin)).consents, [toAlpha]);
      assert.equal((await get(`${BASE}/consent?tenant=beta`, alphaAdmin)).json().error, 'forbidden');
      assert.equal((await get(`${BASE}/consent`, analyst)).json().error, 'forbidden');

      // The holder stops sharing with beta: its row goes.
      ok(await post(`${itemUrl}/sharing`, { shares: [{ tenant: 'alpha', elements: ['title'] }] }, await holder()));
      assert.deepEqual(ok(await get(`${BASE}/consent?tenant=beta`)).consents, []);
    });
  });
}
