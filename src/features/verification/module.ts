import { SqlPresentationTransactionStore } from '../../adapters/sql/sql-presentation-transaction-store.ts';
import { defineModule } from '../../app/module.ts';
import { resultTokenPlane } from '../../http/auth/result-token.ts';
import { credentialTypesModule } from '../credential-types/module.ts';
import { statusModule } from '../status/module.ts';
import { tenantsModule } from '../tenants/module.ts';
import { HostedVerifier } from './hosted-verifier.ts';
import { verificationRoutes } from './routes.ts';
import { StatusListSource } from './status-list-source.ts';

/** Expired presentation transactions are deleted this often. */
const SWEEP_EVERY_MS = 60 * 1000;

/** Hosted OID4VP verification: the platform verifies for relying parties that have no account. */
export const verificationModule = defineModule({
  name: 'verification',
  groups: ['verification'],
  planes: ['result-token'],
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const types = await ctx.use(credentialTypesModule);
    const status = await ctx.use(statusModule);
    const store = new SqlPresentationTransactionStore(ctx.db);
    const uow = ctx.unitOfWork((db) => ({ transactions: new SqlPresentationTransactionStore(db) }));
    const statusLists = new StatusListSource(ctx.urls, (t, seq) => status.token(t, seq), ctx.fetcher, ctx.clock);
    const verifier = new HostedVerifier(store, uow, types, tenants, ctx.keys, statusLists, ctx.urls, ctx.clock);
    return {
      services: verifier,
      routes: () => [verificationRoutes(verifier)],
      planes: { 'result-token': resultTokenPlane },
      jobs: [{ name: 'verification.sweep', everyMs: SWEEP_EVERY_MS, run: (now) => store.sweep(now) }],
    };
  },
});
