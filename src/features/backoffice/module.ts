import type { Job } from '../../app/jobs.ts';
import type { Context } from '../../app/module.ts';
import { defineModule } from '../../app/module.ts';
import type { RouteGroup } from '../../http/route.ts';
import type { ApprovalDesk } from './approval-desk.ts';
import { buildApprovals } from './approvals/group.ts';
import { analyticsGroup } from './audit/analytics-group.ts';
import { auditGroup } from './audit/group.ts';
import { orgsGroup } from './orgs/group.ts';
import { peopleGroup } from './people/group.ts';
import { credentialsGroup } from './views/credentials-group.ts';
import { sessionGroup } from './views/session-group.ts';

/** What one back-office group builds: its routes, and the jobs that keep its data in order. */
export interface GroupBuild {
  group: RouteGroup;
  jobs?: Job[];
}

/** A group's builder: the kernel, and the approval desk its four-eyes actions register with. */
export type GroupBuilder = (ctx: Context, desk: ApprovalDesk) => Promise<GroupBuild>;

const GROUPS: readonly GroupBuilder[] = [auditGroup, analyticsGroup, orgsGroup, peopleGroup, sessionGroup, credentialsGroup];

/**
 * The operator back office (docs/backoffice.md): every group under /api/admin/* that is not a
 * feature's own (partners and integration keep theirs), built on one kit (kit.ts) and one role
 * matrix (role-matrix.ts). The approvals group is built first: the others register the actions
 * that need a second operator with its desk.
 */
export const backofficeModule = defineModule({
  name: 'backoffice',
  groups: [
    'admin-audit',
    'admin-analytics',
    'admin-approvals',
    'admin-orgs',
    'admin-people',
    'admin-session',
    'admin-credentials',
  ],
  async build(ctx) {
    const approvals = await buildApprovals(ctx);
    const built = [approvals, ...(await Promise.all(GROUPS.map((build) => build(ctx, approvals.desk))))];
    return {
      services: { desk: approvals.desk },
      routes: () => built.map((b) => b.group),
      jobs: built.flatMap((b) => b.jobs ?? []),
    };
  },
});
