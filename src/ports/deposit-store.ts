import type { PageWindow } from '../core/page.ts';
import type { ChannelState } from './channel-store.ts';
import type { StoredItemState, WalletItemRecord } from './wallet-item-store.ts';
/** The deposit rail (docs/deposits.md): products and deposits, each one tenant's. */

export const DEPOSIT_KINDS = ['bill', 'receipt', 'ticket', 'statement'] as const;
export type DepositKind = (typeof DEPOSIT_KINDS)[number];

export interface ProductRecord {
  id: string;
  tenant: string;
  kind: DepositKind;
  name: string;
  requireChannel: boolean;
  approvedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface DepositRecord {
  tenant: string;
  depositId: string;
  accountId: string;
  productId: string;
  itemId: string;
  /** The body as the caller sent it, canonical JSON. */
  body: string;
  bodyHash: string;
  createdAt: number;
}

/** @tenantOwned */
export interface DepositStore {
  /** False when the tenant already has a product of this kind. */
  addProduct(product: ProductRecord): Promise<boolean>;
  product(id: string): Promise<ProductRecord | undefined>;
  productFor(tenant: string, kind: DepositKind): Promise<ProductRecord | undefined>;
  /** Products newest first past the cursor [createdAt, id], made within the window; of one tenant, or of all when `tenant` is undefined. */
  products(tenant: string | undefined, page: PageWindow<readonly [number, string]>): Promise<ProductRecord[]>;
  /** Approves a product not yet approved; false when it already was. */
  approve(id: string, now: number): Promise<boolean>;
  setRequireChannel(tenant: string, id: string, required: boolean, now: number): Promise<boolean>;
  /** False when the tenant already has a deposit under this id (the caller reads it then). */
  addDeposit(deposit: DepositRecord): Promise<boolean>;
  deposit(tenant: string, depositId: string): Promise<ChainedDeposit | undefined>;
  /**
   * Puts a deposit's item in its holder's wallet, in the deposit's transaction. This and the next
   * two are the wallet's side of a deposit, the wallet module's statements (decision 0025).
   */
  putInWallet(item: WalletItemRecord): Promise<void>;
  /** The stored state of the wallet item of the tenant's deposit, visible to its holder or not. */
  itemState(tenant: string, depositId: string): Promise<StoredItemState | undefined>;
  /** The state of the account's channel with the tenant (a product may require an active one). */
  channelState(tenant: string, accountId: string): Promise<ChannelState | undefined>;
  /**
   * The tenant's deposits, newest first (chain number descending): those before chain number
   * `beforeSeq`, made within the window (`createdAt`, ms: since inclusive, until exclusive).
   */
  deposits(
    tenant: string,
    limit: number,
    page?: { beforeSeq?: number; since?: number; until?: number },
  ): Promise<ChainedDeposit[]>;
  /** The tenant's chain in order, from number `afterSeq + 1`, and its head (null before any deposit). */
  chain(tenant: string, afterSeq: number, limit: number): Promise<ChainedDeposit[]>;
  chainHead(tenant: string): Promise<{ seq: number; hash: string } | null>;
  /** Every tenant that has a chain (the platform's integrity check walks them all). */
  chainTenants(): Promise<string[]>;
}

/** A deposit as stored, with its place in the tenant's hash chain (docs/deposits.md, "Integrity"). */
export interface ChainedDeposit extends DepositRecord {
  chainSeq: number;
  prevHash: string;
  chainHash: string;
  /**
   * When its holder erased the account (docs/account.md, "Erasure"): the body, its hash and the
   * account are blanked, and the deposit's place and hashes in the chain stay.
   */
  erasedAt: number | null;
}
