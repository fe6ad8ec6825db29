import { sql } from 'kysely';
import type { ApprovalsViews, PendingApproval, ReciprocalApprovals } from '../../../ports/approvals-views.ts';
import type { Counted, Overdue } from '../../../ports/view-records.ts';
import type { Db } from '../connect.ts';
import { counted } from '../counted.ts';
import { inTenant } from '../windowed.ts';

/** The approvals module's published views (ports/approvals-views.ts). */
export class SqlApprovalsViews implements ApprovalsViews {
  constructor(private readonly db: Db) {}

  async pending(action: string, tenant: string | null, now: number, top: number): Promise<Counted<PendingApproval>> {
    const base = this.db
      .selectFrom('approvals')
      .where('action', '=', action)
      .where('state', '=', 'pending')
      .where('expires_at', '>', now)
      .where(inTenant(tenant));
    return counted(
      base,
      (query) =>
        query
          .select(['id', 'tenant', 'params', 'requested_by', 'requested_at', 'expires_at'])
          .orderBy('requested_at')
          .orderBy('id')
          .limit(top)
          .execute(),
      (r) => ({
        id: r.id,
        tenant: r.tenant,
        params: JSON.parse(r.params) as Record<string, unknown>,
        requestedBy: r.requested_by,
        requestedAt: Number(r.requested_at),
        expiresAt: Number(r.expires_at),
      }),
    );
  }

  async overdue(tenant: string | null, before: number, limit: number): Promise<Overdue[]> {
    const rows = await this.db
      .selectFrom('approvals')
      .select(['id', 'tenant', 'expires_at'])
      .where('expires_at', '<', before)
      .where('state', '=', 'pending')
      .where(inTenant(tenant))
      .orderBy('expires_at')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.id, tenant: r.tenant, dueAt: Number(r.expires_at) }));
  }

  async states(ids: readonly string[]): Promise<Array<{ id: string; state: string }>> {
    if (ids.length === 0) return [];
    return this.db
      .selectFrom('approvals')
      .select(['id', 'state'])
      .where('id', 'in', [...ids])
      .execute();
  }

  async reciprocal(limit: number): Promise<ReciprocalApprovals[]> {
    const rows = await sql<{ first: string; second: string; one: number | string; other: number | string }>`
      with decided as (
        select requested_by as asked, decided_by as approver, count(*) as n from approvals
        where state = 'approved' and decided_by is not null and decided_by <> requested_by
        group by requested_by, decided_by
      )
      select a.asked as first, a.approver as second, a.n as one, b.n as other
      from decided a join decided b on b.asked = a.approver and b.approver = a.asked
      where a.asked < a.approver
      order by a.asked, a.approver
      limit ${limit}`.execute(this.db);
    return rows.rows.map((r) => ({
      first: r.first,
      second: r.second,
      firstApprovedSecond: Number(r.other),
      secondApprovedFirst: Number(r.one),
    }));
  }
}
