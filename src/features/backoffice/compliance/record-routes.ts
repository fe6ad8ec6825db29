import { Type } from '@sinclair/typebox';
import { adminRoute } from '../../../http/admin/kit.ts';
import { ROLE_MATRIX } from '../../../http/admin/role-matrix.ts';
import { operatorActor, operatorOf } from '../../../http/auth/operator-bearer.ts';
import { defineRoute, type RouteDef } from '../../../http/route.ts';
import { AdminMutation, OPERATOR_ERRORS, refusal, Slug } from '../../../http/schemas/common.ts';
import { TypeId } from '../../credential-types/routes.ts';
import { KEEP_DAYS_MAX } from './retention.ts';
import { type Compliance, complianceOperations } from './routes-common.ts';
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
  const { detail, action } = complianceOperations;
  const oversee = { roles: 'complianceOversee' } as const;
  const run = { roles: 'complianceRun' } as const;
  return [
    detail('/retention/rules', {
      ...oversee,
      summary: 'How long each category of kept data stays, its floor, and the last purge run.',
      answer: ['The rules.', RulesView],
      read: () => retention.rules(),
    }),
    action('/retention/rules', {
      ...run,
      summary: 'Set how many days a category is kept (never below its floor).',
      body: { category: Type.String({ maxLength: 64 }), keepDays: Type.Integer({ minimum: 1, maximum: KEEP_DAYS_MAX }) },
      answer: [
        200,
        'The rule.',
        {
          rule: Type.Object({
            category: Type.String(),
            keepDays: Type.Integer(),
            updatedAt: Type.String(),
            updatedBy: Type.String(),
          }),
        },
      ],
      refusals: { 409: refusal('retention_floor', 'below the floor, or a category never purged.') },
      write: ({ body, actor }) => retention.setRule(body.category, body.keepDays, actor),
    }),
    defineRoute({
      ...adminRoute('docs/backoffice/compliance.md'),
      method: 'POST',
      path: '/api/admin/compliance/retention/purge-run',
      roles: ROLE_MATRIX.complianceRun,
      scope: 'platform',
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
        const started = await retention.start(operatorActor(operatorOf(request)));
        return started.created ? reply.code(202).send(started) : started;
      },
    }),
    detail('/ropa', {
      ...oversee,
      summary:
        'The record of processing activities, generated now: purposes, types, data categories, recipients, retention, storage.',
      answer: ['The record.', RecordView],
      read: () => record.record(),
    }),
    detail('/ropa/purposes', {
      ...oversee,
      summary: 'The purposes of processing: the service’s own activities, and what credential types are issued for.',
      answer: ['The purposes.', PurposesView],
      read: () => record.purposes(),
    }),
    action('/ropa/type-purpose', {
      ...run,
      scope: { tenantIn: 'body' },
      summary: 'Bind a credential type to the purpose it is issued for (replacing the one it had).',
      body: { tenant: Slug, typeId: TypeId, purposeId: Type.String({ maxLength: 64 }) },
      answer: [200, 'The binding.', { binding: BindingView }],
      refusals: { 404: 'unknown_type' },
      write: ({ body: { tenant, typeId, purposeId }, actor }) => record.bindType(tenant, typeId, purposeId, actor),
    }),
    detail('/program', {
      ...oversee,
      summary:
        'The programme at a glance: open requests and their due dates, running incidents and their clocks, attestations due.',
      answer: ['The overview.', ProgrammeView],
      read: async () => ({
        checkedAt: new Date(clockNow()).toISOString(),
        lastPurge: await retention.lastRun(),
        requests: await compliance.openRequests(),
        incidents: await incidents.running(PROGRAMME_INCIDENTS),
        attestationsDue: await accountability.attestationsDue(),
      }),
    }),
    detail('/meta-inventory', {
      ...oversee,
      summary: 'Every column that holds personal data (the holder-data registry): its category, erasure rule and row count.',
      answer: ['The inventory.', InventoryView],
      read: () => compliance.inventory(),
    }),
  ];
}
