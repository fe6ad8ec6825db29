import type { Overdue } from './view-records.ts';

/**
 * The operations group's reads of the back office's own tables (docs/operations.md); what it
 * reads of other modules' tables comes through their views (features/backoffice/ops/reads.ts).
 * The data-subject requests are the platform's: none is a tenant's.
 */
export interface OpsViews {
  /** Data-subject requests undecided past their due date `before`, oldest due first, at most `limit`. */
  overdueRequests(before: number, limit: number): Promise<Overdue[]>;
}
