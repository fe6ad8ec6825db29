import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { iso } from '../../../http/admin/kit.ts';
import { adminOperations } from '../../../http/admin/operations.ts';
import { operatorActor, operatorOf } from '../../../http/auth/operator-bearer.ts';
import type { ActionEntry } from '../../../ports/kernel-views.ts';

/** What the operations group's routes share (docs/operations.md). */

export const DOC = 'docs/operations.md';

/**
 * The group's operations under /api/admin/ops: each reaches across tenants, so a tenant-scoped
 * credential is refused unless the operation says otherwise; a read takes the role row `opsRead`,
 * a change `opsRun`.
 */
export const opsOperations = adminOperations({
  doc: DOC,
  base: '/api/admin/ops',
  params: { issuerDid: Type.String({ minLength: 8, maxLength: 300, pattern: '^did:web:[A-Za-z0-9.%:_-]+$' }) },
  scope: 'platform',
  read: 'opsRead',
  write: 'opsRun',
});

/** The operator who called, as the audit log names it. */
export const actorOf = (request: FastifyRequest) => operatorActor(operatorOf(request));

/** A string member of an entry's detail, or null. */
export const detailText = (r: ActionEntry, key: string) => (typeof r.detail[key] === 'string' ? (r.detail[key] as string) : null);

/** A row of a list read from the audit log (revocations, rotations): the entry's seq, time, actor and tenant. */
export const auditRow = (r: ActionEntry) => ({ auditSeq: r.seq, at: iso(r.at), actor: r.actor, tenant: r.tenant });
