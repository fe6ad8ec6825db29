import { Type } from '@sinclair/typebox';
import type { DatabaseLocation } from '../../../config/config.ts';
import { ROOT_SLUG } from '../../../core/slug.ts';
import { ApprovalSchema } from '../../../http/admin/approval-desk.ts';
import { adminRoute } from '../../../http/admin/kit.ts';
import { ROLE_MATRIX } from '../../../http/admin/role-matrix.ts';
import { operatorActor, operatorOf } from '../../../http/auth/operator-bearer.ts';
import { ListPage, PageQuery, pageParams } from '../../../http/list.ts';
import { defineRoute, internalOperatorRoute, type RouteDef, type RouteGroup } from '../../../http/route.ts';
import { AccountId, AdminMutation, DisplayText, errorResponse, OPERATOR_ERRORS, Slug } from '../../../http/schemas/common.ts';
import type { StoredRequestState } from '../../../ports/compliance-store.ts';
import { accountModule } from '../../account/module.ts';
import { TypeId } from '../../credential-types/routes.ts';
import { operatorsModule } from '../../operators/module.ts';
import { tenantsModule } from '../../tenants/module.ts';
import { subjectExportAction } from '../approvals/actions/subject-export.ts';
import type { GroupBuilder } from '../module.ts';
import { Username } from '../orgs/schemas.ts';
import { Accountability } from './accountability.ts';
import { ComplianceService } from './compliance-service.ts';
import { incidentRoutes } from './incident-routes.ts';
import { Incidents } from './incidents.ts';
import { KEEP_DAYS_MAX, Retention } from './retention.ts';
import { type Controller, RecordOfProcessing } from './ropa.ts';
import {
  AccessRequestId,
  AccessRequestView,
  AttestationView,
  BindingView,
  ConsoleComplianceView,
  ErasureRequestParams,
  ErasureRequestView,
  Ground,
  IdentityCheck,
  InventoryView,
  LookupView,
  ProgrammeView,
  PurgeRunView,
  PurposesView,
  ReceivedAt,
  RecordView,
  RoleChangeView,
  RoleSeparationView,
  RulesView,
  Source,
  StatementId,
  StatementVersion,
  Subject,
} from './schemas.ts';

const DOC = 'docs/backoffice/compliance.md';
const BASE = '/api/admin/compliance';

/**
 * Compliance (docs/backoffice/compliance.md): data-subject access requests (the lookup over the
 * holder-data registry, a signed negative response, the four-eyes export) and erasure requests
 * filed by an operator (refused with a ground, or verified through the portal's erasure).
 */
export const complianceGroup: GroupBuilder = async (ctx, { desk, stores }) => {
  const [account, tenants, operators] = await Promise.all([
    ctx.use(accountModule),
    ctx.use(tenantsModule),
    ctx.use(operatorsModule),
  ]);
  const compliance = new ComplianceService({
    store: stores.compliance,
    uow: ctx.unitOfWork({ requests: stores.compliance }),
    desk,
    erasure: account.erasure,
    keys: ctx.keys,
    didOf: (slug) => tenants.didOf(slug),
    clock: ctx.clock,
    ids: ctx.ids,
  });
  desk.register(
    subjectExportAction({
      targets: stores.targets,
      data: account.data,
      answered: (approvalId, by, now) => compliance.exported(approvalId, by, now),
    }),
  );
  const accountability = new Accountability({
    store: stores.compliance,
    uow: ctx.unitOfWork({ requests: stores.compliance }),
    operators,
    clock: ctx.clock,
    ids: ctx.ids,
  });
  const incidents = new Incidents({
    store: stores.incidents,
    uow: ctx.unitOfWork({ incidents: stores.incidents }),
    clock: ctx.clock,
    ids: ctx.ids,
  });
  const record = new RecordOfProcessing({
    store: stores.compliance,
    uow: ctx.unitOfWork({ requests: stores.compliance }),
    controller: {
      name: ctx.config.platformName,
      url: ctx.config.publicUrl.origin,
      did: tenants.didOf(ROOT_SLUG),
      storage: storageOf(ctx.config.database),
    },
    clock: ctx.clock,
  });
  const retention = new Retention({
    store: stores.retention,
    uow: ctx.unitOfWork({ retention: stores.retention }),
    clock: ctx.clock,
    ids: ctx.ids,
  });
  return {
    group: complianceRoutes({ compliance, accountability, incidents, record, retention }, () => ctx.clock.now()),
    console: consoleComplianceRoutes({ compliance, incidents, record }, () => ctx.clock.now()),
    jobs: [{ name: 'backoffice.retention-purge', everyMs: PURGE_EVERY_MS, run: (now) => retention.work(now) }],
  };
};

/** Where the data is stored, in words: never a database URL, which may carry a password. */
function storageOf(database: DatabaseLocation): Controller['storage'] {
  if (database.kind === 'sqlite') {
    return { engine: 'sqlite', where: database.file === ':memory:' ? 'in memory' : `the SQLite file ${database.file}` };
  }
  const url = new URL(database.url);
  return { engine: 'postgres', where: `the PostgreSQL database ${url.pathname.slice(1) || '(default)'} on ${url.hostname}` };
}

const States = (states: readonly StoredRequestState[]) => Type.Optional(Type.Union(states.map((s) => Type.Literal(s))));

/** Running incidents the programme overview lists, at most, of each state. */
const PROGRAMME_INCIDENTS = 100;

/** How often the purge job looks for a running purge. */
const PURGE_EVERY_MS = 60_000;

/** The group's services. */
export interface Compliance {
  compliance: ComplianceService;
  accountability: Accountability;
  incidents: Incidents;
  record: RecordOfProcessing;
  retention: Retention;
}

export function complianceRoutes(
  { compliance, accountability, incidents, record, retention }: Compliance,
  clockNow: () => number,
): RouteGroup {
  const common = { ...adminRoute(DOC), scope: 'platform' as const };
  const actor = (request: Parameters<typeof operatorOf>[0]) => operatorActor(operatorOf(request));
  const requestFields = {
    source: Source,
    receivedAt: Type.Optional(ReceivedAt),
  };
  return {
    name: 'admin-compliance',
    routes: [
      ...accountabilityRoutes(accountability),
      ...incidentRoutes(incidents),
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
      defineRoute({
        ...common,
        method: 'POST',
        path: `${BASE}/dsar/lookup`,
        roles: ROLE_MATRIX.complianceRead,
        summary: 'Where the service holds a data subject: every registered place, with counts and categories.',
        body: Type.Object({ subject: Subject }, { additionalProperties: false }),
        responses: { 200: { description: 'The places that hold the subject.', schema: LookupView }, ...OPERATOR_ERRORS },
        handler: async (request) => compliance.lookup(request.body.subject),
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: `${BASE}/dsar/requests`,
        roles: ROLE_MATRIX.complianceRead,
        summary: 'Access requests, newest received first: state, subject, due date and answer.',
        querystring: PageQuery({ state: States(['received', 'answered']) }),
        responses: {
          200: { description: 'A page of access requests.', schema: ListPage('requests', AccessRequestView) },
          ...OPERATOR_ERRORS,
        },
        handler: async (request) =>
          compliance.list('access', request.query.state as StoredRequestState, pageParams(request.query)),
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${BASE}/dsar/negative-response`,
        roles: ROLE_MATRIX.complianceRead,
        summary: 'Record that nothing is held on a subject, answered as a statement signed with the platform key.',
        body: Type.Object(
          { subject: Subject, ...requestFields, requestId: Type.Optional(AccessRequestId) },
          { additionalProperties: false },
        ),
        responses: {
          200: {
            description: 'The access request, answered, and the signed statement.',
            schema: AdminMutation({ request: AccessRequestView, statement: Type.String() }),
          },
          ...OPERATOR_ERRORS,
          404: errorResponse('unknown_request: requestId names no access request.'),
          409: errorResponse('subject_held: the lookup finds the subject; request_state: the request was answered.'),
        },
        handler: async (request) => {
          const { subject, ...input } = request.body;
          return compliance.negativeResponse(subject, input, actor(request));
        },
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${BASE}/dsar/export`,
        roles: ROLE_MATRIX.dsarExport,
        summary: "File the four-eyes export of a holder account's data (subject.export) for an access request.",
        body: Type.Object(
          {
            accountId: AccountId,
            ...requestFields,
            requestId: Type.Optional(AccessRequestId),
            reason: Type.Optional(DisplayText(500)),
          },
          { additionalProperties: false },
        ),
        responses: {
          202: {
            description: 'The access request and the approval a second owner decides.',
            schema: AdminMutation({ request: AccessRequestView, approval: ApprovalSchema }),
          },
          ...OPERATOR_ERRORS,
          404: errorResponse('unknown_account: no membership of this account; unknown_request.'),
          409: errorResponse('request_state: the access request was answered.'),
        },
        handler: async (request, reply) => {
          const { accountId, ...input } = request.body;
          const filed = await compliance.requestExport(accountId, input, operatorOf(request), actor(request));
          return reply.code(202).send(filed);
        },
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: `${BASE}/erasure/requests`,
        roles: ROLE_MATRIX.complianceRead,
        summary: 'Erasure requests, newest received first: state, due date, ground or receipt.',
        querystring: PageQuery({ state: States(['received', 'completed', 'refused']) }),
        responses: {
          200: { description: 'A page of erasure requests.', schema: ListPage('requests', ErasureRequestView) },
          ...OPERATOR_ERRORS,
        },
        handler: async (request) =>
          compliance.list('erasure', request.query.state as StoredRequestState, pageParams(request.query)),
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: `${BASE}/erasure/requests/{requestId}`,
        roles: ROLE_MATRIX.complianceRead,
        summary: 'One erasure request.',
        params: ErasureRequestParams,
        responses: {
          200: { description: 'The erasure request.', schema: ErasureRequestView },
          ...OPERATOR_ERRORS,
          404: errorResponse('unknown_request'),
        },
        handler: async (request) => compliance.erasureRequest(request.params.requestId),
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${BASE}/erasure/requests`,
        roles: ROLE_MATRIX.complianceWrite,
        summary: 'File an erasure request a holder made outside the portal.',
        body: Type.Object(
          { accountId: AccountId, ...requestFields, identityCheck: Type.Optional(IdentityCheck) },
          { additionalProperties: false },
        ),
        responses: {
          201: { description: 'The erasure request, received.', schema: AdminMutation({ request: ErasureRequestView }) },
          ...OPERATOR_ERRORS,
        },
        handler: async (request, reply) => {
          const { accountId, ...input } = request.body;
          return reply.code(201).send(await compliance.fileErasure(accountId, input, actor(request)));
        },
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${BASE}/erasure/requests/{requestId}/refuse`,
        roles: ROLE_MATRIX.complianceWrite,
        summary: 'Refuse an erasure request on a ground: legal hold, cannot identify, manifestly unfounded.',
        params: ErasureRequestParams,
        body: Type.Object({ ground: Ground, note: Type.Optional(DisplayText(500)) }, { additionalProperties: false }),
        responses: {
          200: { description: 'The erasure request, refused.', schema: AdminMutation({ request: ErasureRequestView }) },
          ...OPERATOR_ERRORS,
          404: errorResponse('unknown_request'),
          409: errorResponse('request_state: the request was completed or refused already.'),
        },
        handler: async (request) =>
          compliance.refuseErasure(request.params.requestId, request.body.ground, request.body.note, actor(request)),
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: `${BASE}/erasure/requests/{requestId}/verify`,
        roles: ROLE_MATRIX.complianceWrite,
        summary: "The requester's identity is checked: erase the account, as the portal's verified erasure does.",
        params: ErasureRequestParams,
        body: Type.Object({ identityCheck: Type.Optional(IdentityCheck) }, { additionalProperties: false }),
        responses: {
          200: {
            description: 'The erasure request, completed (or verified while the disk check is pending), and its receipt.',
            schema: AdminMutation({
              request: ErasureRequestView,
              receipt: Type.Object({ receiptId: Type.String(), disk: Type.String() }),
            }),
          },
          ...OPERATOR_ERRORS,
          404: errorResponse('unknown_request'),
          409: errorResponse('request_state: the request was completed or refused already.'),
        },
        handler: async (request) =>
          compliance.verifyErasure(request.params.requestId, request.body.identityCheck, actor(request)),
      }),
    ],
  };
}

function accountabilityRoutes(accountability: Accountability): RouteDef[] {
  const common = { ...adminRoute(DOC), scope: 'platform' as const };
  return [
    defineRoute({
      ...adminRoute(DOC),
      method: 'POST',
      path: `${BASE}/accountability/attest`,
      roles: ROLE_MATRIX.attest,
      scope: 'none',
      summary: 'Attest, as the calling operator, a version of one of the deployment’s statements.',
      body: Type.Object(
        { statementId: StatementId, version: StatementVersion, note: Type.Optional(DisplayText(500)) },
        { additionalProperties: false },
      ),
      responses: {
        201: { description: 'Attested.', schema: AdminMutation({ attestation: AttestationView, created: Type.Literal(true) }) },
        200: {
          description: 'Attested before: the first attestation and its audit entry.',
          schema: AdminMutation({ attestation: AttestationView, created: Type.Literal(false) }),
        },
        ...OPERATOR_ERRORS,
      },
      handler: async (request, reply) => {
        const principal = operatorOf(request);
        const made = await accountability.attest(request.body, principal, operatorActor(principal));
        return made.created ? reply.code(201).send(made) : made;
      },
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: `${BASE}/accountability/attestations`,
      roles: ROLE_MATRIX.complianceRead,
      summary: 'Attestations, newest first; by operator or statement.',
      querystring: PageQuery({ operator: Type.Optional(Username), statementId: Type.Optional(StatementId) }),
      responses: {
        200: { description: 'A page of attestations.', schema: ListPage('attestations', AttestationView) },
        ...OPERATOR_ERRORS,
      },
      handler: async (request) =>
        accountability.attestations(
          { username: request.query.operator, statementId: request.query.statementId },
          pageParams(request.query),
        ),
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: `${BASE}/accountability/role-history`,
      roles: ROLE_MATRIX.complianceRead,
      summary: 'Who was given, changed or lost which roles, and by whom: from the audit chain, newest first.',
      querystring: PageQuery({ operator: Type.Optional(Username) }),
      responses: {
        200: { description: 'A page of role changes.', schema: ListPage('changes', RoleChangeView) },
        ...OPERATOR_ERRORS,
      },
      handler: async (request) => accountability.roleHistory({ username: request.query.operator }, pageParams(request.query)),
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: `${BASE}/accountability/role-separation`,
      roles: ROLE_MATRIX.complianceRead,
      summary: 'The separation-of-duties report: roles one person holds that should be split, and pairs who approve each other.',
      responses: { 200: { description: 'The report.', schema: RoleSeparationView }, ...OPERATOR_ERRORS },
      handler: async () => accountability.roleSeparation(),
    }),
  ];
}

/** Requests and incidents an organisation's view lists, at most. */
const CONSOLE_REQUESTS = 100;
const CONSOLE_INCIDENTS = 50;

/**
 * `GET /api/compliance` (docs/backoffice/compliance.md, "An organisation's view"): the console's
 * view of one organisation — the data-subject requests about its members, the incidents touching
 * it with what they touch of its data, its credential types and their purposes.
 */
export function consoleComplianceRoutes(
  { compliance, incidents, record }: Pick<Compliance, 'compliance' | 'incidents' | 'record'>,
  clockNow: () => number,
): RouteGroup {
  return {
    name: 'console-compliance',
    routes: [
      defineRoute({
        ...internalOperatorRoute('Console operation; docs/backoffice/compliance.md states its shape.'),
        method: 'GET',
        path: '/api/compliance',
        roles: ['owner', 'tenant-admin'],
        scope: { tenantIn: 'query' },
        summary: 'An organisation’s compliance: requests about its members, incidents touching it, its types’ purposes.',
        querystring: Type.Object({ tenant: Slug }, { additionalProperties: false }),
        responses: { 200: { description: 'The organisation’s view.', schema: ConsoleComplianceView }, ...OPERATOR_ERRORS },
        handler: async (request) => {
          const { tenant } = request.query;
          return {
            tenant,
            checkedAt: new Date(clockNow()).toISOString(),
            requests: await compliance.requestsOfMembers(tenant, CONSOLE_REQUESTS),
            incidents: await incidents.touching(tenant, CONSOLE_INCIDENTS),
            types: await record.typesOf(tenant),
          };
        },
      }),
    ],
  };
}
