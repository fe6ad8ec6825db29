import { SqlAccountErasureStore } from '../../adapters/sql/account/sql-account-erasure-store.ts';
import { SqlAccountSessionStore } from '../../adapters/sql/account/sql-account-session-store.ts';
import { SqlSubjectRecords } from '../../adapters/sql/account/sql-subject-records.ts';
import { defineModule } from '../../app/module.ts';
import { AccountSessionPlane, browserTicketPlane } from '../../http/auth/account-cookies.ts';
import { membershipModule } from '../membership/module.ts';
import { tenantsModule } from '../tenants/module.ts';
import { AccountData } from './account-data.ts';
import { ErasureService } from './erasure-service.ts';
import { accountRoutes } from './routes.ts';
import { SigninService } from './signin-service.ts';

const PRUNE_EVERY_MS = 60 * 60 * 1000;
const DISK_CHECK_EVERY_MS = 60 * 1000;

/** The account portal (docs/account.md): browser sign-in by QR code, the holder's overview, export and erasure. */
export const accountModule = defineModule({
  name: 'account',
  groups: ['account'],
  owns: [SqlAccountSessionStore, SqlAccountErasureStore, SqlSubjectRecords],
  planes: ['browser-ticket', 'account-session'],
  async build(ctx) {
    const signin = new SigninService(ctx.store(SqlAccountSessionStore), ctx.budgets, ctx.clock, ctx.config.publicUrl.origin);
    const erasure = new ErasureService(
      ctx.unitOfWork({ erasure: ctx.store(SqlAccountErasureStore) }),
      ctx.store(SqlAccountErasureStore),
      () => ctx.database.dropFreedBytes(),
      ctx.clock,
      ctx.ids,
    );
    const deps = {
      signin,
      erasure,
      data: new AccountData(
        await ctx.use(membershipModule),
        await ctx.use(tenantsModule),
        ctx.clock,
        ctx.store(SqlSubjectRecords),
      ),
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
