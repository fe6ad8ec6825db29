import { holderRecordsOf } from '../../adapters/sql/holder-records.ts';
import { SqlIntegrationTokenStore } from '../../adapters/sql/integration/sql-integration-token-store.ts';
import { SqlIntegrationViews } from '../../adapters/sql/integration/sql-integration-views.ts';
import { defineModule } from '../../app/module.ts';
import type { PartnerKeyWrites } from '../../ports/integration-token-store.ts';
import { approvalsModule } from '../approvals/module.ts';
import { depositsModule } from '../deposits/module.ts';
import { tenantsModule } from '../tenants/module.ts';
import { contractRoutes } from './contract-routes.ts';
import { Provisioning } from './provisioning.ts';
import { integrationTokenRoutes } from './routes.ts';
import { IntegrationTokenService } from './token-service.ts';

const holderRecords = holderRecordsOf('integration');

/**
 * The integration plane (docs/integration.md): the provisioning ceremony (the desk's `token.mint`), tenant-scoped
 * integration tokens and the scopes and rate classes they carry (the operator plane, in the
 * operators module, authenticates and meters them); the integrator-facing contracts with their
 * handshake; and the deposits made under the deposit contract, with their hash chain's check.
 */
export const integrationModule = defineModule({
  name: 'integration',
  groups: ['integration-tokens', 'integration-contracts'],
  owns: [SqlIntegrationTokenStore, SqlIntegrationViews, holderRecords],
  views: SqlIntegrationViews,
  holderRecords,
  async build(ctx) {
    const [tenants, desk] = await Promise.all([ctx.use(tenantsModule), ctx.use(approvalsModule)]);
    const store = ctx.store(SqlIntegrationTokenStore);
    const service = new IntegrationTokenService(store, ctx.unitOfWork(), ctx.clock, ctx.random);
    const provisioning = new Provisioning({
      desk,
      tokens: store,
      clock: ctx.clock,
      ids: ctx.ids,
      random: ctx.random,
      tenantExists: async (slug) => (await tenants.find(slug)) !== undefined,
    });
    desk.register(provisioning.mintAction());
    const { views } = await ctx.use(depositsModule);
    // `partnerKeys`: the partners module mints, revokes and rotates its partners' keys through it.
    return {
      services: { tokens: service, partnerKeys: store as PartnerKeyWrites },
      routes: () => [integrationTokenRoutes(service, provisioning), contractRoutes(views)],
    };
  },
});
