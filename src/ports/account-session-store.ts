/**
 * Browser sign-in to the account portal (docs/account.md; interface spec, Browser sign-in ticket).
 * Tickets and sessions are found by the hash of their secret; each move is one conditional write,
 * so a ticket is approved once and spent once, across processes.
 */
export interface TicketRecord {
  /** The hash of the ticket id: what the QR code and the approve URL carry, for the wallet. */
  idHash: string;
  /** The hash of the browser's secret: what its cookie carries, and nothing else does (null: opened before migration 0027). */
  browserHash: string | null;
  /** Which browser opened it, in words (from its User-Agent), shown to the approving holder. */
  browser: string;
  createdAt: number;
  expiresAt: number;
  approvedAccount: string | null;
  approvedAt: number | null;
  spentAt: number | null;
}

export interface AccountSessionStore {
  openTicket(ticket: TicketRecord): Promise<void>;
  ticket(idHash: string): Promise<TicketRecord | undefined>;
  /** opened (unexpired, unapproved, unspent) → approved by `accountId`; false otherwise. */
  approve(idHash: string, accountId: string, now: number): Promise<boolean>;
  /**
   * approved (unexpired, unspent) → spent, only for the browser that opened it (its secret's
   * hash); answers the approving account, or undefined.
   */
  spend(idHash: string, browserHash: string, now: number): Promise<string | undefined>;
  createSession(tokenHash: string, accountId: string, now: number, expiresAt: number): Promise<void>;
  /** The account of a live session. */
  session(tokenHash: string, now: number): Promise<string | undefined>;
  endSession(tokenHash: string): Promise<void>;
  /** Deletes tickets and sessions that ended before `before`. */
  prune(before: number): Promise<void>;
}
