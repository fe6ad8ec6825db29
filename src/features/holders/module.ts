import { holderRecordsOf } from '../../adapters/sql/holder-records.ts';
import { SqlHolderReplayStore } from '../../adapters/sql/holders/sql-holder-replay-store.ts';
import { defineModule } from '../../app/module.ts';
import { HolderJwsAuthenticator } from '../../http/auth/holder-jws.ts';

/** Spent holder jti marks are kept for their freshness window only, and dropped this often. */
const JTI_PRUNE_MS = 10 * 60 * 1000;

const holderRecords = holderRecordsOf('holders');

/**
 * The holder plane (docs/authentication.md): a wallet's device key signs each request. Built
 * when a mounted route names the plane; the wallet, membership and account modules serve routes
 * on it.
 */
export const holdersModule = defineModule({
  name: 'holders',
  groups: [],
  owns: [SqlHolderReplayStore, holderRecords],
  holderRecords,
  planes: ['holder'],
  build(ctx) {
    const replay = ctx.store(SqlHolderReplayStore);
    const authenticator = new HolderJwsAuthenticator(ctx.config.publicUrl.origin, replay, ctx.clock, ctx.budgets);
    return {
      // For a holder proof carried in a body with an audience of its own (onboarding).
      services: { authenticator },
      planes: { holder: authenticator },
      jobs: [{ name: 'holders.prune-jti', everyMs: JTI_PRUNE_MS, run: async (now) => void (await replay.prune(now)) }],
    };
  },
});
