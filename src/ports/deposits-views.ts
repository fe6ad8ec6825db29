import type { SourcePage } from './timeline-page.ts';

/** A deposit as an account's timeline shows it: its ids and time, never its body. */
export interface DepositRow {
  tenant: string;
  depositId: string;
  itemId: string;
  productId: string;
  createdAt: number;
}

/**
 * What the deposits module publishes of its deposits (docs/architecture.md, "Tables, owners and
 * views"): ids and times, and a body only to the wallet that hands it to its holder (`body`).
 * Every `tenant` narrows to one tenant; null reads every tenant.
 *
 * @tenantOwned
 */
export interface DepositsViews {
  /** The account's deposits for its timeline, in (createdAt, itemId) order. */
  depositsOf(accountId: string, tenant: string | null, page: SourcePage): Promise<DepositRow[]>;
  /** The deposit's body as delivered (canonical JSON), for its holder's wallet; undefined when the tenant has no such deposit. */
  body(tenant: string, depositId: string): Promise<string | undefined>;
}
