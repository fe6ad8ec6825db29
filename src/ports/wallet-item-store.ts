import type { PageWindow } from '../core/page.ts';

export const ITEM_KINDS = ['offer', 'deposit', 'channel-request'] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

/** Stored states. A pending item past its `expiresAt` reads as `expired` (effectiveState). */
export type StoredItemState = 'pending' | 'accepted' | 'declined';
export type ItemState = StoredItemState | 'expired';

export interface WalletItemRecord {
  id: string;
  tenant: string;
  /** RFC 7638 thumbprint of the holder's device key. */
  accountId: string;
  kind: ItemKind;
  /** The offer id, deposit id or channel this item stands for: unique per kind within the tenant. */
  ref: string;
  title: string;
  state: StoredItemState;
  /** Demonstration data (a `demo-` tenant's item). */
  demo: boolean;
  createdAt: number;
  updatedAt: number;
  expiresAt: number | null;
}

/** A listed item, with the name of the tenant it comes from. */
export interface ListedItem extends WalletItemRecord {
  tenantName: string;
}

export const effectiveState = (item: WalletItemRecord, now: number): ItemState =>
  item.state === 'pending' && item.expiresAt !== null && item.expiresAt <= now ? 'expired' : item.state;

/** Where a page of items starts: the last item of the previous page (newest first), [createdAt, id]. */
export type ItemCursor = readonly [number, string];

/**
 * Items materialise for an account only once it is enrolled: an offer or a deposit of a tenant
 * is visible (listed, acceptable) only while the account has a member record of that tenant that
 * is not erased. A channel request, which asks rather than gives, is always visible.
 * @tenantOwned
 */
export interface WalletItemStore {
  add(item: WalletItemRecord): Promise<void>;
  /** The account's item with this id, if it is visible. */
  get(accountId: string, itemId: string): Promise<ListedItem | undefined>;
  /** Visible items, newest first, past the cursor, created within the window. */
  list(accountId: string, page: PageWindow<ItemCursor>): Promise<ListedItem[]>;
  /** Moves a pending item to `to`; false when it was not pending (one conditional write). */
  decide(itemId: string, to: 'accepted' | 'declined', now: number): Promise<boolean>;
  /**
   * Holds the account's item until the transaction ends, so that use cases which read what hangs
   * off the item and then replace it (its sharing settings) follow one another instead of writing
   * over each other. False when the account has no item with this id, visible or not.
   */
  hold(accountId: string, itemId: string): Promise<boolean>;
}
