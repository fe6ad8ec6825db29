import type { CoinEntry, ProposalRecord } from './membership-store.ts';

/**
 * The people views of the back office (docs/backoffice/people.md): read models across tenants over
 * membership, coins, governance and sharing, and an operator's last sign-in. Lists read one more
 * row than they show, after a cursor of the last row's order values.
 */

/** What every people list is narrowed by: one tenant (null: every tenant) and a time window (ms). */
export interface PeopleWindow {
  tenant: string | null;
  since?: number;
  until?: number;
}

export interface MemberRow {
  tenant: string;
  accountId: string;
  tier: string;
  status: string;
  balance: number;
  joinedAt: number;
}

/** One item's sharing setting with one tenant: element names, never values. */
export interface ConsentRow {
  /** The tenant the holder shares with. */
  tenant: string;
  accountId: string;
  itemId: string;
  itemTenant: string;
  itemKind: string;
  elements: string[];
  /** The state of the channel between the tenant and the account; `none` without one. */
  channel: string;
  /** When the setting took its present elements (the newest sharing log entry); null if unknown. */
  since: number | null;
}

export interface EconomyRow {
  tenant: string;
  issued: number;
  spent: number;
  outstanding: number;
  members: number;
  activeMembers: number;
}

export interface OptionCount {
  proposalId: string;
  option: string;
  votes: number;
  assisted: number;
}

export interface BackofficePeopleReads {
  /** Newest enrolment first: order (joinedAt desc, tenant, accountId). */
  members(
    filter: PeopleWindow & { status?: string; tier?: string },
    limit: number,
    after?: readonly [number, string, string],
  ): Promise<MemberRow[]>;
  /** Newest first: order (createdAt desc, id desc). */
  coinEntries(
    filter: PeopleWindow & { accountId?: string },
    limit: number,
    after?: readonly [number, string],
  ): Promise<CoinEntry[]>;
  /** Newest first: order (createdAt desc, id desc). */
  proposals(
    filter: PeopleWindow & { state?: string },
    limit: number,
    after?: readonly [number, string],
  ): Promise<ProposalRecord[]>;
  /** Votes per option (and how many of them assisted) of these proposals; options without votes are absent. */
  optionCounts(proposalIds: readonly string[]): Promise<OptionCount[]>;
  /** By the tenant shared with, then account, then item; the window applies to `since`. */
  consent(
    filter: PeopleWindow & { accountId?: string },
    limit: number,
    after?: readonly [string, string, string],
  ): Promise<ConsentRow[]>;
  /** One row per tenant, by slug; the window applies to the coin entries counted as issued and spent. */
  economy(filter: PeopleWindow, limit: number, after?: string): Promise<EconomyRow[]>;
  /** The time of the operator's newest sign-in in the audit log; null if it never signed in. */
  lastSignIn(username: string): Promise<number | null>;
}
