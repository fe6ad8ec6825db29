import { Type } from '@sinclair/typebox';
import { iso, LIST_SCOPE } from '../../../http/admin/kit.ts';
import type { TenantService } from '../../tenants/tenant-service.ts';
import type { OpsReads } from './reads.ts';
import { signedUntil } from './rotation.ts';
import { auditRow, detailText, opsOperations } from './routes-common.ts';
import { AwaitingRetirement, Rotation } from './schemas.ts';

/** Superseded keys shown as awaiting retirement, at most. */
const AWAITING_SHOWN = 200;

/** `GET /ops/rotation` (docs/operations.md, "Key rotation"): the keys awaiting retirement, and the rotations made. */
export function rotationRoutes(reads: Pick<OpsReads, 'kernel' | 'issuance'>, tenants: TenantService, clockNow: () => number) {
  return [
    opsOperations.list('/rotation', {
      scope: LIST_SCOPE,
      summary: 'Superseded keys still published, with what they signed that is live, and the rotations made (newest first).',
      page: ['rotations', Rotation, 'The rotation state.', { awaitingRetirement: Type.Array(AwaitingRetirement) }],
      cursor: ['number'],
      read: ({ tenant, ...window }) => reads.kernel.auditOfAction('key.rotated', tenant, window),
      order: (r) => [r.seq],
      view: (r) => ({ ...auditRow(r), kid: r.target, previousKid: detailText(r, 'previousKid') }),
      beside: async (_rotations, { tenant }) => {
        const superseded = (await reads.kernel.supersededKeys(AWAITING_SHOWN, 'issuer')).filter(
          (k) => tenant === null || k.tenant === tenant,
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
        return { awaitingRetirement };
      },
    }),
  ];
}
