import type { AuditEntry } from '../../../core/audit-chain.ts';
import type { KernelViews } from '../../../ports/kernel-views.ts';
import type { Db } from '../connect.ts';
import { readAuditLog } from './sql-audit-trail.ts';

/** The kernel's published views (ports/kernel-views.ts), on the ambient database. */
export class SqlKernelViews implements KernelViews {
  constructor(private readonly db: Db) {}

  auditEntries(fromSeq: number, limit: number): Promise<AuditEntry[]> {
    return readAuditLog(this.db, fromSeq, limit);
  }
}
