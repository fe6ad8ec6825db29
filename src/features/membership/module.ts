import { holderRecordsOf } from '../../adapters/sql/holder-records.ts';
import { SqlMembershipDemoFixtures } from '../../adapters/sql/membership/sql-membership-demo-fixtures.ts';
import { SqlMembershipStore } from '../../adapters/sql/membership/sql-membership-store.ts';
import { SqlMembershipViews } from '../../adapters/sql/membership/sql-membership-views.ts';
import { defineModule } from '../../app/module.ts';
import { credentialTypesModule } from '../credential-types/module.ts';
import { tenantsModule } from '../tenants/module.ts';
import { verificationModule } from '../verification/module.ts';
import { MembershipService } from './membership-service.ts';
import { membershipRoutes } from './routes.ts';

const holderRecords = holderRecordsOf('membership');

/**
 * Membership and governance (docs/membership.md): member records with a coin ledger, enrolment
 * by an operator or by a completed hosted verification, proposals and one vote per member.
 * Its holder-plane operations use the holders module's plane; enrolment reads a presentation
 * transaction of the hosted verifier through the verification module's views and spends it (the
 * verification module's statement) in the same unit of work as the member it creates, without
 * building that module.
 */
export const membershipModule = defineModule({
  name: 'membership',
  groups: ['membership'],
  owns: [SqlMembershipStore, SqlMembershipDemoFixtures, SqlMembershipViews, holderRecords],
  holderRecords,
  views: SqlMembershipViews,
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const types = await ctx.use(credentialTypesModule);
    const store = ctx.store(SqlMembershipStore);
    const members = new MembershipService({
      store,
      uow: ctx.unitOfWork(),
      tenants,
      types,
      clock: ctx.clock,
      ids: ctx.ids,
      transactions: ctx.viewsOf(verificationModule),
    });
    return {
      // Clearing a demonstration tenant's members, proposals, votes and coin entries (the back office's fixtures).
      services: Object.assign(members, { demoFixtures: ctx.store(SqlMembershipDemoFixtures) }),
      routes: () => [membershipRoutes(members)],
    };
  },
});
