import { Type } from '@sinclair/typebox';
import { cursorOf, LIST_SCOPE, ListQuery, listParams, page, windowOf } from '../../../http/admin/kit.ts';
import { defineRoute } from '../../../http/route.ts';
import { Nullable, OPERATOR_ERRORS } from '../../../http/schemas/common.ts';
import type { TenantService } from '../../tenants/tenant-service.ts';
import type { DidDrift } from './did-drift.ts';
import { BASE, opsGet } from './routes-common.ts';
import { DriftView } from './schemas.ts';

/** Tenants checked per call, at most: each is one or two outbound fetches. */
const DRIFT_PAGE_MAX = 20;

/** `GET /ops/did-drift` (docs/operations.md, "DID drift"). */
export function driftRoutes(drift: DidDrift, tenants: TenantService) {
  return [
    defineRoute({
      ...opsGet(`${BASE}/did-drift`),
      scope: LIST_SCOPE,
      summary: 'Each tenant’s published DID documents against its stored keys, every difference named (20 tenants a page).',
      querystring: ListQuery(),
      responses: {
        200: {
          description: 'A page of tenants; `ok` is true when every document on it matches.',
          schema: Type.Object({ ok: Type.Boolean(), tenants: Type.Array(DriftView), nextCursor: Nullable(Type.String()) }),
        },
        ...OPERATOR_ERRORS,
      },
      handler: async (request) => {
        const p = listParams(request);
        const limit = Math.min(p.limit, DRIFT_PAGE_MAX);
        const after = cursorOf(p.after, ['number', 'string'] as const);
        const rows = await tenants.list({ tenant: p.tenant, limit: limit + 1, ...(after ? { after } : {}), ...windowOf(p) });
        const shown = page(
          rows,
          limit,
          (t) => [t.createdAt, t.slug],
          (t) => t,
        );
        const checked = [];
        for (const tenant of shown.rows) checked.push(await drift.of(tenant));
        return { ok: checked.every((t) => t.ok), tenants: checked, nextCursor: shown.nextCursor };
      },
    }),
  ];
}
