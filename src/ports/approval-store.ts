/**
 * The approval desk's approvals (docs/backoffice/approvals.md). Tenant-owned when `tenant` is set;
 * a platform approval has none. `within` is the caller's tenant scope: a scoped caller sees only
 * its tenant's approvals, never a platform one; null sees every approval.
 */

/** What the table stores; `expired` is also what a pending approval past its time reads as. */
export type ApprovalState = 'pending' | 'approved' | 'rejected' | 'withdrawn' | 'expired';

export const APPROVAL_STATES: readonly ApprovalState[] = ['pending', 'approved', 'rejected', 'withdrawn', 'expired'];

export interface ApprovalRecord {
  id: string;
  action: string;
  params: Record<string, unknown>;
  tenant: string | null;
  /** The holder account the approval names (a data-subject export), for the account's erasure. */
  accountId: string | null;
  /** As stored: a pending approval past `expiresAt` is expired whatever this says. */
  state: ApprovalState;
  reason: string | null;
  requestedBy: string;
  requestedAt: number;
  expiresAt: number;
  decidedBy: string | null;
  decidedAt: number | null;
  note: string | null;
  result: Record<string, unknown> | null;
  /** Only the requester reads the result, and only until `resultExpiresAt`. */
  resultPrivate: boolean;
  resultExpiresAt: number | null;
}

export interface ApprovalFilter {
  /** Null: every approval, platform ones included. */
  tenant: string | null;
  state?: ApprovalState;
  action?: string;
  requestedBy?: string;
  /** requested_at window: since inclusive, until exclusive. */
  since?: number;
  until?: number;
  /** The last row of the page before: [requestedAt, id] (newest first). */
  after?: readonly [number, string];
  limit: number;
  /** What `pending` and `expired` are judged against. */
  now: number;
}

export interface PendingFilter {
  /** Null: every tenant and the platform; set: that tenant only. */
  tenant: string | null;
  actions: readonly string[];
  /** Approvals these labels asked for are left out (the caller, and the operators linked to it). */
  notRequestedBy: readonly string[];
  now: number;
  limit: number;
}

export interface Decision {
  state: 'approved' | 'rejected' | 'withdrawn';
  by: string;
  note: string | null;
  now: number;
}

/** @tenantOwned */
export interface ApprovalStore {
  create(record: ApprovalRecord): Promise<void>;
  get(id: string, within: string | null): Promise<ApprovalRecord | undefined>;
  /** Newest first; `limit` rows at most. */
  list(filter: ApprovalFilter): Promise<ApprovalRecord[]>;
  /** Pending and unexpired, oldest first. */
  pending(filter: PendingFilter): Promise<ApprovalRecord[]>;
  /**
   * One conditional write: decides the approval only while it is pending and unexpired at
   * `d.now`; answers whether it did. Concurrent deciders meet on the row: one wins.
   */
  decide(id: string, d: Decision): Promise<boolean>;
  /** Records what the action answered; a private result is kept until `expiresAt`. */
  saveResult(id: string, result: Record<string, unknown>, priv: boolean, expiresAt: number | null): Promise<void>;
  /** The expiry job: marks pending approvals past their time expired; answers how many. */
  markExpired(now: number): Promise<number>;
  /** The result job: clears private results past their time; answers how many. */
  clearResults(now: number): Promise<number>;
}
