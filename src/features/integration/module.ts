import { SqlIntegrationTokenStore } from '../../adapters/sql/sql-integration-token-store.ts';
import { defineModule } from '../../app/module.ts';
import { tenantsModule } from '../tenants/module.ts';
import { integrationTokenRoutes } from './routes.ts';
import { IntegrationTokenService } from './token-service.ts';

/**
 * The integration plane's access (docs/integration.md): the provisioning ceremony, tenant-scoped
 * integration tokens, and the scopes and rate classes they carry. The operator plane
 * (operators module) authenticates the tokens and meters them.
 */
export const integrationModule = defineModule({
  name: 'integration',
  groups: ['integration-tokens'],
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const service = new IntegrationTokenService(
      new SqlIntegrationTokenStore(ctx.db),
      ctx.unitOfWork((db) => ({ tokens: new SqlIntegrationTokenStore(db) })),
      ctx.clock,
      async (slug) => (await tenants.find(slug)) !== undefined,
    );
    return { services: service, routes: () => [integrationTokenRoutes(service)] };
  },
});
