import type { Context } from '../../../app/module.ts';
import { credentialTypesModule } from '../../credential-types/module.ts';
import { issuanceModule } from '../../issuance/module.ts';
import { membershipModule } from '../../membership/module.ts';
import { operatorsModule } from '../../operators/module.ts';
import { tenantsModule } from '../../tenants/module.ts';
import type { OrgReads } from './org-service.ts';

/** What the organisations read of other modules: each owner's published views (Context.viewsOf). */
export function orgReads(ctx: Context): OrgReads {
  const operators = ctx.viewsOf(operatorsModule);
  const tenants = ctx.viewsOf(tenantsModule);
  return {
    types: (slugs) => ctx.viewsOf(credentialTypesModule).typesPerTenant(slugs),
    credentials: (slugs) => ctx.viewsOf(issuanceModule).issuedPerTenant(slugs),
    members: (slugs) => ctx.viewsOf(membershipModule).membersPerTenant(slugs),
    tenantAdmins: (slugs) => operators.tenantAdmins(slugs),
    suspended: (filter) => tenants.suspended(filter),
    offboarded: (filter) => operators.offboarded(filter),
  };
}
