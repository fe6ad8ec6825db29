import { Type } from '@sinclair/typebox';
import { type AuditLogReader, verifyAuditChain } from '../audit/audit-reader.ts';
import type { Deployment } from './deployment.ts';
import type { OpsHealth } from './health.ts';
import { HealthView } from './health-schemas.ts';
import { opsOperations } from './routes-common.ts';
import { AuditCheckView, CloudView, CommsHealthView } from './schemas.ts';

const COMMS_WINDOW_DEFAULT_H = 24;
const COMMS_WINDOW_MAX_H = 24 * 30;

/** Health, how the deployment runs, the comms rates, the audit chain (docs/operations.md, "Health"). */
export function healthRoutes(health: OpsHealth, deployment: Deployment, audit: AuditLogReader, clockNow: () => number) {
  const { detail } = opsOperations;
  return [
    detail('/health', {
      summary: 'Each component of the deployment with its state and the numbers behind it.',
      answer: ['The health.', HealthView],
      read: () => health.health(),
    }),
    detail('/cloud', {
      summary: 'How this deployment runs: engine, processes, version, build digest, mounted groups.',
      answer: ['The deployment.', CloudView],
      read: () => deployment.describe(),
    }),
    detail('/comms-health', {
      summary: 'Mail and webhook failure rates over a window (default 24 hours, at most 30 days).',
      query: {
        windowHours: Type.Optional(
          Type.String({ pattern: '^[1-9][0-9]{0,2}$', description: `Hours, 1 to ${COMMS_WINDOW_MAX_H}.` }),
        ),
      },
      answer: ['The rates.', CommsHealthView],
      read: ({ query }) => health.comms(Math.min(Number(query.windowHours ?? COMMS_WINDOW_DEFAULT_H), COMMS_WINDOW_MAX_H)),
    }),
    detail('/audit', {
      summary: 'The audit chain verified from its first entry to its head, naming the first broken link.',
      answer: ['The verification.', AuditCheckView],
      read: async () => ({ ...(await verifyAuditChain(audit)), checkedAt: new Date(clockNow()).toISOString() }),
    }),
  ];
}
