import { holderRecordsOf } from '../../adapters/sql/holder-records.ts';
import { SqlIntegrationTokenStore } from '../../adapters/sql/integration/sql-integration-token-store.ts';
import { SqlOnboardingStore } from '../../adapters/sql/onboarding/sql-onboarding-store.ts';
import { SqlPartnerStore } from '../../adapters/sql/partners/sql-partner-store.ts';
import { SqlPartnersViews } from '../../adapters/sql/partners/sql-partners-views.ts';
import { SqlTenantStore } from '../../adapters/sql/tenants/sql-tenant-store.ts';
import { defineModule } from '../../app/module.ts';
import { MailedCodes } from '../onboarding/mailed-codes.ts';
import { tenantsModule } from '../tenants/module.ts';
import { partnerAdminRoutes } from './admin-routes.ts';
import { partnerApiRoutes } from './api-routes.ts';
import { PartnerAccess } from './partner-access.ts';
import { PartnerService } from './partner-service.ts';
import { portalRoutes } from './portal-routes.ts';

const PRUNE_EVERY_MS = 60 * 60 * 1000;

const holderRecords = holderRecordsOf('partners');

/**
 * Partner onboarding (docs/partners.md): the public intake and status, the pipeline operators run,
 * partner sessions by mailed code, keys a partner mints inside its grant, and the partner portal.
 */
export const partnersModule = defineModule({
  name: 'partners',
  groups: ['partners', 'portal', 'admin-partners'],
  owns: [SqlPartnerStore, SqlPartnersViews, holderRecords],
  holderRecords,
  views: SqlPartnersViews,
  borrows: [SqlIntegrationTokenStore, SqlOnboardingStore, SqlTenantStore],
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const { config } = ctx;
    const store = ctx.store(SqlPartnerStore);
    const uow = ctx.unitOfWork({
      partners: ctx.store(SqlPartnerStore),
      tokens: ctx.store(SqlIntegrationTokenStore),
      tenants: ctx.store(SqlTenantStore),
    });
    const platform = { name: config.platformName, origin: config.publicUrl.origin };
    const warn = (message: string, err: unknown) => ctx.log.warn({ err }, message);
    const partners = new PartnerService(
      store,
      uow,
      {
        exists: async (slug) => (await tenants.find(slug)) !== undefined,
        prepareCreation: (name) => tenants.prepareCreation(name),
        createIn: (scope, prepared, actor) => tenants.createIn(scope, prepared, actor),
      },
      ctx.mailer,
      platform,
      ctx.clock,
      ctx.ids,
      warn,
    );
    const codes = new MailedCodes(
      ctx.store(SqlOnboardingStore),
      ctx.mailer,
      ctx.vault.deriveKey('partner-signin'),
      ctx.clock,
      ctx.ids,
    );
    const access = new PartnerAccess(
      store,
      ctx.store(SqlIntegrationTokenStore),
      uow,
      codes,
      ctx.rates,
      ctx.budgets,
      platform,
      ctx.clock,
      ctx.ids,
      warn,
    );
    return {
      services: { partners, access },
      routes: () => [
        partnerApiRoutes(partners, access),
        portalRoutes(access, config.platformName, config.publicUrl.origin),
        partnerAdminRoutes(partners),
      ],
      jobs: [{ name: 'partners.prune', everyMs: PRUNE_EVERY_MS, run: (now) => access.prune(now) }],
    };
  },
});
