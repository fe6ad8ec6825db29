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
}
