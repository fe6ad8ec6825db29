import { Type } from '@sinclair/typebox';
import { storageOf } from '../../../config/config.ts';
import { ROOT_SLUG } from '../../../core/slug.ts';
import { defineRoute, internalOperatorRoute, type RouteGroup } from '../../../http/route.ts';
import { OPERATOR_ERRORS, refusal, Slug } from '../../../http/schemas/common.ts';
import { HolderData } from '../../account/holder-data.ts';
import { accountModule } from '../../account/module.ts';
import { approvalsModule } from '../../approvals/module.ts';
import { credentialTypesModule } from '../../credential-types/module.ts';
import { issuanceModule } from '../../issuance/module.ts';
import { membershipModule } from '../../membership/module.ts';
import { operatorsModule } from '../../operators/module.ts';
import { partnersModule } from '../../partners/module.ts';
import { tenantsModule } from '../../tenants/module.ts';
import { walletModule } from '../../wallet/module.ts';
import { webhooksModule } from '../../webhooks/module.ts';
import type { GroupBuilder } from '../module.ts';
import { Accountability } from './accountability.ts';
import { accountabilityRoutes } from './accountability-routes.ts';
import { ComplianceService } from './compliance-service.ts';
import { ErasureRequests } from './erasure-requests.ts';
import { incidentRoutes } from './incident-routes.ts';
import { Incidents } from './incidents.ts';
import { recordRoutes } from './record-routes.ts';
import { requestRoutes } from './request-routes.ts';
import type { RequestStates } from './request-views.ts';
import { Retention } from './retention.ts';
import { RecordOfProcessing } from './ropa.ts';
import type { Compliance } from './routes-common.ts';
import { ConsoleComplianceView } from './schemas.ts';
import { subjectExportAction } from './subject-export.ts';
import { SubjectLookup } from './subject-lookup.ts';

/**
 * Compliance (docs/backoffice/compliance.md), its wiring: data-subject access and erasure
 * requests, accountability, incidents, the inventory, the programme, the record of processing and
 * retention (their routes in *-routes.ts), the four-eyes subject export, the purge job, and the
 * console's view of one organisation.
 */
export const complianceGroup: GroupBuilder = async (ctx, { desk, stores }) => {
  const [account, tenants, operators] = await Promise.all([
    ctx.use(accountModule),
    ctx.use(tenantsModule),
    ctx.use(operatorsModule),
  ]);
  // What other modules hold, each read through its owner: the holder-data registry's parts and
  // the owners' views.
  const holderData = new HolderData(ctx.holderRecords());
  const approvals = ctx.viewsOf(approvalsModule);
  const states: RequestStates = {
    approvalStates: (ids) => approvals.states(ids),
    receiptDisks: (ids) => ctx.viewsOf(accountModule).receiptDisks(ids),
  };
  const uow = ctx.unitOfWork();
  const compliance = new ComplianceService({
    store: stores.compliance,
    uow,
    desk,
    lookup: new SubjectLookup({
      holderData,
      memberIdsByEmail: (email) => ctx.viewsOf(partnersModule).memberIdsByEmail(email),
      auditAbout: (actions, target) => ctx.views.auditOfActions(actions, target, { limit: FILINGS_MAX }),
    }),
    states,
    inventory: () => holderData.inventory(),
    membersAmong: async (tenant, accountIds) =>
      new Set((await ctx.viewsOf(membershipModule).memberships(accountIds, tenant)).map((m) => m.accountId)),
    keys: ctx.keys,
    didOf: (slug) => tenants.didOf(slug),
    clock: ctx.clock,
    ids: ctx.ids,
  });
  const erasures = new ErasureRequests({
    store: stores.compliance,
    uow,
    erasure: account.erasure,
    states,
    clock: ctx.clock,
    ids: ctx.ids,
  });
  desk.register(
    subjectExportAction({
      held: async (accountId) => (await compliance.lookup({ accountId })).held,
      data: account.data,
      answered: (approvalId, by, now) => compliance.exported(approvalId, by, now),
    }),
  );
  const accountability = new Accountability({
    store: stores.compliance,
    uow,
    operators,
    holding: (roles) => ctx.viewsOf(operatorsModule).activeHolding(roles),
    auditOf: (actions, target, page) => ctx.views.auditOfActions(actions, target, page),
    reciprocal: (limit) => approvals.reciprocal(limit),
    clock: ctx.clock,
    ids: ctx.ids,
  });
  const incidents = new Incidents({
    store: stores.incidents,
    kernel: ctx.views,
    issuance: ctx.viewsOf(issuanceModule),
    uow,
    clock: ctx.clock,
    ids: ctx.ids,
  });
  const types = ctx.viewsOf(credentialTypesModule);
  const record = new RecordOfProcessing({
    store: stores.compliance,
    uow,
    reads: {
      types: (limit, tenant) => types.types(tenant ?? null, {}, undefined, limit),
      hasType: async (tenant, typeId) => (await types.type(tenant, typeId)) !== undefined,
      webhooks: (limit) => ctx.viewsOf(webhooksModule).endpoints(limit),
      activeChannels: () => ctx.viewsOf(walletModule).activeChannels(),
      inventory: () => holderData.inventory(),
    },
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
    uow,
    clock: ctx.clock,
    ids: ctx.ids,
  });
  return {
    group: complianceRoutes({ compliance, erasures, accountability, incidents, record, retention }, () => ctx.clock.now()),
    console: consoleComplianceRoutes(
      { compliance, incidents, record },
      (slug) => tenants.existing(slug),
      () => ctx.clock.now(),
    ),
    jobs: [{ name: 'backoffice.retention-purge', everyMs: PURGE_EVERY_MS, run: (now) => retention.work(now) }],
  };
};

/** How often the purge job looks for a running purge: a started purge begins within this. */
const PURGE_EVERY_MS = 15_000;
/** Filings of one request's export a lookup made to answer it reads, at most (each follows one rejected or expired). */
const FILINGS_MAX = 10_000;

/** The `admin-compliance` group: every operation under /api/admin/compliance. */
export function complianceRoutes(services: Compliance, clockNow: () => number): RouteGroup {
  return {
    name: 'admin-compliance',
    routes: [
      ...requestRoutes(services.compliance, services.erasures, clockNow),
      ...accountabilityRoutes(services.accountability),
      ...incidentRoutes(services.incidents),
      ...recordRoutes(services, clockNow),
    ],
  };
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
  /** Refuses a slug no tenant has (`unknown_tenant`). */
  existing: (slug: string) => Promise<unknown>,
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
        responses: {
          200: { description: 'The organisation’s view.', schema: ConsoleComplianceView },
          ...OPERATOR_ERRORS,
          404: refusal('unknown_tenant', 'no organisation has this slug.'),
        },
        handler: async (request) => {
          const { tenant } = request.query;
          await existing(tenant);
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
