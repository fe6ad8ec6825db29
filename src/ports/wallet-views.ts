import type { SourcePage } from './timeline-page.ts';
import type { AccountInTenant, TenantWindow } from './view-records.ts';

/** A wallet item, without its title: what it is, whose, and when it moved. */
export interface WalletItemRow {
  id: string;
  tenant: string;
  accountId: string;
  kind: string;
  ref: string;
  state: string;
  createdAt: number;
  updatedAt: number;
}

/** A channel between a tenant and an account. */
export interface ChannelRow {
  tenant: string;
  accountId: string;
  state: string;
  elements: string[];
  requestedBy: string;
  createdAt: number;
  updatedAt: number;
}

/** Whose wallet items: an account's, or the item an offer was addressed as. */
export type WalletItemsOf = { accountId: string } | { offerId: string };

/**
 * What the wallet module publishes of its items and channels (docs/architecture.md, "Tables,
 * owners and views"). Every `tenant` narrows to one tenant; null reads every tenant.
 *
 * @tenantOwned
 */
export interface WalletViews {
  /** The ids of the offers addressed to the account's wallet. */
  offersAddressedTo(accountId: string, tenant: string | null): Promise<string[]>;
  /** Wallet items for a timeline, in (createdAt, id) order. */
  itemsOf(of: WalletItemsOf, tenant: string | null, page: SourcePage): Promise<WalletItemRow[]>;
  /** The account's channels for its timeline, in (createdAt, tenant) order. */
  channelsOf(accountId: string, tenant: string | null, page: SourcePage): Promise<ChannelRow[]>;
  /**
   * Items whose demonstration mark disagrees with their tenant (marked, of a tenant that is not a
   * demonstration one, or unmarked, of one that is), by tenant and id, at most `limit`: every
   * tenant's, the platform's read.
   */
  demoMarkMismatches(limit: number): Promise<{ id: string; tenant: string }[]>;
  /** One item by id, of the tenant (any tenant's for null). */
  item(id: string, tenant: string | null): Promise<WalletItemRow | undefined>;
  /** Accounts whose id starts with `prefix` and that hold items, each (accountId, tenant) once, in that order, at most `cap`. */
  accountsByPrefix(prefix: string, tenant: string | null, cap: number): Promise<AccountInTenant[]>;
  /** The accounts of items created in the window, each once, in order after `after`, at most `limit`. */
  accounts(window: TenantWindow, after: string | undefined, limit: number): Promise<string[]>;
  /** How many items each of these accounts holds, per tenant. */
  itemCounts(accountIds: readonly string[], tenant: string | null): Promise<Array<AccountInTenant & { count: number }>>;
  /** The account's items counted per tenant, kind and state, a pending item past its expiry at `now` counted as `expired`. */
  itemStates(accountId: string, tenant: string | null, now: number): Promise<ItemStateCount[]>;
  /** The account's channels, by tenant. */
  channelsByTenant(accountId: string, tenant: string | null): Promise<ChannelRow[]>;
  /**
   * Sharing settings by the tenant shared with, then account, then item, after `after`, at most
   * `limit`; the window applies to `since`.
   */
  consent(
    filter: TenantWindow & { accountId?: string },
    limit: number,
    after?: readonly [string, string, string],
  ): Promise<ConsentRow[]>;
  /** The active channels of each tenant that has any, by tenant. */
  activeChannels(): Promise<Array<{ tenant: string; active: number }>>;
}

export interface ItemStateCount {
  tenant: string;
  kind: string;
  state: string;
  count: number;
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
