import type { Context } from '../../../app/module.ts';
import type { ApprovalDesk } from '../../../http/admin/approval-desk.ts';
import { credentialTypesModule } from '../../credential-types/module.ts';
import { issuanceModule } from '../../issuance/module.ts';
import { statusModule } from '../../status/module.ts';
import { tenantsModule } from '../../tenants/module.ts';
import { revokeBulkAction } from './actions/revoke-bulk.ts';

/**
 * The back office's own four-eyes actions that belong to no group of it: bulk revocation (the
 * data-subject export is the compliance group's), registered with the desk (the approvals module) while the back office is built.
 */
export async function registerDeskActions(ctx: Context, desk: ApprovalDesk): Promise<void> {
  const [tenants, status, types] = await Promise.all([
    ctx.use(tenantsModule),
    ctx.use(statusModule),
    ctx.use(credentialTypesModule),
  ]);
  desk.register(revokeBulkAction({ credentials: ctx.viewsOf(issuanceModule), status, tenants, types }));
}
