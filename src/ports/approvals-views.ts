import type { Counted, Overdue } from './view-records.ts';

/**
 * What the approvals module's table (the four-eyes desk's approvals) publishes to other modules
 * (docs/architecture.md, "Tables, owners and views"): reads only, never a result. A read that
 * takes a tenant narrows to it (null: every tenant's and the platform's).
 * @tenantOwned
 */
export interface ApprovalsViews {
  /** Approvals of `action` pending and unexpired at `now`: how many, and the `top` oldest requested. */
  pending(action: string, tenant: string | null, now: number, top: number): Promise<Counted<PendingApproval>>;
  /** Approvals still pending whose expiry is before `before` (the expiry job marks them), oldest first, at most `limit`. */
  overdue(tenant: string | null, before: number, limit: number): Promise<Overdue[]>;
  /** The state of each of these approvals that exists, in no order. */
  states(ids: readonly string[]): Promise<Array<{ id: string; state: string }>>;
  /** Pairs of actors each of whom approved the other's requests, by their names, at most `limit`. */
  reciprocal(limit: number): Promise<ReciprocalApprovals[]>;
}

/** A pending approval, as a list of what waits shows it. */
export interface PendingApproval {
  id: string;
  tenant: string | null;
  params: Record<string, unknown>;
  requestedBy: string;
  requestedAt: number;
  expiresAt: number;
}

/** Two actors each of whom approved the other's requests: how often, each way. */
export interface ReciprocalApprovals {
  first: string;
  second: string;
  firstApprovedSecond: number;
  secondApprovedFirst: number;
}
