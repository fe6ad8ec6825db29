import { membershipModule } from '../../membership/module.ts';
import { operatorsModule } from '../../operators/module.ts';
import { tenantsModule } from '../../tenants/module.ts';
import type { GroupBuilder } from '../module.ts';
import { OperatorAdmin } from './operator-admin.ts';
import { operatorRoutes } from './operator-routes.ts';
import { peopleRoutes } from './people-routes.ts';
import { PeopleViews } from './people-views.ts';

/**
 * The people group (docs/backoffice/people.md): operators, with the owner changes that need a
 * second owner registered with the approval desk; and members, governance, the coin ledger,
 * consent and the coin economy across tenants.
 */
export const peopleGroup: GroupBuilder = async (ctx, { desk, stores }) => {
  const [operators, members, tenants] = await Promise.all([
    ctx.use(operatorsModule),
    ctx.use(membershipModule),
    ctx.use(tenantsModule),
  ]);
  const reads = stores.people;
  const admin = new OperatorAdmin(operators, reads, async (slug) => (await tenants.find(slug)) !== undefined, desk, ctx.clock);
  admin.registerActions(desk);
  const views = new PeopleViews(reads, members);
  return { group: { name: 'admin-people', routes: [...operatorRoutes(admin), ...peopleRoutes(views)] } };
};
