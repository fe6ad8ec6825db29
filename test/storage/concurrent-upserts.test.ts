import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { type RawBuilder, sql } from 'kysely';
import { SqlPartnerStore } from '../../src/adapters/sql/partners/sql-partner-store.ts';
import { ANONYMOUS_BUDGETS } from '../../src/core/anonymous-budgets.ts';
import { hashToken } from '../../src/core/secrets.ts';
import { MAX_ACTIVE_KEYS } from '../../src/features/partners/partner-access.ts';
import { MAX_WEBHOOKS_PER_TENANT } from '../../src/features/webhooks/webhook-service.ts';
import { type TestDatabase, testDatabases } from '../helpers/databases.ts';
import { billBody } from '../helpers/deposits.ts';
import { accountOf, type HolderKey, holderJws, newHolderKey } from '../helpers/holder.ts';
import { registerType } from '../helpers/issuance.ts';
import { livePartnerSession } from '../helpers/partners.ts';
import { owner, PUBLIC_URL, startRail, type TestRail } from '../helpers/rail.ts';

/**
 * Upserts under concurrency (docs/architecture.md, "Rules that hold everywhere"): the same request
 * sent many times at once must answer as the same requests sent one after another would, and
 * leave what one of them leaves. A read-then-insert (or delete-then-insert) of a key lets the
 * concurrent inserts meet on the unique index, which on PostgreSQL under READ COMMITTED fails all
 * but one of them; SQLite writes one transaction at a time, so there it holds either way.
 */
const TIMES = 12;

for (const factory of testDatabases()) {
  describe(`concurrent upserts (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;

    const post = (url: string, payload: unknown, headers: Record<string, string> = owner) =>
      rail.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });
    /** Sends `send()` TIMES at once; all answers are in, each with its status and body. */
    const atOnce = (send: (i: number) => Promise<LightMyRequestResponse>) =>
      Promise.all(Array.from({ length: TIMES }, (_, i) => send(i)));
    const statuses = (answers: LightMyRequestResponse[]) => answers.map((a) => `${a.statusCode} ${a.body.slice(0, 160)}`);
    /** The rows `from` (a table and its where clause) holds now. */
    const count = async (from: RawBuilder<unknown>) => {
      const r = await sql<{ n: number | string }>`select count(*) as n from ${from}`.execute(rail.db);
      return Number(r.rows[0]?.n);
    };
    const asHolder = async (key: HolderKey) => ({ authorization: `Holder ${await holderJws({ aud: PUBLIC_URL }, { key })}` });

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, { OPENRAIL_DEMO: 'off' }, undefined, { runJobs: false });
      for (const name of ['Alpha', 'Beta', 'Gamma']) {
        const made = await post('/api/tenants', { name });
        assert.equal(made.statusCode, 201, made.body);
      }
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('POST /api/members/enrolment-types: the same set at once is set once', async () => {
      const { typeId } = await registerType(rail.app, 'alpha', 'Club Pass', ['holder_name']);
      const answers = await atOnce(() => post('/api/members/enrolment-types', { tenant: 'alpha', typeIds: [typeId] }));
      assert.deepEqual(
        answers.map((a) => a.statusCode),
        Array(TIMES).fill(200),
        statuses(answers).join('\n'),
      );
      for (const a of answers) assert.deepEqual(a.json(), { tenant: 'alpha', typeIds: [typeId] });
      assert.equal(await count(sql`enrolment_types where tenant = ${'alpha'}`), 1);
      assert.equal(await count(sql`audit_log where action = ${'membership.enrolment_types'}`), TIMES);
    });

    test('POST /api/members/enrolment-types: different sets at once leave one of them, never a mix', async () => {
      const { typeId: pass } = await registerType(rail.app, 'beta', 'Beta Pass', ['holder_name']);
      const { typeId: ticket } = await registerType(rail.app, 'beta', 'Beta Ticket', ['holder_name']);
      assert.equal((await post('/api/members/enrolment-types', { tenant: 'beta', typeIds: [pass] })).statusCode, 200);
      // Each replaces the set: one deletes the type the other inserts, in the other order.
      const answers = await atOnce((i) =>
        post('/api/members/enrolment-types', { tenant: 'beta', typeIds: [i % 2 ? pass : ticket] }),
      );
      assert.deepEqual(
        answers.map((a) => a.statusCode),
        Array(TIMES).fill(200),
        statuses(answers).join('\n'),
      );
      const left = await rail.db.selectFrom('enrolment_types').select('type_id').where('tenant', '=', 'beta').execute();
      assert.equal(left.length, 1, JSON.stringify(left));
    });

    test('POST /api/wallet/{accountId}/items/{itemId}/sharing: the same settings at once are written and logged once', async () => {
      // A holder, member of alpha, with one accepted bill from alpha; beta has no channel with it.
      const key = await newHolderKey();
      const accountId = accountOf(key);
      assert.equal((await post('/api/members/enroll', { tenant: 'alpha', accountId })).statusCode, 201);
      const product = await post('/api/products', { tenant: 'alpha', kind: 'bill', name: 'Water bill' });
      assert.equal(product.statusCode, 201, product.body);
      assert.equal((await post(`/api/products/${product.json().productId}/approve`, {})).statusCode, 200);
      const bill = await post('/api/tenants/alpha/bills', billBody(accountId));
      assert.equal(bill.statusCode, 201, bill.body);
      const itemId = bill.json().itemId as string;
      const itemUrl = `/api/wallet/${accountId}/items/${itemId}`;
      assert.equal((await post(`${itemUrl}/accept`, { decision: 'accept' }, await asHolder(key))).statusCode, 200);

      // One signed request per send (each carries its own jti), all with the same body.
      const headers = await Promise.all(Array.from({ length: TIMES }, () => asHolder(key)));
      const body = { shares: [{ tenant: 'beta', elements: ['amount'] }] };
      const answers = await atOnce((i) => post(`${itemUrl}/sharing`, body, headers[i]));
      assert.deepEqual(
        answers.map((a) => a.statusCode),
        Array(TIMES).fill(200),
        statuses(answers).join('\n'),
      );
      for (const a of answers) {
        assert.deepEqual(a.json().shares, [{ tenant: 'beta', elements: ['amount'], channel: 'requested' }]);
        // As one after another: the first logs the change, the others find it made.
        assert.equal(a.json().log.length, 1, a.body);
      }
      assert.equal(await count(sql`share_settings where item_id = ${itemId}`), 1);
      assert.equal(await count(sql`sharing_log where item_id = ${itemId}`), 1);
      assert.equal(await count(sql`channels where account_id = ${accountId}`), 1);
      assert.equal(await count(sql`audit_log where action = ${'item.shared'} and target = ${itemId}`), 1);
      assert.equal(await count(sql`audit_log where action = ${'channel.requested'} and target = ${accountId}`), 1);
      assert.equal(await count(sql`outbox where type = ${'channel.requested'} and tenant = ${'beta'}`), 1);
    });

    test('POST /api/admin/orgs/{slug}/domain: the same domain asked for at once is each time replaced, and pending once', async () => {
      const answers = await atOnce(() => post('/api/admin/orgs/gamma/domain', { domain: 'id.gamma.test' }));
      assert.deepEqual(
        answers.map((a) => a.statusCode),
        Array(TIMES).fill(200),
        statuses(answers).join('\n'),
      );
      for (const a of answers) {
        assert.equal(a.json().domain.state, 'pending', a.body);
        assert.equal(a.json().domain.domain, 'id.gamma.test', a.body);
      }
      assert.equal(await count(sql`org_domains where tenant = ${'gamma'}`), 1);
      assert.equal(await count(sql`audit_log where action = ${'org.domain_requested'} and tenant = ${'gamma'}`), TIMES);
    });

    test('POST /api/admin/integration/webhooks: registrations at once do not pass the limit together', async () => {
      const register = (i: number) =>
        post('/api/admin/integration/webhooks', {
          tenant: 'beta',
          url: `https://hooks.beta.invalid/${i}`,
          events: ['org.created'],
        });
      for (let i = 0; i < MAX_WEBHOOKS_PER_TENANT - 1; i++) assert.equal((await register(i)).statusCode, 201);
      // One place is left: as one after another, the first takes it and the others are refused.
      const answers = await atOnce((i) => register(100 + i));
      assert.deepEqual(
        answers.map((a) => a.statusCode).sort(),
        [201, ...Array(TIMES - 1).fill(409)],
        statuses(answers).join('\n'),
      );
      for (const a of answers.filter((x) => x.statusCode === 409)) assert.equal(a.json().error, 'webhook_limit');
      assert.equal(await count(sql`webhooks where tenant = ${'beta'}`), MAX_WEBHOOKS_PER_TENANT);
    });

    test('POST /api/partners/keys: mints at once do not pass the partner’s key limit together', async () => {
      const { bearer } = await livePartnerSession(rail.db, { tenant: 'alpha', scopes: ['issuance'] });
      const mint = (i: number) => post('/api/partners/keys', { label: `key ${i}`, scopes: ['issuance'] }, bearer);
      for (let i = 0; i < MAX_ACTIVE_KEYS - 1; i++) assert.equal((await mint(i)).statusCode, 201);
      const answers = await atOnce((i) => mint(100 + i));
      assert.deepEqual(
        answers.map((a) => a.statusCode).sort(),
        [201, ...Array(TIMES - 1).fill(409)],
        statuses(answers).join('\n'),
      );
      for (const a of answers.filter((x) => x.statusCode === 409)) assert.equal(a.json().error, 'conflict');
      const partnerId = (
        await rail.db.selectFrom('partner_applications').select('id').where('tenant', '=', 'alpha').executeTakeFirstOrThrow()
      ).id;
      assert.equal(await count(sql`integration_tokens where partner_id = ${partnerId} and state = ${'active'}`), MAX_ACTIVE_KEYS);
    });

    test('POST /api/admin/partners/{id}/link-tenant: of links at once, the first stands and the others are refused', async () => {
      const id = `pap_${randomBytes(16).toString('base64url')}`;
      const now = Date.now();
      await new SqlPartnerStore(rail.db).createApplication({
        id,
        kind: 'issuer',
        organisation: 'Delta Transit',
        contactName: 'Delta Contact',
        contactEmail: 'contact@delta.example',
        country: null,
        website: null,
        useCase: 'Linked by several operators at once.',
        stage: 'approved',
        stageAt: now,
        statusTokenHash: hashToken(randomBytes(32).toString('base64url')),
        tenant: null,
        grant: null,
        createdBy: 'public',
        createdAt: now,
        updatedAt: now,
      });
      const answers = await atOnce(() =>
        post(`/api/admin/partners/${id}/link-tenant`, { tenantName: 'Delta', scopes: ['issuance'], rateClass: 'sandbox' }),
      );
      assert.deepEqual(
        answers.map((a) => a.statusCode).sort(),
        [200, ...Array(TIMES - 1).fill(409)],
        statuses(answers).join('\n'),
      );
      const won = answers.find((a) => a.statusCode === 200)?.json().partner.tenant;
      for (const a of answers.filter((x) => x.statusCode === 409)) assert.equal(a.json().error, 'partner_linked', a.body);
      const stored = await new SqlPartnerStore(rail.db).application(id);
      assert.equal(stored?.tenant, won, 'the partner stays with the tenant its one successful link named');
      assert.equal(await count(sql`audit_log where action = ${'partner.linked'} and target = ${id}`), 1);
      // The refused links made no tenant: one Delta, as one link after another would leave.
      assert.equal(await count(sql`tenants where name = ${'Delta'}`), 1);
    });

    test('POST /onboard/start: codes asked for at once leave one live code', async () => {
      // Each from its own address, so that only the identifier's quota (3 per 15 minutes) counts.
      const answers = await atOnce((i) =>
        rail.app.inject({
          method: 'POST',
          url: '/onboard/start',
          payload: { identifier: 'ada@example.org' },
          remoteAddress: `203.0.113.${10 + i}`,
        }),
      );
      assert.deepEqual(
        answers.map((a) => a.statusCode).sort(),
        [
          ...Array(ANONYMOUS_BUDGETS['onboard-start'].perSubject.quota).fill(202),
          ...Array(TIMES - ANONYMOUS_BUDGETS['onboard-start'].perSubject.quota).fill(429),
        ],
        statuses(answers).join('\n'),
      );
      // As one after another: each newer code ends the one before it.
      assert.equal(await count(sql`onboarding_challenges where spent_at is null`), 1);
      assert.equal(await count(sql`onboarding_challenges`), ANONYMOUS_BUDGETS['onboard-start'].perSubject.quota);
    });
  });
}
