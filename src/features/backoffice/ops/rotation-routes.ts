import { iso, LIST_SCOPE, ListQuery, listParams } from '../../../http/admin/kit.ts';
import { defineRoute } from '../../../http/route.ts';
import { OPERATOR_ERRORS } from '../../../http/schemas/common.ts';
import type { TenantService } from '../../tenants/tenant-service.ts';
import type { OpsReads } from './reads.ts';
import { signedUntil } from './rotation.ts';
import { auditPage, BASE, detailText, opsGet } from './routes-common.ts';
import { RotationView } from './schemas.ts';

/** Superseded keys shown as awaiting retirement, at most. */
const AWAITING_SHOWN = 200;

/** `GET /ops/rotation` (docs/operations.md, "Key rotation"): the keys awaiting retirement, and the rotations made. */
export function rotationRoutes(reads: Pick<OpsReads, 'kernel' | 'issuance'>, tenants: TenantService, clockNow: () => number) {
  return [
    defineRoute({
      ...opsGet(`${BASE}/rotation`),
      scope: LIST_SCOPE,
      summary: 'Superseded keys still published, with what they signed that is live, and the rotations made (newest first).',
      querystring: ListQuery(),
      responses: { 200: { description: 'The rotation state.', schema: RotationView }, ...OPERATOR_ERRORS },
      handler: async (request) => {
        const p = listParams(request);
        const superseded = (await reads.kernel.supersededKeys(AWAITING_SHOWN)).filter(
          (k) => p.tenant === null || k.tenant === p.tenant,
        );
        const outstanding = await reads.issuance.outstandingIn(
          superseded.map((k) => ({ tenant: k.tenant, from: k.createdAt, to: signedUntil(k) })),
          clockNow(),
        );
        const awaitingRetirement = superseded.map((k, i) => ({
          tenant: k.tenant,
          issuerDid: tenants.didOf(k.tenant),
          kid: k.kid,
          supersededAt: iso(k.supersededAt ?? 0),
          outstanding: outstanding[i] ?? 0,
        }));
        const shown = await auditPage(reads.kernel, 'key.rotated', request, (r) => ({
          kid: r.target,
          previousKid: detailText(r, 'previousKid'),
        }));
        return { awaitingRetirement, rotations: shown.rows, nextCursor: shown.nextCursor };
      },
    }),
  ];
}
