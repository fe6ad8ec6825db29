import type { CountWindow, DayCount } from './day-counts.ts';
import type { SourcePage } from './timeline-page.ts';

/** An account's membership of one tenant, as the back office's timeline shows it. */
export interface MembershipRow {
  tenant: string;
  tier: string;
  status: string;
  joinedAt: number;
}

/**
 * What the membership module publishes of its members (docs/architecture.md, "Tables, owners and
 * views"). Every `tenant` narrows to one tenant; null reads every tenant.
 *
 * @tenantOwned
 */
export interface MembershipViews {
  /** The account's memberships for its timeline, in (joinedAt, tenant) order. */
  membershipsOf(accountId: string, tenant: string | null, page: SourcePage): Promise<MembershipRow[]>;
  /** Members who joined per UTC day and tenant, in the window (typeId is ignored: a membership has no type). */
  enrolledPerDay(window: CountWindow): Promise<DayCount[]>;
}
