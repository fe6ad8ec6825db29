import { SqlApprovalStore } from '../../adapters/sql/approvals/sql-approval-store.ts';
import { SqlApprovalsViews } from '../../adapters/sql/approvals/sql-approvals-views.ts';
import { holderRecordsOf } from '../../adapters/sql/holder-records.ts';
import { defineModule } from '../../app/module.ts';
import { operatorsModule } from '../operators/module.ts';
import { ApprovalService } from './desk.ts';
import { approvalRoutes } from './routes.ts';

const HOUR_MS = 3_600_000;

const holderRecords = holderRecordsOf('approvals');

/**
 * The one four-eyes desk (docs/backoffice/approvals.md): the approvals and the `admin-approvals`
 * group that files, lists and decides them. Every module with an action that needs a second
 * operator registers it here while it is built (the back office's organisation, operator, bulk
 * revocation and data-subject actions; the integration module's token minting); the desk knows
 * none of them beforehand.
 */
export const approvalsModule = defineModule({
  name: 'approvals',
  groups: ['admin-approvals'],
  owns: [SqlApprovalStore, SqlApprovalsViews, holderRecords],
  holderRecords,
  views: SqlApprovalsViews,
  async build(ctx) {
    const operators = await ctx.use(operatorsModule);
    const store = ctx.store(SqlApprovalStore);
    const desk = new ApprovalService(store, ctx.unitOfWork(), ctx.clock, ctx.ids, (label) => operators.samePersonAs(label));
    return {
      services: desk,
      routes: () => [approvalRoutes(desk)],
      jobs: [
        // Reads judge expiry themselves; marking the rows keeps the state filter a plain comparison.
        { name: 'backoffice.approvals-expire', everyMs: HOUR_MS, run: async (now) => void (await desk.expire(now)) },
        // Data-subject exports are readable for 24 hours (reads stop then); this takes them out of the table.
        { name: 'backoffice.approvals-clear-results', everyMs: HOUR_MS, run: async (now) => void (await desk.clearResults(now)) },
      ],
    };
  },
});
