import { Type } from '@sinclair/typebox';
import { idPattern } from '../../../core/ids.ts';
import { ROLE_MATRIX } from '../../../http/admin/role-matrix.ts';
import { ListPage, PageQuery, pageParams } from '../../../http/list.ts';
import { defineRoute, type RouteDef } from '../../../http/route.ts';
import {
  AdminMutation,
  DateTimeView,
  DisplayText,
  errorResponse,
  Nullable,
  OPERATOR_ERRORS,
  Slug,
} from '../../../http/schemas/common.ts';
import { INCIDENT_STATES, type IncidentState, SEVERITIES, type Severity } from '../../../ports/incident-store.ts';
import { TypeId } from '../../credential-types/routes.ts';
import type { Incidents } from './incidents.ts';
import { actorOf, BASE as GROUP_BASE, platformRoute } from './routes-common.ts';
import { IncidentClock } from './schemas.ts';

const BASE = `${GROUP_BASE}/incidents`;

const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));
const State = literals(INCIDENT_STATES);
const SeverityField = literals(SEVERITIES);
const Params = Type.Object({ incidentId: Type.String({ pattern: idPattern('incident') }) });
const Time = Type.String({ format: 'date-time' });
const Kid = Type.String({ pattern: '^[A-Za-z0-9_-]{1,128}$' });

const ScopeBody = Type.Object(
  {
    since: Time,
    until: Type.Optional(Time),
    tenants: Type.Optional(Type.Array(Slug, { minItems: 1, maxItems: 50 })),
    keys: Type.Optional(
      Type.Array(Type.Object({ tenant: Slug, kid: Kid }, { additionalProperties: false }), { minItems: 1, maxItems: 20 }),
    ),
    types: Type.Optional(
      Type.Array(Type.Object({ tenant: Slug, typeId: TypeId }, { additionalProperties: false }), { minItems: 1, maxItems: 50 }),
    ),
  },
  { additionalProperties: false, description: 'The window of issuance, narrowed by tenants, issuing keys or types.' },
);

const ScopeView = Type.Object({
  since: DateTimeView,
  until: Nullable(DateTimeView),
  tenants: Nullable(Type.Array(Type.String())),
  keys: Nullable(Type.Array(Type.Object({ tenant: Type.String(), kid: Type.String() }))),
  types: Nullable(Type.Array(Type.Object({ tenant: Type.String(), typeId: Type.String() }))),
});

const IncidentView = Type.Object({
  incidentId: Type.String(),
  title: Type.String(),
  description: Nullable(Type.String()),
  severity: Type.String(),
  state: Type.String({ description: 'open, assessed, notified or closed' }),
  detectedAt: DateTimeView,
  openedAt: DateTimeView,
  openedBy: Type.String(),
  updatedAt: DateTimeView,
  assessedAt: Nullable(DateTimeView),
  notifiedAt: Nullable(DateTimeView),
  closedAt: Nullable(DateTimeView),
  clock: IncidentClock,
  scope: ScopeView,
});

const AffectedView = Type.Object({
  incidentId: Type.String(),
  computedAt: DateTimeView,
  scope: ScopeView,
  totals: Type.Object({
    tenants: Type.Integer(),
    credentials: Type.Integer(),
    revoked: Type.Integer(),
    accounts: Type.Integer(),
  }),
  tenants: Type.Array(
    Type.Object({ tenant: Type.String(), credentials: Type.Integer(), revoked: Type.Integer(), accounts: Type.Integer() }),
  ),
});

/** The breach register's routes (docs/backoffice/compliance.md, "Incidents"). */
export function incidentRoutes(incidents: Incidents): RouteDef[] {
  const common = platformRoute;
  const actor = actorOf;
  return [
    defineRoute({
      ...common,
      method: 'GET',
      path: BASE,
      roles: ROLE_MATRIX.complianceOversee,
      summary: 'Incidents, newest detected first, each with its 72-hour clock.',
      querystring: PageQuery({ state: Type.Optional(State), severity: Type.Optional(SeverityField) }),
      responses: {
        200: { description: 'A page of incidents.', schema: ListPage('incidents', IncidentView) },
        ...OPERATOR_ERRORS,
      },
      handler: async (request) =>
        incidents.list(
          { state: request.query.state as IncidentState | undefined, severity: request.query.severity as Severity | undefined },
          pageParams(request.query),
        ),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: BASE,
      roles: ROLE_MATRIX.complianceRun,
      summary: 'Open an incident: what happened, how severe, when it was detected, and the scope of data it may touch.',
      body: Type.Object(
        {
          title: DisplayText(200),
          description: Type.Optional(DisplayText(4000)),
          severity: SeverityField,
          detectedAt: Type.Optional(Time),
          scope: ScopeBody,
        },
        { additionalProperties: false },
      ),
      responses: {
        201: { description: 'The incident, open.', schema: AdminMutation({ incident: IncidentView }) },
        ...OPERATOR_ERRORS,
      },
      handler: async (request, reply) => reply.code(201).send(await incidents.open(request.body, actor(request))),
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: `${BASE}/{incidentId}`,
      roles: ROLE_MATRIX.complianceOversee,
      summary: 'One incident.',
      params: Params,
      responses: {
        200: { description: 'The incident.', schema: IncidentView },
        ...OPERATOR_ERRORS,
        404: errorResponse('unknown_incident'),
      },
      handler: async (request) => incidents.get(request.params.incidentId),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: `${BASE}/{incidentId}`,
      roles: ROLE_MATRIX.complianceRun,
      summary: 'Update an incident: its state (open → assessed → notified → closed), severity, text or scope.',
      params: Params,
      body: Type.Object(
        {
          state: Type.Optional(State),
          severity: Type.Optional(SeverityField),
          title: Type.Optional(DisplayText(200)),
          description: Type.Optional(DisplayText(4000)),
          scope: Type.Optional(ScopeBody),
        },
        { additionalProperties: false, minProperties: 1 },
      ),
      responses: {
        200: { description: 'The incident after the change.', schema: AdminMutation({ incident: IncidentView }) },
        ...OPERATOR_ERRORS,
        404: errorResponse('unknown_incident'),
        409: errorResponse('incident_state: not a move the incident makes from its state.'),
      },
      handler: async (request) =>
        incidents.update(
          request.params.incidentId,
          {
            ...request.body,
            state: request.body.state as IncidentState | undefined,
            severity: request.body.severity as Severity | undefined,
          },
          actor(request),
        ),
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: `${BASE}/{incidentId}/affected-scope`,
      roles: ROLE_MATRIX.complianceOversee,
      summary: "What the incident's scope touches: tenants, credentials (revoked ones counted), holders; computed from data.",
      params: Params,
      responses: {
        200: { description: 'The affected scope.', schema: AffectedView },
        ...OPERATOR_ERRORS,
        404: errorResponse('unknown_incident'),
      },
      handler: async (request) => incidents.affected(request.params.incidentId),
    }),
  ];
}
