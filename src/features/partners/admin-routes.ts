import { Type } from '@sinclair/typebox';
import { RATE_CLASS_NAMES } from '../../core/integration-scopes.ts';
import { adminOperations } from '../../http/admin/operations.ts';
import type { RouteGroup } from '../../http/route.ts';
import { DateTimeView, DisplayName, Nullable, refusal, Slug } from '../../http/schemas/common.ts';
import { applicationView, type PartnerService } from './partner-service.ts';
import { ApplicationBody, ApplicationId, ApplicationView, Kind, ScopeName, Stage, TeamMemberView } from './schemas.ts';

const RateClassName = Type.Union(RATE_CLASS_NAMES.map((c) => Type.Literal(c)));

/** The partner pipeline as operators run it (docs/partners.md, "The pipeline"). */
export function partnerAdminRoutes(partners: PartnerService): RouteGroup {
  /*
   * Who runs the pipeline (docs/partners.md, "Roles"; rows of the back office's role matrix):
   * partners come before any tenant, so these are platform operations; tenant-scoped operators,
   * and the legacy issuer and verifier roles, are refused.
   */
  const { list, detail, action } = adminOperations({
    doc: 'docs/partners.md',
    base: '/api/admin/partners',
    params: { id: ApplicationId },
    scope: 'platform',
    read: 'partnersRead',
    write: 'partnersWrite',
  });
  return {
    name: 'admin-partners',
    routes: [
      list('', {
        summary: 'Applications, newest first; filter by stage and kind.',
        scope: 'platform',
        filters: { stage: Type.Optional(Stage), kind: Type.Optional(Kind) },
        page: ['partners', ApplicationView, 'A page of applications.'],
        cursor: ['number', 'string'],
        read: ({ tenant, ...window }) => partners.applications({ ...window, ...(tenant === null ? {} : { tenant }) }),
        order: (a) => [a.createdAt, a.id],
        view: applicationView,
      }),
      action('', {
        summary: 'File an application for a partner (an operator on its behalf): the intake’s body, at stage applied.',
        body: ApplicationBody,
        answer: [
          201,
          'Filed; the status token is shown this once, for the partner.',
          { applicationId: Type.String(), statusToken: Type.String() },
        ],
        write: ({ body, actor }) => partners.apply(body, actor),
      }),
      detail('/portfolio', {
        summary: 'Partners by kind and stage, and how long they have been in their stage.',
        answer: ['The portfolio.', Portfolio],
        read: () => partners.portfolio(),
      }),
      detail('/{id}', {
        summary: 'One application: its stages with actors and notes, the stages it may move to, its team.',
        answer: ['The application.', ApplicationDetail],
        refusals: { 404: 'unknown_application' },
        read: ({ params }) => partners.get(params.id),
      }),
      action('/{id}/stage', {
        summary: 'Move the application to a stage the transition table allows, with an internal note.',
        body: { stage: Stage, note: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))) },
        answer: [200, 'Moved.', { partner: ApplicationView }],
        refusals: {
          404: 'unknown_application',
          409: refusal('illegal_transition', 'the message names the stages it may move to'),
        },
        write: ({ actor, params, body }) => partners.move(actor, params.id, body.stage, body.note ?? null),
      }),
      action('/{id}/link-tenant', {
        summary: 'Link an approved partner to a tenant (existing, or created with tenantName) and attach its grant.',
        body: {
          tenant: Type.Optional(Slug),
          tenantName: Type.Optional(DisplayName(120)),
          scopes: Type.Array(ScopeName, { minItems: 1, maxItems: 10 }),
          rateClass: RateClassName,
        },
        answer: [200, 'Linked; the grant is attached.', { partner: ApplicationView }],
        refusals: {
          404: ['unknown_application', 'unknown_tenant'],
          409: refusal(['partner_not_approved', 'partner_linked'], 'partner_linked: to another tenant.'),
        },
        write: ({ actor, params, body: { tenant, tenantName, scopes, rateClass } }) =>
          partners.linkTenant(actor, params.id, { tenant, tenantName, scopes, rateClass }),
      }),
    ],
  };
}

const Portfolio = Type.Object({
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
});

const ApplicationDetail = Type.Object({
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
});
