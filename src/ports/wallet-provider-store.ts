import type { PageWindow } from '../core/page.ts';

/** The wallet providers a deployment admits (docs/wallet.md, "Wallet providers"). */

export const PROVIDER_STATES = ['requested', 'admitted', 'rejected', 'suspended'] as const;
export type ProviderState = (typeof PROVIDER_STATES)[number];

export interface WalletProviderRecord {
  id: string;
  name: string;
  /** The provider's https origin. */
  homepage: string;
  contact: string | null;
  state: ProviderState;
  /** Why it was rejected or suspended. */
  reason: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A platform registry: no tenant owns a provider. Every state change is one conditional write. */
export interface WalletProviderStore {
  /** False when a provider with this homepage is registered already. */
  add(provider: WalletProviderRecord): Promise<boolean>;
  get(id: string): Promise<WalletProviderRecord | undefined>;
  /** Providers newest first (createdAt, then id, descending) past the cursor, registered within the window. */
  list(state: ProviderState | undefined, page: PageWindow<readonly [number, string]>): Promise<WalletProviderRecord[]>;
  move(id: string, from: readonly ProviderState[], to: ProviderState, reason: string | null, now: number): Promise<boolean>;
}
