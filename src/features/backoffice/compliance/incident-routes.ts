import { Type } from '@sinclair/typebox';
import type { RouteDef } from '../../../http/route.ts';
import { DateTimeView, DisplayText, Nullable, refusal, Slug } from '../../../http/schemas/common.ts';
import { INCIDENT_STATES, type IncidentState, SEVERITIES, type Severity } from '../../../ports/incident-store.ts';
import { TypeId } from '../../credential-types/routes.ts';
import type { Incidents } from './incidents.ts';
import { complianceOperations } from './routes-common.ts';
import { IncidentClock } from './schemas.ts';

const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));
const State = literals(INCIDENT_STATES);
const SeverityField = literals(SEVERITIES);
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
  const { list, detail, action } = complianceOperations;
  const oversee = { roles: 'complianceOversee' } as const;
  const run = { roles: 'complianceRun' } as const;
  return [
    list('/incidents', {
      ...oversee,
      tenanted: false,
      summary: 'Incidents, newest detected first, each with its 72-hour clock.',
      filters: { state: Type.Optional(State), severity: Type.Optional(SeverityField) },
      page: ['incidents', IncidentView, 'A page of incidents.'],
      cursor: ['number', 'string'],
      read: ({ state, severity, ...window }) =>
        incidents.list({ state: state as IncidentState | undefined, severity: severity as Severity | undefined }, window),
      order: (i) => [i.detectedAt, i.id],
      views: async (rows) => incidents.views(rows),
    }),
    action('/incidents', {
      ...run,
      summary: 'Open an incident: what happened, how severe, when it was detected, and the scope of data it may touch.',
      body: {
        title: DisplayText(200),
        description: Type.Optional(DisplayText(4000)),
        severity: SeverityField,
        detectedAt: Type.Optional(Time),
        scope: ScopeBody,
      },
      answer: [201, 'The incident, open.', { incident: IncidentView }],
      write: ({ body, actor }) => incidents.open(body, actor),
    }),
    detail('/incidents/{incidentId}', {
      ...oversee,
      summary: 'One incident.',
      answer: ['The incident.', IncidentView],
      refusals: { 404: 'unknown_incident' },
      read: ({ params }) => incidents.get(params.incidentId),
    }),
    action('/incidents/{incidentId}', {
      ...run,
      summary: 'Update an incident: its state (open → assessed → notified → closed), severity, text or scope.',
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
      answer: [200, 'The incident after the change.', { incident: IncidentView }],
      refusals: { 404: 'unknown_incident', 409: refusal('incident_state', 'not a move the incident makes from its state.') },
      write: ({ params, body, actor }) =>
        incidents.update(
          params.incidentId,
          { ...body, state: body.state as IncidentState | undefined, severity: body.severity as Severity | undefined },
          actor,
        ),
    }),
    detail('/incidents/{incidentId}/affected-scope', {
      ...oversee,
      summary: "What the incident's scope touches: tenants, credentials (revoked ones counted), holders; computed from data.",
      answer: ['The affected scope.', AffectedView],
      refusals: { 404: 'unknown_incident' },
      read: ({ params }) => incidents.affected(params.incidentId),
    }),
  ];
}
