import { type Expression, type SqlBool, sql } from 'kysely';

/**
 * The approvals module's parts of other owners' writes (docs/architecture.md, "Tables, owners and
 * views"): conditions on an approval that a write to another table must hold in its one
 * statement, so that the write and the condition are one atomic step.
 */

/** The approval `id` is live at `now`: approved, or pending and not expired. */
export const approvalLive = (id: string, now: number): Expression<SqlBool> =>
  sql<SqlBool>`exists (select 1 from approvals as a where a.id = ${id}
    and (a.state = 'approved' or (a.state = 'pending' and a.expires_at > ${now})))`;
