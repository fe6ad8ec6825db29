import type { SourcePage } from './timeline-page.ts';

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
}
