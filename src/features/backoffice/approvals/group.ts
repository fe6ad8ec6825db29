import type { Context } from '../../../app/module.ts';
import type { ApprovalDesk } from '../../../http/admin/approval-desk.ts';
import { accountModule } from '../../account/module.ts';
import { credentialTypesModule } from '../../credential-types/module.ts';
import { operatorsModule } from '../../operators/module.ts';
import { statusModule } from '../../status/module.ts';
import { tenantsModule } from '../../tenants/module.ts';
import type { BackofficeStores, GroupBuild } from '../module.ts';
import { revokeBulkAction } from './actions/revoke-bulk.ts';
import { subjectExportAction } from './actions/subject-export.ts';
import { ApprovalService } from './desk.ts';
import { approvalRoutes } from './routes.ts';

const HOUR_MS = 3_600_000;

/**
 * The `admin-approvals` group and its desk (docs/backoffice/approvals.md), built before the other
 * groups so that they register their four-eyes actions with it. Its own two actions: bulk
 * revocation and the data-subject export.
 */
export async function buildApprovals(ctx: Context, stores: BackofficeStores): Promise<GroupBuild & { desk: ApprovalDesk }> {
  const operators = await ctx.use(operatorsModule);
  const desk = new ApprovalService(
    stores.approvals,
    ctx.unitOfWork({ approvals: stores.approvals }),
    ctx.clock,
    ctx.ids,
    (label) => operators.samePersonAs(label),
  );
  const [tenants, status, types, account] = await Promise.all([
    ctx.use(tenantsModule),
    ctx.use(statusModule),
    ctx.use(credentialTypesModule),
    ctx.use(accountModule),
  ]);
  desk.register(revokeBulkAction({ targets: stores.targets, status, tenants, types }));
  desk.register(subjectExportAction({ targets: stores.targets, data: account.data }));
  return {
    group: approvalRoutes(desk),
    desk,
    jobs: [
      // Reads judge expiry themselves; marking the rows keeps the state filter a plain comparison.
      { name: 'backoffice.approvals-expire', everyMs: HOUR_MS, run: async (now) => void (await desk.expire(now)) },
      // Data-subject exports are readable for 24 hours (reads stop then); this takes them out of the table.
      { name: 'backoffice.approvals-clear-results', everyMs: HOUR_MS, run: async (now) => void (await desk.clearResults(now)) },
    ],
  };
}
