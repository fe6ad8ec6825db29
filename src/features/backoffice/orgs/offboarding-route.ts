import { Type } from '@sinclair/typebox';
import { adminRoute, ListPage, ListQuery, listParams } from '../../../http/admin/kit.ts';
import { ROLE_MATRIX } from '../../../http/admin/role-matrix.ts';
import { defineRoute, type RouteDef } from '../../../http/route.ts';
import { OPERATOR_ERRORS } from '../../../http/schemas/common.ts';
import type { OrgService } from './org-service.ts';
import { OffboardingEntry } from './schemas.ts';

/**
 * GET /api/admin/offboarding (docs/backoffice/orgs.md, "Offboarding"): what is being wound down,
 * suspended tenants and suspended or removed operators, newest change first. It belongs to the
 * admin-session group (views/session-group.ts), which adds it.
 */
export function offboardingRoute(orgs: OrgService): RouteDef {
  return defineRoute({
    ...adminRoute('docs/backoffice/orgs.md'),
    method: 'GET',
    path: '/api/admin/offboarding',
    roles: ROLE_MATRIX.offboarding,
    scope: 'platform',
    summary: 'Suspended tenants and suspended or removed operators, newest change first.',
    querystring: ListQuery({
      kind: Type.Optional(Type.Union([Type.Literal('tenant'), Type.Literal('operator')])),
    }),
    responses: {
      200: { description: 'A page of entries.', schema: ListPage('entries', OffboardingEntry) },
      ...OPERATOR_ERRORS,
    },
    handler: async (request) => orgs.offboarding(listParams(request), request.query.kind),
  });
}
