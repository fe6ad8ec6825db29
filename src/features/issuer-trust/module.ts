import { holderRecordsOf } from '../../adapters/sql/holder-records.ts';
import { SqlTrustRegistry } from '../../adapters/sql/issuer-trust/sql-trust-registry.ts';
import { defineModule } from '../../app/module.ts';
import { ROOT_SLUG } from '../../core/slug.ts';
import { tenantsModule } from '../tenants/module.ts';
import { resolveDidWeb } from './did-web-resolver.ts';
import { TrustService } from './trust-service.ts';

const holderRecords = holderRecordsOf('issuer-trust');

/**
 * The trust registry (docs/operations.md, "Trust registry"): the issuers the hosted verifier
 * accepts beyond this deployment's tenants. It serves no routes of its own: the verification
 * module reads it on every presentation, and the operations group changes it.
 */
export const issuerTrustModule = defineModule({
  name: 'issuer-trust',
  groups: [],
  owns: [SqlTrustRegistry, holderRecords],
  holderRecords,
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const registry = ctx.store(SqlTrustRegistry);
    return {
      services: new TrustService({
        registry,
        uow: ctx.unitOfWork(),
        resolve: (did) => resolveDidWeb(did, ctx.fetcher, ctx.config.outboundAllow),
        platformDid: tenants.didOf(ROOT_SLUG),
        clock: ctx.clock,
      }),
    };
  },
});
