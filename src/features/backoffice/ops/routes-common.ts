import type { FastifyRequest } from 'fastify';
import { adminRoute } from '../../../http/admin/kit.ts';
import { operatorActor, operatorOf } from '../../../http/auth/operator-bearer.ts';

/** What the operations group's routes share (docs/operations.md). */

export const DOC = 'docs/operations.md';
export const BASE = '/api/admin/ops';

/** An operation of this group: it reaches across tenants, so a tenant-scoped credential is refused. */
export const platformRoute = { ...adminRoute(DOC), scope: 'platform' as const };

/** The operator who called, as the audit log names it. */
export const actorOf = (request: FastifyRequest) => operatorActor(operatorOf(request));
