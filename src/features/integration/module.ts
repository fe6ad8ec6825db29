import { SqlIntegrationTokenStore } from '../../adapters/sql/sql-integration-token-store.ts';
import { defineModule } from '../../app/module.ts';
import { depositsModule } from '../deposits/module.ts';
import { operatorsModule } from '../operators/module.ts';
import { tenantsModule } from '../tenants/module.ts';
import { contractRoutes } from './contract-routes.ts';
import { integrationTokenRoutes } from './routes.ts';
import { IntegrationTokenService } from './token-service.ts';

/**
 * The integration plane (docs/integration.md): the provisioning ceremony, tenant-scoped
 * integration tokens and the scopes and rate classes they carry (the operator plane, in the
 * operators module, authenticates and meters them); the integrator-facing contracts with their
 * handshake; and the deposits made under the deposit contract, with their hash chain's check.
 */
export const integrationModule = defineModule({
  name: 'integration',
  groups: ['integration-tokens', 'integration-contracts'],
  owns: [SqlIntegrationTokenStore],
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const operators = await ctx.use(operatorsModule);
    const service = new IntegrationTokenService(
      ctx.store(SqlIntegrationTokenStore),
      ctx.unitOfWork({ tokens: ctx.store(SqlIntegrationTokenStore) }),
      ctx.clock,
      ctx.ids,
      async (slug) => (await tenants.find(slug)) !== undefined,
      (label) => operators.samePersonAs(label),
    );
    const { views } = await ctx.use(depositsModule);
    return { services: service, routes: () => [integrationTokenRoutes(service), contractRoutes(views)] };
  },
});
