/**
 * The isolation cases of the operations group's own stores (docs/operations.md), registered into
 * the isolation suite (isolation.test.ts) with its `isolated`: the automation agents' heartbeats,
 * and each owner's part of clearing demonstration data. What the group reads of other modules'
 * tables is in isolation-views-ops.ts.
 */
import assert from 'node:assert/strict';
import { SqlAgentStore } from '../../src/adapters/sql/backoffice/sql-agent-store.ts';
import type { Db } from '../../src/adapters/sql/connect.ts';
import { SqlDepositDemoFixtures } from '../../src/adapters/sql/deposits/sql-deposit-demo-fixtures.ts';
import { SqlMembershipDemoFixtures } from '../../src/adapters/sql/membership/sql-membership-demo-fixtures.ts';
import { SqlTenantStore } from '../../src/adapters/sql/tenants/sql-tenant-store.ts';
import { SqlTenantsViews } from '../../src/adapters/sql/tenants/sql-tenants-views.ts';
import { SqlWalletDemoFixtures } from '../../src/adapters/sql/wallet/sql-wallet-demo-fixtures.ts';
import { tenantRecord } from '../helpers/databases.ts';

/** The time the seeded rows are made at, apart from the rest of the suite's. */
const AT = 1_770_000_000_000;

export const OPS_CASES = {
  agents: 'AgentStore: an agent’s heartbeats are its tenant’s, counted against its tenant’s limit only',
  fixtures:
    'DemoFixtureStore: clearing a demonstration tenant deletes its rows only, each owner’s part, and a tenant that is not one is refused',
} as const;

export function opsIsolation(isolated: (name: string, fn: () => Promise<void>) => void, db: () => Db): void {
  isolated(OPS_CASES.fixtures, async () => {
    const store = new SqlMembershipDemoFixtures(db());
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
    const demoTenants = await new SqlTenantsViews(db()).slugsStartingWith('demo-');
    assert.ok(demoTenants.includes('demo-iso'));
    assert.ok(!demoTenants.includes('alpha'));
    for (const part of [store, new SqlWalletDemoFixtures(db()), new SqlDepositDemoFixtures(db())]) {
      await assert.rejects(part.clear('alpha'), /not a demonstration tenant/);
    }
    assert.equal(await rowsOf('alpha'), 1, 'a refused clear deletes nothing');
    const cleared = await store.clear('demo-iso');
    assert.equal(cleared.members, 1);
    assert.equal(await rowsOf('demo-iso'), 0);
    assert.equal(await rowsOf('alpha'), 1, "another tenant's rows stay");

    // The wallet's and the deposit rail's parts, the same way: an item and a deposit of each tenant.
    for (const tenant of ['demo-iso', 'alpha']) {
      await db()
        .insertInto('wallet_items')
        .values({
          id: `itm_fixture${tenant}`,
          tenant,
          account_id: `fixture-member-${tenant}`,
          kind: 'deposit',
          ref: `fixture-${tenant}`,
          title: 'fixture',
          state: 'pending',
          demo: tenant === 'alpha' ? 0 : 1,
          created_at: AT,
          updated_at: AT,
          expires_at: null,
        })
        .execute();
      await db()
        .insertInto('deposits')
        .values({
          tenant,
          deposit_id: `fixture-deposit-${tenant}`,
          account_id: `fixture-member-${tenant}`,
          product_id: 'fixture-product',
          item_id: `itm_fixture${tenant}`,
          body: '{}',
          body_hash: 'fixture',
          created_at: AT,
          chain_seq: null,
          prev_hash: null,
          chain_hash: null,
          erased_at: null,
        })
        .execute();
    }
    const count = async (table: 'wallet_items' | 'deposits', tenant: string) =>
      Number(
        (
          await db()
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .where('tenant', '=', tenant)
            .executeTakeFirstOrThrow()
        ).n,
      );
    assert.equal((await new SqlWalletDemoFixtures(db()).clear('demo-iso')).wallet_items, 1);
    assert.equal((await new SqlDepositDemoFixtures(db()).clear('demo-iso')).deposits, 1);
    assert.deepEqual([await count('wallet_items', 'demo-iso'), await count('deposits', 'demo-iso')], [0, 0]);
    assert.ok(
      (await count('wallet_items', 'alpha')) >= 1 && (await count('deposits', 'alpha')) >= 1,
      "another tenant's rows stay",
    );
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
}
