import { ChainVerifier } from '../../adapters/crypto/x509.ts';
import { holderRecordsOf } from '../../adapters/sql/holder-records.ts';
import { SqlPresentationTransactionStore } from '../../adapters/sql/verification/sql-presentation-transaction-store.ts';
import { SqlVerificationViews } from '../../adapters/sql/verification/sql-verification-views.ts';
import { defineModule } from '../../app/module.ts';
import { resultTokenPlane } from '../../http/auth/result-token.ts';
import { credentialTypesModule } from '../credential-types/module.ts';
import { issuerTrustModule } from '../issuer-trust/module.ts';
import { statusModule } from '../status/module.ts';
import { tenantsModule } from '../tenants/module.ts';
import { HostedVerifier } from './hosted-verifier.ts';
import { verificationRoutes } from './routes.ts';
import { StatusListSource } from './status-list-source.ts';

/** Expired presentation transactions are deleted this often. */
const SWEEP_EVERY_MS = 60 * 1000;
/**
 * Anyone may open a transaction, unmetered (the verification plane is never metered), so what
 * they can make the service store is bounded instead: at most this many transactions live, the
 * oldest evicted first, checked this often (docs/verification.md, "Storage bound").
 */
export const MAX_LIVE_TRANSACTIONS = 100_000;
const CAP_EVERY_MS = 10 * 1000;

const holderRecords = holderRecordsOf('verification');

/** Hosted OID4VP verification: the platform verifies for relying parties that have no account. */
export const verificationModule = defineModule({
  name: 'verification',
  groups: ['verification'],
  owns: [SqlPresentationTransactionStore, SqlVerificationViews, holderRecords],
  holderRecords,
  views: SqlVerificationViews,
  planes: ['result-token'],
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const types = await ctx.use(credentialTypesModule);
    const status = await ctx.use(statusModule);
    const store = ctx.store(SqlPresentationTransactionStore);
    const trust = await ctx.use(issuerTrustModule);
    const statusLists = new StatusListSource(ctx.urls, (t, seq) => status.token(t, seq), ctx.fetcher, ctx.clock);
    const verifier = new HostedVerifier({
      transactions: store,
      uow: ctx.unitOfWork(),
      types,
      tenants,
      keys: ctx.keys,
      statusLists,
      urls: ctx.urls,
      clock: ctx.clock,
      random: ctx.random,
      ids: ctx.ids,
      trust,
      vault: ctx.vault,
      certifier: ctx.certifier,
      meter: ctx.meter,
      dcApiUnsigned: ctx.config.dcApiUnsigned,
      chainsOf: (anchors) => new ChainVerifier(anchors),
    });
    return {
      services: verifier,
      routes: () => [verificationRoutes(verifier)],
      planes: { 'result-token': resultTokenPlane },
      jobs: [
        { name: 'verification.sweep', everyMs: SWEEP_EVERY_MS, run: (now) => store.sweep(now) },
        {
          name: 'verification.cap',
          everyMs: CAP_EVERY_MS,
          run: async () => {
            const evicted = await store.evictBeyond(MAX_LIVE_TRANSACTIONS);
            if (evicted > 0) ctx.log.warn({ evicted, cap: MAX_LIVE_TRANSACTIONS }, 'presentation transactions evicted');
          },
        },
      ],
    };
  },
});
