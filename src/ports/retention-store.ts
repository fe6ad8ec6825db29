/**
 * Retention (docs/backoffice/compliance.md, "Retention"): how long each category of kept data
 * stays, with the floors the service holds whatever a rule says, and the purge runs that delete
 * what is past its rule.
 */

export interface RetentionCategory {
  category: string;
  /** What it is, in words. */
  what: string;
  /** Days kept when no rule says otherwise; null: never purged. */
  defaultDays: number | null;
  /** The fewest days a rule may say; null: never purged, for the reason given. */
  floorDays: number | null;
  /** Why the floor is what it is. */
  why: string;
}

/**
 * The categories retention governs. Data with a lifetime of its own is pruned by its module's
 * jobs and offered as no rule: the hosted verifier's transactions are deleted at their expiry
 * (verification.sweep), sessions when they end, events and deliveries after 30 days.
 */
export const RETENTION_CATEGORIES: readonly RetentionCategory[] = [
  {
    category: 'audit-log',
    what: 'The audit chain: every change, who made it and when.',
    defaultDays: null,
    floorDays: null,
    why: 'the chain is append-only and hash-linked: a purged entry would break every entry after it',
  },
  {
    category: 'credential-status',
    what: 'Issued credentials’ status entries (revocation).',
    defaultDays: null,
    floorDays: null,
    why: 'a credential can be presented as long as it is held; its status entry must answer for it',
  },
  {
    category: 'approvals',
    what: 'Decided, withdrawn and expired four-eyes approvals, counted from when they were filed.',
    defaultDays: 730,
    floorDays: 365,
    why: 'the year’s approvals are read in an annual review; the audit chain keeps their entries anyway',
  },
  {
    category: 'data-subject-requests',
    what: 'Answered, completed and refused data-subject requests, counted from their answer.',
    defaultDays: 1095,
    floorDays: 365,
    why: 'proof that a request was answered is kept at least a year, when a complaint may follow',
  },
  {
    category: 'incidents',
    what: 'Closed incidents of the breach register, counted from their closing.',
    defaultDays: 1825,
    floorDays: 1095,
    why: 'a supervisory authority may ask for the register of the past years',
  },
  {
    category: 'erasure-receipts',
    what: 'Receipts of account erasures (no personal data), counted from the erasure.',
    defaultDays: 1095,
    floorDays: 365,
    why: 'the receipt proves the erasure to a holder who asks again',
  },
];

export const PURGEABLE = RETENTION_CATEGORIES.filter((c) => c.floorDays !== null).map((c) => c.category);

export interface RetentionRule {
  category: string;
  keepDays: number;
  updatedAt: number;
  updatedBy: string;
}

export interface PurgeRun {
  id: string;
  state: 'running' | 'done';
  requestedBy: string;
  requestedAt: number;
  /** Per category: rows older than this (ms) go. */
  cutoffs: Record<string, number>;
  /** Per category: rows deleted so far. */
  counts: Record<string, number>;
  /** Categories finished. */
  finished: string[];
  finishedAt: number | null;
  auditSeq: number;
}

export interface RetentionStore {
  rules(): Promise<RetentionRule[]>;
  setRule(rule: RetentionRule): Promise<void>;
  /** Rows of the category older than the cutoff: what a purge would delete. */
  countPast(category: string, cutoff: number): Promise<number>;
  /** Deletes at most `limit` rows of the category older than the cutoff; answers how many. */
  deletePast(category: string, cutoff: number, limit: number): Promise<number>;
  /**
   * Takes the purge slot for the run and adds it: one conditional write, so that no second run
   * starts while one runs. False, and nothing written, when a run holds the slot.
   */
  addRun(run: PurgeRun): Promise<boolean>;
  /** The run that is still running (the oldest, should several be), if one is. */
  runningRun(): Promise<PurgeRun | undefined>;
  lastRun(): Promise<PurgeRun | undefined>;
  /** Adds deleted rows to the run's counts, and marks categories finished (one write). */
  advanceRun(id: string, category: string, deleted: number, finished: boolean): Promise<void>;
  /** Marks the run done and frees the slot it holds; false when it was not running. */
  finishRun(id: string, at: number): Promise<boolean>;
}
