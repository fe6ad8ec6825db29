import { Type } from '@sinclair/typebox';
import { LIST_SCOPE } from '../../../http/admin/kit.ts';
import type { TenantService } from '../../tenants/tenant-service.ts';
import type { DidDrift } from './did-drift.ts';
import { opsOperations } from './routes-common.ts';
import { DriftView } from './schemas.ts';

/** Tenants checked per call, at most: each is one or two outbound fetches. */
const DRIFT_PAGE_MAX = 20;

/** `GET /ops/did-drift` (docs/operations.md, "DID drift"). */
export function driftRoutes(drift: DidDrift, tenants: TenantService) {
  return [
    opsOperations.list('/did-drift', {
      scope: LIST_SCOPE,
      summary: 'Each tenant’s published DID documents against its stored keys, every difference named (20 tenants a page).',
      pageMax: DRIFT_PAGE_MAX,
      page: ['tenants', DriftView, 'A page of tenants; `ok` is true when every document on it matches.', { ok: Type.Boolean() }],
      cursor: ['number', 'string'],
      read: (window) => tenants.list(window),
      order: (t) => [t.createdAt, t.slug],
      views: async (rows) => {
        const checked = [];
        for (const tenant of rows) checked.push(await drift.of(tenant));
        return checked;
      },
      beside: (checked) => ({ ok: checked.every((t) => t.ok) }),
    }),
  ];
}
