import { Type } from '@sinclair/typebox';
import { ROLE_MATRIX } from '../../../http/admin/role-matrix.ts';
import { defineRoute, type RouteDef } from '../../../http/route.ts';
import { AdminMutation, errorResponse, OPERATOR_ERRORS, Slug } from '../../../http/schemas/common.ts';
import { TypeId } from '../../credential-types/routes.ts';
import { KEEP_DAYS_MAX } from './retention.ts';
import { actorOf, BASE, type Compliance, platformRoute } from './routes-common.ts';
import { BindingView, InventoryView, ProgrammeView, PurgeRunView, PurposesView, RecordView, RulesView } from './schemas.ts';

/** Running incidents the programme overview lists, at most, of each state. */
const PROGRAMME_INCIDENTS = 100;

/**
 * The inventory, the programme overview, the record of processing and retention
 * (docs/backoffice/compliance.md).
 */
export function recordRoutes(
  { compliance, accountability, incidents, record, retention }: Compliance,
  clockNow: () => number,
): RouteDef[] {
  const common = platformRoute;
  const actor = actorOf;
  return [
    defineRoute({
      ...common,
      method: 'GET',
      path: `${BASE}/retention/rules`,
      roles: ROLE_MATRIX.complianceOversee,
      summary: 'How long each category of kept data stays, its floor, and the last purge run.',
      responses: { 200: { description: 'The rules.', schema: RulesView }, ...OPERATOR_ERRORS },
      handler: async () => retention.rules(),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: `${BASE}/retention/rules`,
      roles: ROLE_MATRIX.complianceRun,
      summary: 'Set how many days a category is kept (never below its floor).',
      body: Type.Object(
        { category: Type.String({ maxLength: 64 }), keepDays: Type.Integer({ minimum: 1, maximum: KEEP_DAYS_MAX }) },
        { additionalProperties: false },
      ),
      responses: {
        200: {
          description: 'The rule.',
          schema: AdminMutation({
            rule: Type.Object({
              category: Type.String(),
              keepDays: Type.Integer(),
              updatedAt: Type.String(),
              updatedBy: Type.String(),
            }),
          }),
        },
        ...OPERATOR_ERRORS,
        409: errorResponse('retention_floor: below the floor, or a category never purged.'),
      },
      handler: async (request) => retention.setRule(request.body.category, request.body.keepDays, actor(request)),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: `${BASE}/retention/purge-run`,
      roles: ROLE_MATRIX.complianceRun,
      summary: 'Count what a purge would delete now (dryRun), or start one the job runner works through.',
      body: Type.Object({ dryRun: Type.Boolean() }, { additionalProperties: false }),
      responses: {
        200: {
          description: 'dryRun: the counts; otherwise: the purge already running, answered again.',
          schema: Type.Union([
            Type.Object({
              dryRun: Type.Literal(true),
              cutoffs: Type.Record(Type.String(), Type.String()),
              counts: Type.Record(Type.String(), Type.Integer()),
            }),
            AdminMutation({ run: PurgeRunView, created: Type.Literal(false) }),
          ]),
        },
        202: { description: 'The purge, started.', schema: AdminMutation({ run: PurgeRunView, created: Type.Literal(true) }) },
        ...OPERATOR_ERRORS,
      },
      handler: async (request, reply) => {
        if (request.body.dryRun) return retention.dryRun();
        const started = await retention.start(actor(request));
        return started.created ? reply.code(202).send(started) : started;
      },
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: `${BASE}/ropa`,
      roles: ROLE_MATRIX.complianceOversee,
      summary:
        'The record of processing activities, generated now: purposes, types, data categories, recipients, retention, storage.',
      responses: { 200: { description: 'The record.', schema: RecordView }, ...OPERATOR_ERRORS },
      handler: async () => record.record(),
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: `${BASE}/ropa/purposes`,
      roles: ROLE_MATRIX.complianceOversee,
      summary: 'The purposes of processing: the service’s own activities, and what credential types are issued for.',
      responses: { 200: { description: 'The purposes.', schema: PurposesView }, ...OPERATOR_ERRORS },
      handler: async () => record.purposes(),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: `${BASE}/ropa/type-purpose`,
      roles: ROLE_MATRIX.complianceRun,
      scope: { tenantIn: 'body' },
      summary: 'Bind a credential type to the purpose it is issued for (replacing the one it had).',
      body: Type.Object(
        { tenant: Slug, typeId: TypeId, purposeId: Type.String({ maxLength: 64 }) },
        { additionalProperties: false },
      ),
      responses: {
        200: { description: 'The binding.', schema: AdminMutation({ binding: BindingView }) },
        ...OPERATOR_ERRORS,
        404: errorResponse('unknown_type'),
      },
      handler: async (request) => {
        const { tenant, typeId, purposeId } = request.body;
        return record.bindType(tenant, typeId, purposeId, actor(request));
      },
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: `${BASE}/program`,
      roles: ROLE_MATRIX.complianceOversee,
      summary:
        'The programme at a glance: open requests and their due dates, running incidents and their clocks, attestations due.',
      responses: { 200: { description: 'The overview.', schema: ProgrammeView }, ...OPERATOR_ERRORS },
      handler: async () => ({
        checkedAt: new Date(clockNow()).toISOString(),
        lastPurge: await retention.lastRun(),
        requests: await compliance.openRequests(),
        incidents: await incidents.running(PROGRAMME_INCIDENTS),
        attestationsDue: await accountability.attestationsDue(),
      }),
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: `${BASE}/meta-inventory`,
      roles: ROLE_MATRIX.complianceOversee,
      summary: 'Every column that holds personal data (the holder-data registry): its category, erasure rule and row count.',
      responses: { 200: { description: 'The inventory.', schema: InventoryView }, ...OPERATOR_ERRORS },
      handler: async () => compliance.inventory(),
    }),
  ];
}
