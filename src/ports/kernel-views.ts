import type { AuditEntry } from '../core/audit-chain.ts';

/**
 * What the kernel's own tables (adapters/sql/owners.ts, `kernel`: the audit chain, the outbox, job
 * leases, signing keys, mail outcomes) publish to modules: reads only, each method with its SQL in
 * `adapters/sql/kernel/` (docs/architecture.md, "Tables, owners and views"). A module reaches them
 * as `ctx.views`; what writes these tables is the kernel's (units of work, the job runner, the key
 * store, the mailer).
 */
export interface KernelViews {
  /** Audit entries from `fromSeq` on, in chain order, at most `limit`. */
  auditEntries(fromSeq: number, limit: number): Promise<AuditEntry[]>;
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
