import { holderRecordsOf } from '../../adapters/sql/holder-records.ts';
import { SqlPartnerStore } from '../../adapters/sql/partners/sql-partner-store.ts';
import { SqlPartnersViews } from '../../adapters/sql/partners/sql-partners-views.ts';
import { defineModule } from '../../app/module.ts';
import { integrationModule } from '../integration/module.ts';
import { onboardingModule } from '../onboarding/module.ts';
import { tenantsModule } from '../tenants/module.ts';
import { partnerAdminRoutes } from './admin-routes.ts';
import { partnerApiRoutes } from './api-routes.ts';
import { PartnerAccess } from './partner-access.ts';
import { PartnerService } from './partner-service.ts';
import { portalGroup } from './portal/group.ts';

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
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const { config } = ctx;
    const store = ctx.store(SqlPartnerStore);
    const uow = ctx.unitOfWork();
    // A partner's keys are the integration module's: read through its views, changed through its service.
    const integration = { views: ctx.viewsOf(integrationModule), keys: (await ctx.use(integrationModule)).partnerKeys };
    const platform = { name: config.platformName, origin: config.publicUrl.origin };
    const warn = (message: string, err: unknown) => ctx.log.warn({ err }, message);
    const partners = new PartnerService({
      store,
      uow,
      tenants: {
        exists: async (slug) => (await tenants.find(slug)) !== undefined,
        prepareCreation: (name) => tenants.prepareCreation(name),
        createIn: (prepared, actor) => tenants.createIn(prepared, actor),
      },
      mailer: ctx.mailer,
      platform,
      clock: ctx.clock,
      random: ctx.random,
      ids: ctx.ids,
      warn,
      keys: integration.keys,
    });
    const codes = (await ctx.use(onboardingModule)).codesFor('partner-signin');
    const access = new PartnerAccess({
      store,
      integration,
      uow,
      codes,
      budget: ctx.rates,
      budgets: ctx.budgets,
      platform,
      clock: ctx.clock,
      random: ctx.random,
      ids: ctx.ids,
      warn,
    });
    return {
      services: { partners, access },
      routes: () => [
        partnerApiRoutes(partners, access),
        portalGroup(access, config.platformName, config.publicUrl.origin),
        partnerAdminRoutes(partners),
      ],
      jobs: [{ name: 'partners.prune', everyMs: PRUNE_EVERY_MS, run: (now) => access.prune(now) }],
    };
  },
});
