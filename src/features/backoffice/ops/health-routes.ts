import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../../http/route.ts';
import { OPERATOR_ERRORS } from '../../../http/schemas/common.ts';
import { type AuditLogReader, verifyAuditChain } from '../audit/audit-reader.ts';
import type { Deployment } from './deployment.ts';
import type { OpsHealth } from './health.ts';
import { BASE, opsGet } from './routes-common.ts';
import { AuditCheckView, CloudView, CommsHealthView, HealthView } from './schemas.ts';

const COMMS_WINDOW_DEFAULT_H = 24;
const COMMS_WINDOW_MAX_H = 24 * 30;

/** Health, how the deployment runs, the comms rates, the audit chain (docs/operations.md, "Health"). */
export function healthRoutes(health: OpsHealth, deployment: Deployment, audit: AuditLogReader, clockNow: () => number) {
  return [
    defineRoute({
      ...opsGet(`${BASE}/health`),
      summary: 'Each component of the deployment with its state and the numbers behind it.',
      responses: { 200: { description: 'The health.', schema: HealthView }, ...OPERATOR_ERRORS },
      handler: async () => health.health(),
    }),
    defineRoute({
      ...opsGet(`${BASE}/cloud`),
      summary: 'How this deployment runs: engine, processes, version, build digest, mounted groups.',
      responses: { 200: { description: 'The deployment.', schema: CloudView }, ...OPERATOR_ERRORS },
      handler: async () => deployment.describe(),
    }),
    defineRoute({
      ...opsGet(`${BASE}/comms-health`),
      summary: 'Mail and webhook failure rates over a window (default 24 hours, at most 30 days).',
      querystring: Type.Object(
        {
          windowHours: Type.Optional(
            Type.String({ pattern: '^[1-9][0-9]{0,2}$', description: `Hours, 1 to ${COMMS_WINDOW_MAX_H}.` }),
          ),
        },
        { additionalProperties: false },
      ),
      responses: {
        200: { description: 'The rates.', schema: CommsHealthView },
        ...OPERATOR_ERRORS,
      },
      handler: async (request) => {
        const hours = Math.min(Number(request.query.windowHours ?? COMMS_WINDOW_DEFAULT_H), COMMS_WINDOW_MAX_H);
        return health.comms(hours);
      },
    }),
    defineRoute({
      ...opsGet(`${BASE}/audit`),
      summary: 'The audit chain verified from its first entry to its head, naming the first broken link.',
      responses: { 200: { description: 'The verification.', schema: AuditCheckView }, ...OPERATOR_ERRORS },
      handler: async () => ({ ...(await verifyAuditChain(audit)), checkedAt: new Date(clockNow()).toISOString() }),
    }),
  ];
}
