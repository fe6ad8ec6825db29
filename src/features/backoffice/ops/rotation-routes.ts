import { iso, LIST_SCOPE, ListQuery, listParams } from '../../../http/admin/kit.ts';
import { defineRoute } from '../../../http/route.ts';
import { OPERATOR_ERRORS } from '../../../http/schemas/common.ts';
import { ACTIVE_KEY_TTL_MS } from '../../../ports/key-store.ts';
import type { OpsViews } from '../../../ports/ops-views.ts';
import type { TenantService } from '../../tenants/tenant-service.ts';
import { auditPage, BASE, detailText, opsGet } from './routes-common.ts';
import { RotationView } from './schemas.ts';

/** Superseded keys shown as awaiting retirement, at most. */
const AWAITING_SHOWN = 200;

/** `GET /ops/rotation` (docs/operations.md, "Key rotation"): the keys awaiting retirement, and the rotations made. */
export function rotationRoutes(views: OpsViews, tenants: TenantService, clockNow: () => number) {
  return [
    defineRoute({
      ...opsGet(`${BASE}/rotation`),
      scope: LIST_SCOPE,
      summary: 'Superseded keys still published, with what they signed that is live, and the rotations made (newest first).',
      querystring: ListQuery(),
      responses: { 200: { description: 'The rotation state.', schema: RotationView }, ...OPERATOR_ERRORS },
      handler: async (request) => {
        const p = listParams(request);
        const superseded = (await views.supersededKeys(AWAITING_SHOWN)).filter((k) => p.tenant === null || k.tenant === p.tenant);
        const awaitingRetirement = [];
        for (const k of superseded) {
          awaitingRetirement.push({
            tenant: k.tenant,
            issuerDid: tenants.didOf(k.tenant),
            kid: k.kid,
            supersededAt: iso(k.supersededAt ?? 0),
            outstanding: await views.outstandingBetween(
              k.tenant,
              k.createdAt,
              (k.supersededAt ?? 0) + ACTIVE_KEY_TTL_MS,
              clockNow(),
            ),
          });
        }
        const shown = await auditPage(views, 'key.rotated', request, (r) => ({
          kid: r.target,
          previousKid: detailText(r, 'previousKid'),
        }));
        return { awaitingRetirement, rotations: shown.rows, nextCursor: shown.nextCursor };
      },
    }),
  ];
}
