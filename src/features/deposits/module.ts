import { SqlDepositDemoFixtures } from '../../adapters/sql/deposits/sql-deposit-demo-fixtures.ts';
import { SqlDepositStore } from '../../adapters/sql/deposits/sql-deposit-store.ts';
import { SqlDepositsViews } from '../../adapters/sql/deposits/sql-deposits-views.ts';
import { holderRecordsOf } from '../../adapters/sql/holder-records.ts';
import { defineModule } from '../../app/module.ts';
import { membershipModule } from '../membership/module.ts';
import { tenantsModule } from '../tenants/module.ts';
import { DemoSeed } from './demo-seed.ts';
import { DepositService } from './deposit-service.ts';
import { DepositViews } from './deposit-views.ts';
import { depositRoutes } from './routes.ts';

const holderRecords = holderRecordsOf('deposits');

/**
 * The deposit rail (docs/deposits.md): a tenant's business events (bills, receipts, tickets,
 * statements) become wallet items of the account they name, through products the platform
 * approved; and the demonstration catalogue. Acceptance is the wallet module's, by the deposit
 * kind's rules.
 */
export const depositsModule = defineModule({
  name: 'deposits',
  groups: ['deposits'],
  owns: [SqlDepositStore, SqlDepositDemoFixtures, SqlDepositsViews, holderRecords],
  holderRecords,
  views: SqlDepositsViews,
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const members = await ctx.use(membershipModule);
    const deposits = new DepositService(ctx.store(SqlDepositStore), ctx.unitOfWork(), tenants, ctx.clock, ctx.ids);
    const demo = new DemoSeed(tenants, deposits, members, ctx.config.platformName);
    return {
      services: {
        deposits,
        views: new DepositViews(ctx.store(SqlDepositStore)),
        demo,
        demoFixtures: ctx.store(SqlDepositDemoFixtures),
      },
      routes: () => [depositRoutes(deposits, demo)],
    };
  },
});
