import type { FastifyRequest } from 'fastify';
import { adminRoute, cursorOf, iso, listParams, page } from '../../../http/admin/kit.ts';
import { ROLE_MATRIX } from '../../../http/admin/role-matrix.ts';
import { operatorActor, operatorOf } from '../../../http/auth/operator-bearer.ts';
import type { ActionEntry, KernelViews } from '../../../ports/kernel-views.ts';

/** What the operations group's routes share (docs/operations.md). */

export const DOC = 'docs/operations.md';
export const BASE = '/api/admin/ops';

/** An operation of this group: it reaches across tenants, so a tenant-scoped credential is refused. */
export const platformRoute = { ...adminRoute(DOC), scope: 'platform' as const };

/** An ops read (role row `opsRead`) and an ops change (`opsRun`) at `path`. */
export const opsGet = (path: string) => ({ ...platformRoute, method: 'GET' as const, path, roles: ROLE_MATRIX.opsRead });
export const opsPost = (path: string) => ({ ...platformRoute, method: 'POST' as const, path, roles: ROLE_MATRIX.opsRun });

/** The operator who called, as the audit log names it. */
export const actorOf = (request: FastifyRequest) => operatorActor(operatorOf(request));

/** A string member of an entry's detail, or null. */
export const detailText = (r: ActionEntry, key: string) => (typeof r.detail[key] === 'string' ? (r.detail[key] as string) : null);

/**
 * A page of a list read from the audit log (revocations, rotations), newest first: each entry's
 * `auditSeq`, `at`, `actor` and `tenant`, and what `view` adds of its own.
 */
export async function auditPage<V extends object>(
  kernel: KernelViews,
  action: string,
  request: FastifyRequest,
  view: (r: ActionEntry) => V,
) {
  const p = listParams(request);
  const rows = await kernel.auditOfAction(action, p.tenant, {
    ...p,
    after: cursorOf(p.after, ['number'] as const),
    limit: p.limit + 1,
  });
  return page(
    rows,
    p.limit,
    (r) => [r.seq],
    (r) => ({ auditSeq: r.seq, at: iso(r.at), actor: r.actor, tenant: r.tenant, ...view(r) }),
  );
}
