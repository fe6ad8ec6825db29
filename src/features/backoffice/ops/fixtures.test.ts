import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { type TestDatabase, testDatabases } from '../../../../test/helpers/databases.ts';
import { billBody } from '../../../../test/helpers/deposits.ts';
import { accountOf, newHolderKey } from '../../../../test/helpers/holder.ts';
import { signedInOperator } from '../../../../test/helpers/operators.ts';
import { owner, startRail, type TestRail } from '../../../../test/helpers/rail.ts';
import { DEPOSIT_DEMO_DATA } from '../../../adapters/sql/deposits/sql-deposit-demo-fixtures.ts';
import { MEMBERSHIP_DEMO_DATA } from '../../../adapters/sql/membership/sql-membership-demo-fixtures.ts';
import { WALLET_DEMO_DATA } from '../../../adapters/sql/wallet/sql-wallet-demo-fixtures.ts';

/** What clearing deletes, each owner's tables in the order they clear. */
const DEMO_DATA = [...MEMBERSHIP_DEMO_DATA, ...WALLET_DEMO_DATA, ...DEPOSIT_DEMO_DATA] as const;

for (const factory of testDatabases()) {
  describe(`demonstration fixtures (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let ops: { authorization: string };
    const post = (url: string, payload: unknown, headers: Record<string, string> = ops) =>
      rail.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });
    /** Rows per demonstration-data table, of one tenant. */
    const rows = async (tenant: string) => {
      const counts: Record<string, number> = {};
      for (const table of [...DEMO_DATA, 'credential_types', 'products', 'tenants'] as const) {
        const column = table === 'tenants' ? 'slug' : 'tenant';
        const { rows: found } = await sql<{
          n: number | string;
        }>`select count(*) as n from ${sql.table(table)} where ${sql.ref(column)} = ${tenant}`.execute(rail.db);
        counts[table] = Number(found[0]?.n);
      }
      return counts;
    };

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, { OPENRAIL_DEMO: 'off' }, undefined, { runJobs: false });
      assert.equal((await post('/api/tenants', { name: 'Alpha' }, owner)).statusCode, 201);
      const product = await post('/api/products', { tenant: 'alpha', kind: 'bill', name: 'Water bill' }, owner);
      assert.equal((await post(`/api/products/${product.json().productId}/approve`, {}, owner)).statusCode, 200);
      const accountId = accountOf(await newHolderKey());
      assert.equal((await post('/api/members/enroll', { tenant: 'alpha', accountId }, owner)).statusCode, 201);
      assert.equal((await post('/api/tenants/alpha/bills', billBody(accountId), owner)).statusCode, 201);
      ops = await signedInOperator(rail.app, 'ops-one', ['ops']);
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('seed makes the demonstration tenant’s data; clear removes it and touches no real tenant', async () => {
      const alpha = await rows('alpha');
      assert.equal(alpha.deposits, 1);
      const accountId = accountOf(await newHolderKey());
      const seeded = await post('/api/admin/ops/fixtures', { action: 'seed', accountId });
      assert.equal(seeded.statusCode, 200, seeded.body);
      assert.equal(seeded.json().fixtures, true);
      assert.deepEqual(seeded.json().tenants, [{ tenant: 'demo-transit', types: 2, products: 4, items: 3 }]);
      const entry = (
        await rail.app.inject({ method: 'GET', url: `/api/admin/audit/${seeded.json().auditSeq}`, headers: ops })
      ).json();
      assert.equal(entry.action, 'ops.fixtures.seeded');
      const demo = await rows('demo-transit');
      assert.deepEqual([demo.tenants, demo.credential_types, demo.products, demo.members, demo.deposits], [1, 2, 4, 1, 3]);
      assert.equal((await post('/api/admin/ops/fixtures', { action: 'seed', accountId })).statusCode, 200);
      assert.deepEqual(await rows('demo-transit'), demo, 'seeding again changes nothing');

      const mistaken = await post('/api/admin/ops/fixtures', { action: 'clear', accountId });
      assert.equal(mistaken.statusCode, 400);
      assert.deepEqual(await rows('demo-transit'), demo, 'a refused clear deletes nothing');
      const unknown = await post('/api/admin/ops/fixtures', { action: 'drop' });
      assert.equal(unknown.statusCode, 400);
      const asAuditor = await post(
        '/api/admin/ops/fixtures',
        { action: 'clear' },
        await signedInOperator(rail.app, 'auditor-one', ['auditor']),
      );
      assert.equal(asAuditor.statusCode, 403);

      const cleared = await post('/api/admin/ops/fixtures', { action: 'clear' });
      assert.equal(cleared.statusCode, 200, cleared.body);
      const [only] = cleared.json().tenants;
      assert.equal(only.tenant, 'demo-transit');
      assert.equal(only.cleared.deposits, 3);
      assert.equal(only.cleared.members, 1);
      const after = await rows('demo-transit');
      for (const table of DEMO_DATA) assert.equal(after[table], 0, `${table} of the demonstration tenant is cleared`);
      assert.deepEqual([after.tenants, after.credential_types, after.products], [1, 2, 4], 'its identity and catalogue stay');
      assert.deepEqual(await rows('alpha'), alpha, 'a real tenant is untouched');
      const hygiene = (await rail.app.inject({ method: 'GET', url: '/api/admin/ops/demo-hygiene', headers: ops })).json();
      assert.equal(hygiene.ok, true);
    });
  });
}
