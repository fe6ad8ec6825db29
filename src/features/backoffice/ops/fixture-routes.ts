import { Type } from '@sinclair/typebox';
import { ServiceError } from '../../../core/errors.ts';
import { AccountId } from '../../../http/schemas/common.ts';
import type { DemoFixtureStore } from '../../../ports/demo-fixtures.ts';
import type { TenantsViews } from '../../../ports/tenants-views.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.ts';
import { DEMO_TYPES } from '../../credential-types/demo-types.ts';
import type { TypeService } from '../../credential-types/type-service.ts';
import type { DemoSeed } from '../../deposits/demo-seed.ts';
import { opsOperations } from './routes-common.ts';
import { demoTenants } from './upkeep.ts';

/** Seeding and clearing demonstration data (docs/operations.md, "Fixtures"). */
export function fixtureRoutes(deps: {
  /** Each owner's part of the clearing (membership, the wallet, the deposit rail), in the order they clear. */
  fixtures: readonly DemoFixtureStore[];
  tenants: TenantsViews;
  demo: DemoSeed;
  types: TypeService;
  uow: UnitOfWork;
}) {
  return [
    opsOperations.action('/fixtures', {
      summary: 'Seed the demonstration tenant’s data (optionally for one holder account), or clear every demonstration tenant’s.',
      body: {
        action: Type.Union([Type.Literal('seed'), Type.Literal('clear')]),
        accountId: Type.Optional({
          ...AccountId,
          description: 'seed only: a holder account that gets a membership and demo deposits.',
        }),
      },
      answer: [
        200,
        'What was seeded, or what was cleared per demonstration tenant.',
        {
          action: Type.String(),
          fixtures: Type.Literal(true),
          tenants: Type.Array(
            Type.Object({
              tenant: Type.String(),
              types: Type.Optional(Type.Integer({ description: 'seed: the demonstration types it has.' })),
              products: Type.Optional(Type.Integer({ description: 'seed: its approved products.' })),
              items: Type.Optional(Type.Integer({ description: 'seed: the deposits given to the account.' })),
              cleared: Type.Optional(
                Type.Record(Type.String(), Type.Integer(), { description: 'clear: rows deleted per table.' }),
              ),
            }),
          ),
        },
      ],
      write: async ({ body: { action, accountId }, actor }) => {
        if (action === 'seed') {
          const seeded = await deps.demo.seed(accountId, actor);
          const tenant = seeded.tenant.slug;
          for (const t of DEMO_TYPES) await deps.types.ensure(tenant, t.name, t.claims, actor, t.formats);
          const counts = { types: DEMO_TYPES.length, products: seeded.products.length, items: seeded.items.length };
          const auditSeq = await deps.uow.run(({ audit }) =>
            audit.append({ actor, action: 'ops.fixtures.seeded', tenant, target: tenant, detail: counts }),
          );
          return { auditSeq, action, fixtures: true as const, tenants: [{ tenant, ...counts }] };
        }
        if (accountId !== undefined) throw new ServiceError('invalid_request', 'body/accountId is taken by seed only.');
        return deps.uow.run(async ({ audit }) => {
          const tenants = [];
          for (const tenant of await demoTenants(deps)) {
            const cleared: Record<string, number> = {};
            for (const part of deps.fixtures) Object.assign(cleared, await part.clear(tenant));
            tenants.push({ tenant, cleared });
          }
          const auditSeq = await audit.append({
            actor,
            action: 'ops.fixtures.cleared',
            tenant: null,
            target: tenants.map((t) => t.tenant).join(',') || 'none',
            detail: { tenants: Object.fromEntries(tenants.map((t) => [t.tenant, t.cleared])) },
          });
          return { auditSeq, action, fixtures: true as const, tenants };
        });
      },
    }),
  ];
}
