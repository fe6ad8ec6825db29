import type { AuditEntry } from '../core/audit-chain.ts';

/**
 * What the back office reads of the audit log, the event outbox and the tables its analytics
 * count (docs/backoffice/audit.md). Read-only: nothing here writes a row.
 */

/** A page of the audit log: newest first (`desc`) or oldest first (`asc`), after the cursor's seq. */
export interface AuditListQuery {
  /** The tenant shown; null for every tenant (entries of no tenant included). */
  tenant: string | null;
  /** Exact actor label (`operator:ana`). */
  actor?: string;
  /** Exact action (`org.created`), or a prefix ending in `.` (`org.`). */
  action?: string;
  /** On `at`, milliseconds: since inclusive, until exclusive. */
  since?: number;
  until?: number;
  order: 'asc' | 'desc';
  /** The seq of the last entry of the page before. */
  afterSeq?: number;
  /** Rows to read (the page size plus one). */
  limit: number;
}

/** The head row every append moves (docs/audit.md): the last entry's seq and hash. */
export interface AuditHead {
  seq: number;
  hash: string;
}

export interface AuditLogReader {
  list(query: AuditListQuery): Promise<AuditEntry[]>;
  entry(seq: number): Promise<AuditEntry | undefined>;
  /** Consecutive entries from `fromSeq` up to `toSeq` (inclusive), oldest first, at most `limit`. */
  run(fromSeq: number, toSeq: number, limit: number): Promise<AuditEntry[]>;
  head(): Promise<AuditHead>;
}

/** One outbox row, as the activity feed reads it. */
export interface OutboxRow {
  seq: number;
  id: string;
  type: string;
  tenant: string;
  createdAt: number;
  data: Record<string, unknown>;
}

export interface ActivityQuery {
  /**
   * The tenant shown; null for every tenant. A tenant's feed holds its own events and the
   * `presentation.*` events (written to `root`) whose `vct` starts with `vctPrefix`.
   */
  tenant: string | null;
  /** The tenant's `<issuer>/types/`, when `tenant` is set. */
  vctPrefix?: string;
  /** Event types shown; all when absent. */
  types?: readonly string[];
  since?: number;
  until?: number;
  /** The seq of the last row of the page before; newest first. */
  beforeSeq?: number;
  limit: number;
}

export interface ActivityReader {
  activity(query: ActivityQuery): Promise<OutboxRow[]>;
}

/** The window and narrowing of an analytics query: milliseconds, since inclusive, until exclusive. */
export interface CountWindow {
  since: number;
  until: number;
  tenant: string | null;
  typeId: string | null;
}

/** Counts of one UTC day (days since the epoch) for one tenant, or one tenant and type. */
export interface DayCount {
  day: number;
  tenant: string;
  typeId: string | null;
  n: number;
}

export interface OfferDayCount {
  day: number;
  tenant: string;
  typeId: string;
  created: number;
  redeemed: number;
  collected: number;
}

/** Hosted-verification outcomes per day and `vct`: the caller maps the vct to its tenant and type. */
export interface VerificationDayCount {
  day: number;
  vct: string;
  completed: number;
  failed: number;
}

export interface AnalyticsReader {
  /** issued_credentials by issued_at. */
  issued(window: CountWindow): Promise<DayCount[]>;
  /** offers by created_at, with how many of them were redeemed and collected since. */
  offers(window: CountWindow): Promise<OfferDayCount[]>;
  /** members by joined_at (typeId is ignored: a membership has no type). */
  enrolled(window: CountWindow): Promise<DayCount[]>;
  /**
   * presentation.completed and presentation.failed events of the outbox; `vct` narrows to one
   * type's vct, `vctPrefix` to a tenant's.
   */
  verifications(window: { since: number; until: number; vct?: string; vctPrefix?: string }): Promise<VerificationDayCount[]>;
}
