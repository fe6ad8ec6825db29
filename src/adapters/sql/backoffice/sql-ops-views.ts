import type { OpsViews } from '../../../ports/ops-views.ts';
import type { Overdue } from '../../../ports/view-records.ts';
import type { Db } from '../connect.ts';

/** The operations group's reads of the back office's own tables (ports/ops-views.ts). */
export class SqlOpsViews implements OpsViews {
  constructor(private readonly db: Db) {}

  async overdueRequests(before: number, limit: number): Promise<Overdue[]> {
    const rows = await this.db
      .selectFrom('compliance_requests')
      .select(['id', 'due_at'])
      .where('due_at', '<', before)
      .where('decided_at', 'is', null)
      .orderBy('due_at')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.id, tenant: null, dueAt: Number(r.due_at) }));
  }
}
