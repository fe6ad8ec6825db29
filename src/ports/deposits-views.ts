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
  /** The deposits a tenant made under `depositId` (an id is its tenant's own), by tenant, at most `cap`. */
  byDepositId(depositId: string, tenant: string | null, cap: number): Promise<DepositState[]>;
  /** How many deposits the account has, per tenant, by tenant. */
  countsOf(accountId: string, tenant: string | null): Promise<Array<{ tenant: string; count: number }>>;
  /** The deposit's body as delivered (canonical JSON), for its holder's wallet; undefined when the tenant has no such deposit. */
  body(tenant: string, depositId: string): Promise<string | undefined>;
}

/** A deposit's ids, account and whether its body is still kept; never the body. */
export interface DepositState {
  tenant: string;
  depositId: string;
  /** Null once the holder erased its account. */
  accountId: string | null;
  createdAt: number;
  erasedAt: number | null;
}
