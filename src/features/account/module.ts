import { SqlAccountErasureStore } from '../../adapters/sql/account/sql-account-erasure-store.ts';
import { SqlAccountSessionStore } from '../../adapters/sql/account/sql-account-session-store.ts';
import { SqlAccountViews } from '../../adapters/sql/account/sql-account-views.ts';
import { holderRecordsOf } from '../../adapters/sql/holder-records.ts';
import { defineModule } from '../../app/module.ts';
import { AccountSessionPlane, browserTicketPlane } from '../../http/auth/account-cookies.ts';
import { membershipModule } from '../membership/module.ts';
import { offersModule } from '../offers/module.ts';
import { tenantsModule } from '../tenants/module.ts';
import { walletModule } from '../wallet/module.ts';
import { AccountData } from './account-data.ts';
import { ErasurePipeline } from './erasure-pipeline.ts';
import { ErasureService } from './erasure-service.ts';
import { HolderData } from './holder-data.ts';
import { accountRoutes } from './routes.ts';
import { SigninService } from './signin-service.ts';

const PRUNE_EVERY_MS = 60 * 60 * 1000;
const DISK_CHECK_EVERY_MS = 60 * 1000;

const holderRecords = holderRecordsOf('account');

/** The account portal (docs/account.md): browser sign-in by QR code, the holder's overview, export and erasure. */
export const accountModule = defineModule({
  name: 'account',
  groups: ['account'],
  owns: [SqlAccountSessionStore, SqlAccountErasureStore, SqlAccountViews, holderRecords],
  views: SqlAccountViews,
  holderRecords,
  planes: ['browser-ticket', 'account-session'],
  async build(ctx) {
    const signin = new SigninService(
      ctx.store(SqlAccountSessionStore),
      ctx.budgets,
      ctx.clock,
      ctx.random,
      ctx.config.publicUrl.origin,
    );
    // Every owner's part of the holder-data registry, each run on its own tables (docs/holder-data.md).
    const holderData = new HolderData(ctx.holderRecords());
    const wallet = ctx.viewsOf(walletModule);
    const erasure = new ErasureService({
      uow: ctx.unitOfWork(),
      store: ctx.store(SqlAccountErasureStore),
      pipeline: new ErasurePipeline({
        holderData,
        offersAddressedTo: (accountId) => wallet.offersAddressedTo(accountId, null),
        offers: (await ctx.use(offersModule)).erasure,
        rates: ctx.rates,
      }),
      dropFreedBytes: () => ctx.database.dropFreedBytes(),
      clock: ctx.clock,
      ids: ctx.ids,
    });
    const deps = {
      signin,
      erasure,
      data: new AccountData(await ctx.use(membershipModule), await ctx.use(tenantsModule), ctx.clock, holderData),
      siteName: ctx.config.platformName,
    };
    return {
      services: { signin, erasure, data: deps.data },
      routes: () => [accountRoutes(deps)],
      planes: {
        'browser-ticket': browserTicketPlane,
        'account-session': new AccountSessionPlane((session) => signin.account(session)),
      },
      jobs: [
        { name: 'account.prune', everyMs: PRUNE_EVERY_MS, run: (now) => signin.prune(now) },
        {
          name: 'account.erasure-disk',
          everyMs: DISK_CHECK_EVERY_MS,
          run: async (now) => void (await erasure.finishPending(now)),
        },
      ],
    };
  },
});
