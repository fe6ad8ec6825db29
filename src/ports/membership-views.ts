import type { CountWindow, DayCount } from './day-counts.ts';
import type { CoinEntry, ProposalRecord } from './membership-store.ts';
import type { SourcePage } from './timeline-page.ts';
import type { AccountInTenant, TenantCount, TenantWindow } from './view-records.ts';

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
  /** Members, newest enrolment first: (joinedAt desc, tenant, accountId) after `after`, at most `limit`. */
  members(
    filter: TenantWindow & { status?: string; tier?: string },
    limit: number,
    after?: readonly [number, string, string],
  ): Promise<MemberRow[]>;
  /** Coin entries, newest first: (createdAt desc, id desc) after `after`, at most `limit`. */
  coinEntries(
    filter: TenantWindow & { accountId?: string },
    limit: number,
    after?: readonly [number, string],
  ): Promise<CoinEntry[]>;
  /** Proposals, newest first: (createdAt desc, id desc) after `after`, at most `limit`. */
  proposals(
    filter: TenantWindow & { state?: string },
    limit: number,
    after?: readonly [number, string],
  ): Promise<ProposalRecord[]>;
  /** Votes per option (and how many of them assisted) of these proposals; options without votes are absent. */
  optionCounts(proposalIds: readonly string[]): Promise<OptionCount[]>;
  /**
   * The coin economy of each of `tenants`, in their order: coins issued and spent by entries made
   * in the window, coins outstanding and members now (zeros for a tenant without any).
   */
  economies(tenants: readonly string[], window: Omit<TenantWindow, 'tenant'>): Promise<CoinEconomy[]>;
  /** Members whose account id starts with `prefix`, by (accountId, tenant), at most `cap`. */
  accountsByPrefix(prefix: string, tenant: string | null, cap: number): Promise<AccountInTenant[]>;
  /** The accounts of members who joined in the window, each once, in order after `after`, at most `limit`. */
  accounts(window: TenantWindow, after: string | undefined, limit: number): Promise<string[]>;
  /** The memberships of these accounts, by (accountId, tenant). */
  memberships(accountIds: readonly string[], tenant: string | null): Promise<AccountMembership[]>;
  /** How many members each of `tenants` has that are not erased (a tenant with none is absent). */
  membersPerTenant(tenants: readonly string[]): Promise<TenantCount[]>;
}

export interface MemberRow {
  tenant: string;
  accountId: string;
  tier: string;
  status: string;
  balance: number;
  joinedAt: number;
}

export interface AccountMembership extends MembershipRow {
  accountId: string;
}

export interface OptionCount {
  proposalId: string;
  option: string;
  votes: number;
  assisted: number;
}

export interface CoinEconomy {
  tenant: string;
  issued: number;
  spent: number;
  outstanding: number;
  members: number;
  activeMembers: number;
}
