import type { FunnelRow, Overdue } from './view-records.ts';

/**
 * What the verification module's tables (the hosted verifier's transactions and their daily
 * counts) publish to other modules (docs/architecture.md, "Tables, owners and views"): reads only,
 * never a presented claim. A transaction is counted under the tenant whose type it asked for; a
 * read that takes a tenant narrows to it (null: every tenant's).
 * @tenantOwned
 */
export interface VerificationViews {
  /** Transactions whose expiry is before `before` (the sweep deletes them), oldest first, at most `limit`. */
  expiredTransactions(tenant: string | null, before: number, limit: number): Promise<Overdue[]>;
  /**
   * Transactions opened since `since` (a day's midnight), per tenant and type: requests, responses
   * and accepted ones, the swept ones' daily counts and the live ones together (at most `limit`
   * groups, the busiest first).
   */
  funnel(tenant: string | null, since: number, limit: number): Promise<FunnelRow[]>;
  /** One transaction by id, counted under the tenant whose type it asked for; never its claims or outcome. */
  transaction(id: string, tenant: string | null): Promise<TransactionRow | undefined>;
  /**
   * What enrolling by a transaction reads of it (the membership module, docs/membership.md), found
   * by id alone like every transaction: whose type it asked for, who answered and whether the
   * answer was accepted, its times, and the hashes its result token and response code are checked
   * against; never its claims.
   */
  enrolment(id: string): Promise<EnrolmentTransaction | undefined>;
}

/** A hosted-verification transaction: what it asked for, who answered, and when. */
export interface TransactionRow {
  id: string;
  /** The tenant whose type it asked for. */
  tenant: string;
  typeId: string;
  /** The holder account that answered; null before an answer. */
  accountId: string | null;
  createdAt: number;
  completedAt: number | null;
}

/** A hosted-verification transaction as an enrolment by it reads it. */
export interface EnrolmentTransaction {
  id: string;
  /** The tenant whose type it asked for: the tenant the holder is enrolled in. */
  typeTenant: string;
  typeId: string;
  /** The holder key's thumbprint once answered. */
  holder: string | null;
  /** Whether the answer was verified and accepted. */
  accepted: boolean;
  resultTokenHash: string;
  responseCodeHash: string | null;
  expiresAt: number;
  completedAt: number | null;
  enrolledAt: number | null;
}
