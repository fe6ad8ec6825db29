import { SqlIssuedCredentialStore } from '../../adapters/sql/issuance/sql-issued-credential-store.ts';
import { defineModule } from '../../app/module.ts';
import { tenantsModule } from '../tenants/module.ts';
import { statusRoutes } from './routes.ts';
import { StatusService } from './status-service.ts';

/** Token status lists, built from the issued-credential record on every fetch, and revocation. */
export const statusModule = defineModule({
  name: 'status',
  groups: ['status'],
  borrows: [SqlIssuedCredentialStore],
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const uow = ctx.unitOfWork({ ledger: ctx.store(SqlIssuedCredentialStore) });
    const status = new StatusService(ctx.store(SqlIssuedCredentialStore), uow, ctx.keys, tenants, ctx.urls, ctx.clock);
    return { services: status, routes: () => [statusRoutes(status)] };
  },
});
