/**
 * The isolation cases of the operations group's read models (docs/operations.md), registered into
 * the isolation suite (isolation.test.ts) with its `isolated`. Health, backlogs and comms rates are
 * the platform's, by design; what narrows to a tenant — its keys, its status lists, its
 * revocations, the credentials it issued — answers that tenant's rows only.
 */
import assert from 'node:assert/strict';
import { SqlAgentStore } from '../../src/adapters/sql/backoffice/sql-agent-store.ts';
import { SqlDemoFixtures } from '../../src/adapters/sql/backoffice/sql-demo-fixtures.ts';
import { SqlOpsViews } from '../../src/adapters/sql/backoffice/sql-ops-views.ts';
import type { Db } from '../../src/adapters/sql/connect.ts';
import { SqlTenantStore } from '../../src/adapters/sql/tenants/sql-tenant-store.ts';
import { tenantRecord } from '../helpers/databases.ts';

const TENANTS = ['alpha', 'beta'] as const;
/** The time the seeded rows are made at, apart from the rest of the suite's. */
const AT = 1_770_000_000_000;

export const OPS_CASES = {
  agents: 'AgentStore: an agent’s heartbeats are its tenant’s, counted against its tenant’s limit only',
  fixtures: 'DemoFixtureStore: clearing a demonstration tenant deletes its rows only, and a tenant that is not one is refused',
  ops: 'OpsViews: a tenant’s keys, status lists, revocations and issued count are its own only; health, backlogs and comms rates are the platform’s, by design',
} as const;

async function seed(db: Db): Promise<void> {
  for (const [n, t] of TENANTS.entries()) {
    await db
      .insertInto('verification_counts')
      .values({ day: AT - (AT % 86_400_000), tenant: t, type_id: `op-type-${t}`, requests: n + 1, responses: n + 1, accepted: n })
      .execute();
    await db
      .insertInto('status_lists')
      .values({ tenant: t, seq: 960, size: 16, capacity: 8, allocated: 3, created_at: AT })
      .execute();
    // Beta issues and revokes twice, so a count that reached across would show.
    for (const k of n === 0 ? [1] : [1, 2]) {
      await db
        .insertInto('issued_credentials')
        .values({
          id: `crd_op${t}${k}`,
          tenant: t,
          type_id: `op-type-${t}`,
          offer_id: `off_op${t}${k}`,
          list_seq: 960,
          idx: k,
          holder_thumbprint: `op-holder-${t}`,
          issued_at: AT,
          revoked_at: AT + 1,
          expires_at: null,
        })
        .execute();
      // And one that expires, unrevoked, issued just after the window the counts below read.
      await db
        .insertInto('issued_credentials')
        .values({
          id: `crd_opx${t}${k}`,
          tenant: t,
          type_id: `op-type-${t}`,
          offer_id: `off_opx${t}${k}`,
          list_seq: 960,
          idx: 8 + k,
          holder_thumbprint: `op-holder-${t}`,
          issued_at: AT + 10,
          revoked_at: null,
          expires_at: AT + 1000,
        })
        .execute();
      await db
        .insertInto('audit_log')
        .values({
          seq: 9_600_000 + n * 10 + k,
          at: AT + 1,
          actor: 'operator:op',
          action: 'credential.revoked',
          tenant: t,
          target: `crd_op${t}${k}`,
          detail: JSON.stringify({ typeId: `op-type-${t}`, reason: 'isolation' }),
          prev_hash: 'x',
          hash: `op-${t}-${k}`,
        })
        .execute();
    }
  }
}

export function opsIsolation(isolated: (name: string, fn: () => Promise<void>) => void, db: () => Db): void {
  isolated(OPS_CASES.fixtures, async () => {
    const store = new SqlDemoFixtures(db());
    const rowsOf = async (tenant: string) =>
      (
        await db()
          .selectFrom('members')
          .select('account_id')
          .where('tenant', '=', tenant)
          .where('account_id', 'like', 'fixture-member-%')
          .execute()
      ).length;
    assert.equal(await new SqlTenantStore(db()).create(tenantRecord('demo-iso', AT), []), true);
    for (const tenant of ['demo-iso', 'alpha']) {
      await db()
        .insertInto('members')
        .values({
          tenant,
          account_id: `fixture-member-${tenant}`,
          display_name: null,
          tier: 'standard',
          status: 'active',
          balance: 0,
          joined_at: AT,
          updated_at: AT,
        })
        .execute();
    }
    assert.ok((await store.demoTenants()).includes('demo-iso'));
    assert.ok(!(await store.demoTenants()).includes('alpha'));
    await assert.rejects(store.clear('alpha'), /not a demonstration tenant/);
    assert.equal(await rowsOf('alpha'), 1, 'a refused clear deletes nothing');
    const cleared = await store.clear('demo-iso');
    assert.equal(cleared.members, 1);
    assert.equal(await rowsOf('demo-iso'), 0);
    assert.equal(await rowsOf('alpha'), 1, "another tenant's rows stay");
  });

  isolated(OPS_CASES.agents, async () => {
    const store = new SqlAgentStore(db());
    assert.equal(await store.beat('alpha', 'nightly-sync', AT, 'token:a', 1), true);
    assert.equal(await store.beat('beta', 'nightly-sync', AT, 'token:b', 1), true, 'beta’s limit counts beta’s agents only');
    assert.equal(await store.beat('alpha', 'other', AT, 'token:a', 1), false, 'over alpha’s limit');
    assert.equal(await store.beat('alpha', 'nightly-sync', AT + 1, 'token:a', 1), true, 'a known agent beats on');
    const alpha = await store.agents('alpha', 10);
    assert.deepEqual(
      alpha.map((a) => [a.agent, a.beats, a.reportedBy]),
      [['nightly-sync', 2, 'token:a']],
    );
    assert.deepEqual(
      (await store.agents('beta', 10)).map((a) => [a.tenant, a.beats]),
      [['beta', 1]],
    );
  });

  isolated(OPS_CASES.ops, async () => {
    await seed(db());
    const views = new SqlOpsViews(db());
    for (const [n, t] of TENANTS.entries()) {
      const keys = await views.keys(t, { limit: 100 });
      assert.ok(keys.length > 0 && keys.every((k) => k.tenant === t), `${t}'s keys only`);
      const lists = await views.statusLists(t, { limit: 100 });
      assert.ok(lists.length > 0 && lists.every((l) => l.tenant === t), `${t}'s lists only`);
      assert.equal(lists.find((l) => l.seq === 960)?.revoked, n + 1, `${t}'s revoked entries only`);
      const revocations = (await views.auditEntries('credential.revoked', t, { limit: 100, since: AT })).filter((r) =>
        r.target.startsWith('crd_op'),
      );
      assert.deepEqual(
        revocations.map((r) => r.tenant),
        n === 0 ? [t] : [t, t],
        `${t}'s revocations only`,
      );
      assert.equal(await views.issuedBetween(t, AT, AT + 1), n + 1, `${t}'s issued count only`);
      assert.equal(await views.outstandingBetween(t, AT, AT + 1, AT), 0, `${t}'s own, all revoked`);
      assert.equal(await views.outstandingBetween(t, AT + 10, AT + 11, AT), n + 1, `${t}'s own unexpired ones`);
      assert.equal(await views.outstandingBetween(t, AT + 10, AT + 11, AT + 1000), 0, 'expired ones are not outstanding');
      assert.deepEqual(
        (await views.expiring('credentials', t, AT, AT + 1001, 100)).map((g) => [g.tenant, g.typeId, g.count, g.firstAt]),
        [[t, `op-type-${t}`, n + 1, AT + 1000]],
        `${t}'s expiring credentials only`,
      );
      assert.ok((await views.expiring('offers', t, 0, Number.MAX_SAFE_INTEGER, 100)).every((g) => g.tenant === t));
      assert.deepEqual(
        (await views.verificationFunnel(t, 0, 100)).filter((f) => f.typeId.startsWith('op-type')),
        [{ tenant: t, typeId: `op-type-${t}`, steps: [n + 1, n + 1, n] }],
        `${t}'s rolled-up verifications only`,
      );
      for (const funnel of [await views.issuanceFunnel(t, 0, 100), await views.verificationFunnel(t, 0, 100)]) {
        assert.ok(
          funnel.every((f) => f.tenant === t),
          `${t}'s funnels only`,
        );
      }
      const old = await views.signingKeysOlderThan(t, Number.MAX_SAFE_INTEGER, 100);
      assert.ok(old.length > 0 && old.every((k) => k.tenant === t && k.supersededAt === null), `${t}'s signing keys only`);
      for (const kind of ['presentation', 'offer', 'delivery', 'lane', 'request', 'approval'] as const) {
        const stuck = await views.stuck(kind, t, Number.MAX_SAFE_INTEGER, 100);
        assert.ok(
          stuck.every((r) => r.tenant === t),
          `${t}'s stuck ${kind}s only`,
        );
      }
    }
    const every = await views.statusLists(null, { limit: 200 });
    assert.ok(
      TENANTS.every((t) => every.some((l) => l.tenant === t)),
      'the platform lists every tenant’s',
    );
    // The platform's own reads answer without a tenant at all.
    await views.jobLeases();
    await views.webhookBacklog();
    await views.mailRates(AT);
    await views.webhookRates(AT);
    assert.ok((await views.supersededKeys(100)).every((k) => k.supersededAt !== null && k.retiredAt === null));
    assert.ok(Array.isArray(await views.demoBreaches(10)), 'the demo law is checked over every tenant, by design');
  });
}
