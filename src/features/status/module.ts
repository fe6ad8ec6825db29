import { defineModule } from '../../app/module.ts';
import { issuanceModule } from '../issuance/module.ts';
import { tenantsModule } from '../tenants/module.ts';
import { statusRoutes } from './routes.ts';
import { StatusService } from './status-service.ts';

/**
 * Token status lists, built from the issuance module's record of issued credentials on every
 * fetch (its views), and revocation (its ledger, in this module's units of work).
 */
export const statusModule = defineModule({
  name: 'status',
  groups: ['status'],
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const { ledger } = await ctx.use(issuanceModule);
    const status = new StatusService({
      views: ctx.viewsOf(issuanceModule),
      ledger,
      uow: ctx.unitOfWork(),
      keys: ctx.keys,
      tenants,
      urls: ctx.urls,
      clock: ctx.clock,
    });
    return { services: status, routes: () => [statusRoutes(status)] };
  },
});
