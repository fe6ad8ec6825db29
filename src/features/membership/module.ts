import { holderRecordsOf } from '../../adapters/sql/holder-records.ts';
import { SqlMembershipDemoFixtures } from '../../adapters/sql/membership/sql-membership-demo-fixtures.ts';
import { SqlMembershipStore } from '../../adapters/sql/membership/sql-membership-store.ts';
import { SqlMembershipViews } from '../../adapters/sql/membership/sql-membership-views.ts';
import { SqlPresentationTransactionStore } from '../../adapters/sql/verification/sql-presentation-transaction-store.ts';
import { defineModule } from '../../app/module.ts';
import { credentialTypesModule } from '../credential-types/module.ts';
import { tenantsModule } from '../tenants/module.ts';
import { MembershipService } from './membership-service.ts';
import { membershipRoutes } from './routes.ts';

const holderRecords = holderRecordsOf('membership');

/**
 * Membership and governance (docs/membership.md): member records with a coin ledger, enrolment
 * by an operator or by a completed hosted verification, proposals and one vote per member.
 * Its holder-plane operations use the holders module's plane; enrolment spends a presentation
 * transaction of the hosted verifier in the same unit of work as the member it creates.
 */
export const membershipModule = defineModule({
  name: 'membership',
  groups: ['membership'],
  owns: [SqlMembershipStore, SqlMembershipDemoFixtures, SqlMembershipViews, holderRecords],
  holderRecords,
  views: SqlMembershipViews,
  borrows: [SqlPresentationTransactionStore],
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const types = await ctx.use(credentialTypesModule);
    const store = ctx.store(SqlMembershipStore);
    const uow = ctx.unitOfWork({
      membership: ctx.store(SqlMembershipStore),
      transactions: ctx.store(SqlPresentationTransactionStore),
    });
    const members = new MembershipService(store, uow, tenants, types, ctx.clock, ctx.ids);
    return {
      // Clearing a demonstration tenant's members, proposals, votes and coin entries (the back office's fixtures).
      services: Object.assign(members, { demoFixtures: ctx.store(SqlMembershipDemoFixtures) }),
      routes: () => [membershipRoutes(members)],
    };
  },
});
