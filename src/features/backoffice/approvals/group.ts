import type { Context } from '../../../app/module.ts';
import type { ApprovalDesk } from '../../../http/admin/approval-desk.ts';
import { accountModule } from '../../account/module.ts';
import { credentialTypesModule } from '../../credential-types/module.ts';
import { statusModule } from '../../status/module.ts';
import { tenantsModule } from '../../tenants/module.ts';
import type { BackofficeStores } from '../module.ts';
import { revokeBulkAction } from './actions/revoke-bulk.ts';
import { subjectExportAction } from './actions/subject-export.ts';

/**
 * The back office's own four-eyes actions that belong to no group of it: bulk revocation and the
 * data-subject export, registered with the desk (the approvals module) while the back office is built.
 */
export async function registerDeskActions(ctx: Context, desk: ApprovalDesk, stores: BackofficeStores): Promise<void> {
  const [tenants, status, types, account] = await Promise.all([
    ctx.use(tenantsModule),
    ctx.use(statusModule),
    ctx.use(credentialTypesModule),
    ctx.use(accountModule),
  ]);
  desk.register(revokeBulkAction({ targets: stores.targets, status, tenants, types }));
  desk.register(subjectExportAction({ targets: stores.targets, data: account.data }));
}
