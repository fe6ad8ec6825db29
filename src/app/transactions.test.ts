import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, testDatabases } from '../../test/helpers/databases.ts';
import { startRail, type TestRail } from '../../test/helpers/rail.ts';
import type { Db } from '../adapters/sql/connect.ts';
import { readAuditLog } from '../adapters/sql/kernel/sql-audit-trail.ts';
import { SYSTEM_SEED } from '../core/actor.ts';
import { ServiceError } from '../core/errors.ts';
import { ROOT_SLUG } from '../core/slug.ts';
import { tenantsModule } from '../features/tenants/module.ts';
import { defineModule } from './module.ts';

/** A store of the probe module's own: a row of the settings table. */
class ProbeStore {
  constructor(private readonly db: Db) {}
  async mark(name: string): Promise<void> {
    await this.db.insertInto('settings').values({ name, value: 'probe' }).execute();
  }
  async marked(name: string): Promise<boolean> {
    return (await this.db.selectFrom('settings').select('name').where('name', '=', name).executeTakeFirst()) !== undefined;
  }
}

class Refused extends Error {}

/**
 * A module whose use case writes its own row and calls the tenants module's service, a read and a
 * write, from inside its unit of work (decision 0020): on SQLite the read used to wait for ever on
 * the connection the transaction held; now the other module's service joins the transaction. The
 * module holds its store once and hands the unit of work none: the store joins by itself.
 */
const probeModule = defineModule({
  name: 'ambient-probe',
  groups: [],
  runsUnmounted: true,
  owns: [ProbeStore],
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const probe = ctx.store(ProbeStore);
    const uow = ctx.unitOfWork();
    return {
      services: {
        probe,
        /**
         * Marks `name` before the unit of work (outside it), then inside it marks `name` again
         * under `-inside`, audits it, reads a tenant and creates one named `org`; throws at the
         * end when `refuse`.
         */
        run: async (name: string, org: string, refuse: boolean) => {
          await probe.mark(`${name}-before`);
          return uow.run(async ({ audit }) => {
            await probe.mark(`${name}-inside`);
            await audit.append({ actor: { kind: 'system', what: 'probe' }, action: 'probe.marked', tenant: null, target: name });
            const root = await tenants.get(ROOT_SLUG);
            const created = await tenants.create(org, SYSTEM_SEED);
            assert.equal(await tenants.existing(created.slug), created.slug, 'the tenant is seen inside the transaction');
            if (refuse) throw new Refused();
            return { slug: created.slug, root: root.slug };
          });
        },
      },
    };
  },
});

for (const factory of testDatabases()) {
  describe(`a use case calls another module's service inside its unit of work (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    before(async () => {
      db = await factory.create();
      rail = await startRail(db, { OPENRAIL_DEMO: 'off' }, undefined, { runJobs: false, extraModules: [probeModule] });
    });
    after(async () => {
      await rail?.stop();
      await db?.drop();
    });

    const audited = async (name: string) =>
      (await readAuditLog(rail.db)).filter((e) => e.target === name && e.action === 'probe.marked');

    test('the read and the write complete, in the one transaction, and commit with it', { timeout: 30_000 }, async () => {
      const { run, probe } = await rail.services(probeModule);
      const tenants = await rail.services(tenantsModule);
      const done = await run('probe-committed', 'Joined Org', false);
      assert.ok(await probe.marked('probe-committed-before'));
      assert.ok(await probe.marked('probe-committed-inside'));
      assert.equal((await audited('probe-committed')).length, 1);
      assert.equal(done.root, ROOT_SLUG);
      assert.equal((await tenants.get(done.slug)).slug, done.slug);
    });

    test('refused, the other module’s write is undone too, and no cache remembers it', { timeout: 30_000 }, async () => {
      const { run, probe } = await rail.services(probeModule);
      const tenants = await rail.services(tenantsModule);
      await assert.rejects(run('probe-refused', 'Ghost Org', true), Refused);
      assert.equal(await probe.marked('probe-refused-inside'), false, 'the store the module holds wrote in the transaction');
      assert.deepEqual(await audited('probe-refused'), [], 'and so did the audit trail');
      assert.ok(await probe.marked('probe-refused-before'), 'a store call outside run is its own, and stays');
      const unknown = (err: unknown) => err instanceof ServiceError && err.code === 'unknown_tenant';
      await assert.rejects(tenants.get('ghost-org'), unknown);
      await assert.rejects(tenants.existing('ghost-org'), unknown);
    });
  });
}
