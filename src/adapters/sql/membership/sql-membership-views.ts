import { sql } from 'kysely';
import type { CountWindow, DayCount } from '../../../ports/day-counts.ts';
import type { MembershipRow, MembershipViews } from '../../../ports/membership-views.ts';
import type { SourcePage } from '../../../ports/timeline-page.ts';
import type { Db } from '../connect.ts';
import { sourcePage } from '../timeline-page.ts';
import { inTenant } from '../windowed.ts';

const DAY_MS = 86_400_000;

/** The UTC day (days since the epoch) of a millisecond column; a literal divisor, so GROUP BY matches the SELECT on PostgreSQL. */
const dayOf = (column: string) => sql<number | string>`cast(${sql.ref(column)} / ${sql.lit(DAY_MS)} as bigint)`;

/** The membership module's published views of `members` (ports/membership-views.ts). */
export class SqlMembershipViews implements MembershipViews {
  constructor(private readonly db: Db) {}

  async membershipsOf(accountId: string, tenant: string | null, page: SourcePage): Promise<MembershipRow[]> {
    const query = this.db
      .selectFrom('members')
      .select(['tenant', 'tier', 'status', 'joined_at'])
      .where('account_id', '=', accountId)
      .where(inTenant(tenant));
    const rows = await sourcePage(query, 'joined_at', 'tenant', page);
    return rows.map((r) => ({ tenant: r.tenant, tier: r.tier, status: r.status, joinedAt: Number(r.joined_at) }));
  }

  async enrolledPerDay(w: CountWindow): Promise<DayCount[]> {
    const day = dayOf('joined_at');
    const rows = await this.db
      .selectFrom('members')
      .select((eb) => ['tenant', day.as('day'), eb.fn.countAll().as('n')])
      .where('joined_at', '>=', w.since)
      .where('joined_at', '<', w.until)
      .where(inTenant(w.tenant))
      .groupBy(['tenant', day])
      .execute();
    return rows.map((r) => ({ day: Number(r.day), tenant: r.tenant, typeId: null, n: Number(r.n) }));
  }
}
