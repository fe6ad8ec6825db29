import type { FastifyRequest } from 'fastify';
import { adminRoute } from '../../../http/admin/kit.ts';
import { operatorActor, operatorOf } from '../../../http/auth/operator-bearer.ts';
import type { Accountability } from './accountability.ts';
import type { ComplianceService } from './compliance-service.ts';
import type { ErasureRequests } from './erasure-requests.ts';
import type { Incidents } from './incidents.ts';
import type { Retention } from './retention.ts';
import type { RecordOfProcessing } from './ropa.ts';

/** What the compliance group's routes share (docs/backoffice/compliance.md). */

export const DOC = 'docs/backoffice/compliance.md';
export const BASE = '/api/admin/compliance';

/** A back-office operation of this group: a platform one, unless the route says another scope. */
export const platformRoute = { ...adminRoute(DOC), scope: 'platform' as const };

/** The operator who called, as the audit log names it. */
export const actorOf = (request: FastifyRequest) => operatorActor(operatorOf(request));

/** The group's services. */
export interface Compliance {
  compliance: ComplianceService;
  erasures: ErasureRequests;
  accountability: Accountability;
  incidents: Incidents;
  record: RecordOfProcessing;
  retention: Retention;
}
