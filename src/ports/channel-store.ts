/** Data channels between a tenant and a holder account (docs/wallet.md). */

export type ChannelState = 'requested' | 'active' | 'declined' | 'revoked';

export interface ChannelRecord {
  tenant: string;
  accountId: string;
  state: ChannelState;
  /** The element (claim or field) names the organisation asks for. */
  elements: string[];
  requestedBy: 'tenant' | 'holder';
  createdAt: number;
  updatedAt: number;
}

/** At most one channel per tenant and account; every state change is one conditional write. */
export interface ChannelStore {
  get(tenant: string, accountId: string): Promise<ChannelRecord | undefined>;
}
