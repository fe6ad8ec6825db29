import { Type } from '@sinclair/typebox';
import { RATE_CLASS_NAMES } from '../../core/integration-scopes.ts';
import { ListPage, ListQuery, listParams } from '../../http/admin/kit.ts';
import { ROLE_MATRIX } from '../../http/admin/role-matrix.ts';
import { operatorActor, operatorOf } from '../../http/auth/operator-bearer.ts';
import { defineRoute, internalOperatorRoute, type RouteGroup } from '../../http/route.ts';
import {
  AdminMutation,
  DateTimeView,
  DisplayName,
  errorResponse,
  Nullable,
  OPERATOR_ERRORS,
  Slug,
} from '../../http/schemas/common.ts';
import type { PartnerService } from './partner-service.ts';
import { ApplicationBody, ApplicationId, ApplicationView, Kind, ScopeName, Stage, TeamMemberView } from './schemas.ts';

/**
 * Who runs the pipeline (docs/partners.md, "Roles"; rows of the back office's role matrix):
 * partners come before any tenant, so these are platform operations; tenant-scoped operators, and
 * the legacy issuer and verifier roles, are refused.
 */
export const PARTNERS_READ = ROLE_MATRIX.partnersRead;
export const PARTNERS_WRITE = ROLE_MATRIX.partnersWrite;

const UNDOCUMENTED = 'A back-office operation of our console; docs/partners.md states its bodies.';
const RateClassName = Type.Union(RATE_CLASS_NAMES.map((c) => Type.Literal(c)));

/** The partner pipeline as operators run it (docs/partners.md, "The pipeline"). */
export function partnerAdminRoutes(partners: PartnerService): RouteGroup {
  const common = {
    ...internalOperatorRoute(UNDOCUMENTED),
    scope: 'platform',
  } as const;
  const base = '/api/admin/partners';
  return {
    name: 'admin-partners',
    routes: [
      defineRoute({
        ...common,
        method: 'GET',
        path: base,
        roles: PARTNERS_READ,
        summary: 'Applications, newest first; filter by stage and kind.',
        querystring: ListQuery({ stage: Type.Optional(Stage), kind: Type.Optional(Kind) }),
        responses: {
          200: {
            description: 'A page of applications.',
            schema: ListPage('partners', ApplicationView),
          },
          ...OPERATOR_ERRORS,
        },
        handler: async (request) => {
          const { stage, kind } = request.query;
          return partners.list(listParams(request), { ...(stage ? { stage } : {}), ...(kind ? { kind } : {}) });
        },
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: base,
        roles: PARTNERS_WRITE,
        summary: 'File an application for a partner (an operator on its behalf): the intake’s body, at stage applied.',
        body: ApplicationBody,
        responses: {
          201: {
            description: 'Filed; the status token is shown this once, for the partner.',
            schema: AdminMutation({ applicationId: Type.String(), statusToken: Type.String() }),
          },
          ...OPERATOR_ERRORS,
        },
        handler: async (request, reply) => {
          const filed = await partners.apply(request.body, operatorActor(operatorOf(request)));
          return reply.code(201).send({ ok: true as const, ...filed });
        },
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: `${base}/portfolio`,
        roles: PARTNERS_READ,
        summary: 'Partners by kind and stage, and how long they have been in their stage.',
        responses: {
          200: {
            description: 'The portfolio.',
            schema: Type.Object({
              total: Type.Integer(),
              cells: Type.Array(
                Type.Object({
                  kind: Type.String(),
                  stage: Type.String(),
                  count: Type.Integer(),
                  meanDaysInStage: Type.Number(),
                  longestDaysInStage: Type.Number(),
                }),
              ),
            }),
          },
          ...OPERATOR_ERRORS,
        },
        handler: async () => partners.portfolio(),
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: `${base}/{id}`,
        roles: PARTNERS_READ,
        summary: 'One application: its stages with actors and notes, the stages it may move to, its team.',
        params: Type.Object({ id: ApplicationId }),
        responses: {
          200: {
            description: 'The application.',
            schema: Type.Object({
              ...ApplicationView.properties,
              allowedStages: Type.Array(Type.String()),
              history: Type.Array(
                Type.Object({
                  from: Nullable(Type.String()),
                  to: Type.String(),
                  actor: Type.String(),
                  note: Nullable(Type.String()),
                  at: DateTimeView,
                }),
              ),
              team: Type.Array(TeamMemberView),
            }),
          },
          ...OPERATOR_ERRORS,
          404: errorResponse('unknown_application'),
        },
        handler: async (request) => partners.get(request.params.id),
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${base}/{id}/stage`,
        roles: PARTNERS_WRITE,
        summary: 'Move the application to a stage the transition table allows, with an internal note.',
        params: Type.Object({ id: ApplicationId }),
        body: Type.Object(
          { stage: Stage, note: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))) },
          { additionalProperties: false },
        ),
        responses: {
          200: { description: 'Moved.', schema: AdminMutation({ partner: ApplicationView }) },
          ...OPERATOR_ERRORS,
          404: errorResponse('unknown_application'),
          409: errorResponse('illegal_transition: the message names the stages it may move to'),
        },
        handler: async (request) =>
          partners.move(operatorActor(operatorOf(request)), request.params.id, request.body.stage, request.body.note ?? null),
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${base}/{id}/link-tenant`,
        roles: PARTNERS_WRITE,
        summary: 'Link an approved partner to a tenant (existing, or created with tenantName) and attach its grant.',
        params: Type.Object({ id: ApplicationId }),
        body: Type.Object(
          {
            tenant: Type.Optional(Slug),
            tenantName: Type.Optional(DisplayName(120)),
            scopes: Type.Array(ScopeName, { minItems: 1, maxItems: 10 }),
            rateClass: RateClassName,
          },
          { additionalProperties: false },
        ),
        responses: {
          200: { description: 'Linked; the grant is attached.', schema: AdminMutation({ partner: ApplicationView }) },
          ...OPERATOR_ERRORS,
          404: errorResponse('unknown_application or unknown_tenant'),
          409: errorResponse('partner_not_approved, or partner_linked (to another tenant)'),
        },
        handler: async (request) => {
          const { tenant, tenantName, scopes, rateClass } = request.body;
          return partners.linkTenant(operatorActor(operatorOf(request)), request.params.id, {
            tenant,
            tenantName,
            scopes,
            rateClass,
          });
        },
      }),
    ],
  };
}
