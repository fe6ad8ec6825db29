import { SqlTenantStore } from '../../adapters/sql/tenants/sql-tenant-store.ts';
import { SqlTenantsViews } from '../../adapters/sql/tenants/sql-tenants-views.ts';
import { defineModule } from '../../app/module.ts';
import { tenantRoutes } from './routes.ts';
import { TenantService } from './tenant-service.ts';

/** Tenants and their identities; seeds the platform tenant and, unless disabled, the demonstration one. */
export const tenantsModule = defineModule({
  name: 'tenants',
  groups: ['tenants'],
  owns: [SqlTenantStore, SqlTenantsViews],
  views: SqlTenantsViews,
  async build(ctx) {
    const tenants = new TenantService(ctx.store(SqlTenantStore), ctx.unitOfWork(), ctx.keys, ctx.config.publicUrl, ctx.clock);
    await tenants.seed({ demo: ctx.config.demo, platformName: ctx.config.platformName });
    return { services: tenants, routes: () => [tenantRoutes(tenants)] };
  },
});
