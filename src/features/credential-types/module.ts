import { SqlCredentialTypeStore } from '../../adapters/sql/credential-types/sql-credential-type-store.ts';
import { SqlCredentialTypesViews } from '../../adapters/sql/credential-types/sql-credential-types-views.ts';
import { holderRecordsOf } from '../../adapters/sql/holder-records.ts';
import { defineModule } from '../../app/module.ts';
import { SYSTEM_SEED } from '../../core/actor.ts';
import { tenantsModule } from '../tenants/module.ts';
import { DEMO_TENANT } from '../tenants/tenant-service.ts';
import { DEMO_TYPES } from './demo-types.ts';
import { credentialTypeRoutes } from './routes.ts';
import { TypeService } from './type-service.ts';

const holderRecords = holderRecordsOf('credential-types');

/** Credential types: registration, Type Metadata at each vct, and the tenant manifest. */
export const credentialTypesModule = defineModule({
  name: 'credential-types',
  groups: ['credential-types'],
  owns: [SqlCredentialTypeStore, SqlCredentialTypesViews, holderRecords],
  holderRecords,
  views: SqlCredentialTypesViews,
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const trustsWalletProviders = ctx.config.walletAttestationAnchors.length > 0;
    const types = new TypeService({
      types: ctx.store(SqlCredentialTypeStore),
      uow: ctx.unitOfWork(),
      tenants,
      urls: ctx.urls,
      clock: ctx.clock,
      trustsWalletProviders,
    });
    if (ctx.config.demo) {
      for (const t of DEMO_TYPES) await types.ensure(DEMO_TENANT.slug, t.name, t.claims, SYSTEM_SEED, t.formats);
    }
    return {
      services: types,
      routes: () => [credentialTypeRoutes(types, tenants, ctx.urls)],
    };
  },
});
