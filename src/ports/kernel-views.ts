import type { AuditEntry } from '../core/audit-chain.ts';
import type { PageWindow } from '../core/page.ts';

/**
 * What the kernel's own tables (adapters/sql/owners.ts, `kernel`: the audit chain, the outbox, job
 * leases, signing keys, mail outcomes) publish to modules: reads only, each method with its SQL in
 * `adapters/sql/kernel/` (docs/architecture.md, "Tables, owners and views"). A module reaches them
 * as `ctx.views`; what writes these tables is the kernel's (units of work, the job runner, the key
 * store, the mailer). A read that takes a tenant narrows to it (null: every tenant's).
 * @tenantOwned
 */
export interface KernelViews {
  /** Audit entries from `fromSeq` on, in chain order, at most `limit`. */
  auditEntries(fromSeq: number, limit: number): Promise<AuditEntry[]>;
  /** The audit entries of one action (`credential.revoked`, `key.rotated`), newest first (cursor: the seq). */
  auditOfAction(action: string, tenant: string | null, page: PageWindow<readonly [number]>): Promise<ActionEntry[]>;
  /** Every job's lease, by job name. */
  jobLeases(): Promise<JobLeaseRow[]>;
  /** Events written to the outbox and not yet routed to endpoints: how many, and the oldest one's time. */
  unroutedEvents(): Promise<{ count: number; oldestAt: number | null }>;
  /** What the mail transport sent and refused since `since`. */
  mailRates(since: number): Promise<MailRates>;
  /** Signing keys (no private part), of one tenant or all, newest first ([createdAt, kid] descending). */
  signingKeys(tenant: string | null, page: PageWindow<readonly [number, string]>): Promise<KeyRow[]>;
  /** Issuer keys superseded by a rotation and not retired yet, of every tenant, oldest superseded first (at most `limit`). */
  supersededKeys(limit: number): Promise<KeyRow[]>;
  /** Issuer keys that sign now (not superseded or retired) created before `before`, oldest first, at most `limit`. */
  signingKeysOlderThan(tenant: string | null, before: number, limit: number): Promise<KeyRow[]>;
  /** The issuer keys among `keys` (each named by its tenant and kid), found or not, in no order. */
  issuerKeys(keys: readonly { tenant: string; kid: string }[]): Promise<KeyRow[]>;
  /** The time of the operator's newest sign-in (`operator.signed_in`), null if it never signed in. */
  lastSignIn(username: string): Promise<number | null>;
  /**
   * The positions of `keys` (rows of text, each as long as the first) in the order the database
   * sorts them, column by column: how an ORDER BY over those columns would list them, under the
   * database's collation. Reads no table; it lets a list merged from two owners' views page as
   * each owner's query does.
   */
  collate(keys: readonly (readonly string[])[]): Promise<number[]>;
}

/** An audit entry of one action, as the ops lists show it (revocations, rotations). */
export interface ActionEntry {
  seq: number;
  at: number;
  actor: string;
  /** '' for the platform's entries. */
  tenant: string;
  target: string;
  detail: Record<string, unknown>;
}

export interface JobLeaseRow {
  name: string;
  holder: string;
  leaseUntil: number;
  startedAt: number;
  finishedAt: number | null;
  lastError: string | null;
}

export interface MailRates {
  sent: number;
  refused: number;
  /** Refusals by failure class (an SMTP reply code or a transport error code). */
  failures: Record<string, number>;
  lastRefusedAt: number | null;
}

export interface KeyRow {
  tenant: string;
  kid: string;
  purpose: 'issuer' | 'verifier';
  createdAt: number;
  /** Replaced by a rotation: still published, no longer signing. */
  supersededAt: number | null;
  retiredAt: number | null;
}
