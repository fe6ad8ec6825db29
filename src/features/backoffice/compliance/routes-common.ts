import { adminOperations } from '../../../http/admin/operations.ts';
import type { Accountability } from './accountability.ts';
import type { ComplianceService } from './compliance-service.ts';
import type { ErasureRequests } from './erasure-requests.ts';
import type { Incidents } from './incidents.ts';
import type { Retention } from './retention.ts';
import type { RecordOfProcessing } from './ropa.ts';
import { ErasureRequestId, IncidentId } from './schemas.ts';

/**
 * The compliance group's operations (docs/backoffice/compliance.md): platform ones under
 * /api/admin/compliance, unless one says another scope.
 */
export const complianceOperations = adminOperations({
  doc: 'docs/backoffice/compliance.md',
  base: '/api/admin/compliance',
  params: { requestId: ErasureRequestId, incidentId: IncidentId },
  scope: 'platform',
  read: 'complianceRead',
  write: 'complianceWrite',
});

/** A page's views of rows whose state depends on the time (a request overdue), at one time for the page. */
export const viewsAt =
  <R, V>(clockNow: () => number, view: (row: R, now: number) => V) =>
  async (rows: readonly R[]) => {
    const now = clockNow();
    return rows.map((row) => view(row, now));
  };

/** The group's services. */
export interface Compliance {
  compliance: ComplianceService;
  erasures: ErasureRequests;
  accountability: Accountability;
  incidents: Incidents;
  record: RecordOfProcessing;
  retention: Retention;
}
