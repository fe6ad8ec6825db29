import { membershipModule } from '../../membership/module.ts';
import { operatorsModule } from '../../operators/module.ts';
import { tenantsModule } from '../../tenants/module.ts';
import { walletModule } from '../../wallet/module.ts';
import type { GroupBuilder } from '../module.ts';
import { OperatorAdmin } from './operator-admin.ts';
import { operatorRoutes } from './operator-routes.ts';
import { peopleRoutes } from './people-routes.ts';

/**
 * The people group (docs/backoffice/people.md): operators, with the owner changes that need a
 * second owner registered with the approval desk; and members, governance, the coin ledger,
 * consent and the coin economy across tenants.
 */
export const peopleGroup: GroupBuilder = async (ctx, { desk }) => {
  const [operators, members, tenants] = await Promise.all([
    ctx.use(operatorsModule),
    ctx.use(membershipModule),
    ctx.use(tenantsModule),
  ]);
  const admin = new OperatorAdmin(
    operators,
    ctx.views,
    async (slug) => (await tenants.find(slug)) !== undefined,
    desk,
    ctx.clock,
  );
  admin.registerActions(desk);
  const sources = {
    membership: ctx.viewsOf(membershipModule),
    wallet: ctx.viewsOf(walletModule),
    tenants: ctx.viewsOf(tenantsModule),
  };
  return { group: { name: 'admin-people', routes: [...operatorRoutes(admin), ...peopleRoutes(sources, members)] } };
};
