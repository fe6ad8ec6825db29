import type { PageWindow } from '../core/page.ts';
/** Data channels between a tenant and a holder account, and what flows over them (docs/wallet.md). */

export type ChannelState = 'requested' | 'active' | 'declined' | 'revoked';
export const CHANNEL_STATES = ['requested', 'active', 'declined', 'revoked'] as const;

export interface ChannelRecord {
  tenant: string;
  accountId: string;
  state: ChannelState;
  /** The element (claim or field) names the requesting side asks for. */
  elements: string[];
  requestedBy: 'tenant' | 'holder';
  createdAt: number;
  updatedAt: number;
}

/** One item's elements a channel (a tenant) may receive. */
export interface ShareSetting {
  itemId: string;
  tenant: string;
  elements: string[];
}

/** One change of what an item shares with a tenant: the elements from then on (empty: none). */
export interface ShareLogEntry {
  id: string;
  accountId: string;
  itemId: string;
  tenant: string;
  elements: string[];
  at: number;
}

/**
 * At most one channel per tenant and account; every state change is one conditional write.
 * @tenantOwned
 */
export interface ChannelStore {
  get(tenant: string, accountId: string): Promise<ChannelRecord | undefined>;
  /**
   * Opens a request: a new channel, or a declined or revoked one asked again. False when the
   * pair has a channel that is requested or active (nothing is written).
   */
  request(channel: ChannelRecord): Promise<boolean>;
  /** Moves the channel from one of `from` to `to`; false when it was in none of them. */
  move(tenant: string, accountId: string, from: readonly ChannelState[], to: ChannelState, now: number): Promise<boolean>;
  /**
   * A tenant's channels (every tenant's when undefined), by tenant and account id past the cursor
   * `[tenant, accountId]`, opened (createdAt) within the window.
   */
  list(
    filter: { tenant?: string | undefined; state?: ChannelState | undefined },
    page: PageWindow<readonly [string, string]>,
  ): Promise<ChannelRecord[]>;
  /** The item's sharing settings. */
  sharesOf(itemId: string): Promise<ShareSetting[]>;
  /** Replaces the item's settings and appends one log entry per tenant whose elements changed. */
  setShares(accountId: string, itemId: string, shares: ShareSetting[], log: ShareLogEntry[]): Promise<void>;
  /** What an account shares with a tenant, item by item. */
  sharedWith(tenant: string, accountId: string, limit: number): Promise<ShareSetting[]>;
  /** The item's sharing log, newest first. */
  logOf(accountId: string, itemId: string, limit: number): Promise<ShareLogEntry[]>;
}
