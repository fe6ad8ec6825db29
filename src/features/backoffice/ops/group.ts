import type { RouteGroup } from '../../../http/route.ts';
import { approvalsModule } from '../../approvals/module.ts';
import { credentialTypesModule } from '../../credential-types/module.ts';
import { depositsModule } from '../../deposits/module.ts';
import { issuanceModule } from '../../issuance/module.ts';
import { didWebUrl, readDidDocument } from '../../issuer-trust/did-web-resolver.ts';
import { issuerTrustModule } from '../../issuer-trust/module.ts';
import { membershipModule } from '../../membership/module.ts';
import { offersModule } from '../../offers/module.ts';
import { statusModule } from '../../status/module.ts';
import { tenantsModule } from '../../tenants/module.ts';
import { verificationModule } from '../../verification/module.ts';
import { walletModule } from '../../wallet/module.ts';
import { webhooksModule } from '../../webhooks/module.ts';
import type { GroupBuilder } from '../module.ts';
import { AgentActivity } from './agents.ts';
import { backupRoutes } from './backup-routes.ts';
import { Backups, DRILLS } from './backups.ts';
import { agentRoutes, consoleStateRoutes } from './console-routes.ts';
import { Deployment } from './deployment.ts';
import { DidDrift } from './did-drift.ts';
import { driftRoutes } from './drift-routes.ts';
import { expiryRoutes } from './expiry-routes.ts';
import { fixtureRoutes } from './fixture-routes.ts';
import { funnelRoutes } from './funnel-routes.ts';
import { OpsHealth } from './health.ts';
import { healthRoutes } from './health-routes.ts';
import type { OpsReads } from './reads.ts';
import { replaceRootAction } from './root-replacement.ts';
import { RETIREMENT, retireSuperseded, rotateAction } from './rotation.ts';
import { rotationRoutes } from './rotation-routes.ts';
import { StatusChecks } from './status-checks.ts';
import { statusRoutes } from './status-routes.ts';
import { consoleTrustRoutes, trustRoutes } from './trust-routes.ts';
import { upkeepRoutes } from './upkeep-routes.ts';

/**
 * Operations (docs/operations.md), its wiring: health, how the deployment runs, comms rates and
 * the audit chain (health-routes.ts); keys, status lists, their integrity, revocations and the
 * ops revoke (status-routes.ts); the trust registry, and the console's two operations on it
 * (trust-routes.ts); key rotation through the four-eyes desk, the retirement job and the rotation
 * state (rotation.ts, rotation-routes.ts); DID drift (did-drift.ts, drift-routes.ts); stuck work
 * and demo hygiene (upkeep-routes.ts); backups, their restore drills and the drill job
 * (backups.ts, backup-routes.ts; the engines' own methods in adapters/sql/backup/); the console's snapshot of an organisation and the automation
 * agents' reports (agents.ts, console-routes.ts).
 */
export const opsGroup: GroupBuilder = async (ctx, { desk, stores, files, orgs, readsOn }) => {
  const [status, tenants, trust, types, deposits, members, wallet] = await Promise.all([
    ctx.use(statusModule),
    ctx.use(tenantsModule),
    ctx.use(issuerTrustModule),
    ctx.use(credentialTypesModule),
    ctx.use(depositsModule),
    ctx.use(membershipModule),
    ctx.use(walletModule),
  ]);
  // Each owner's published views; the back office's own (data-subject requests) beside them.
  const reads: OpsReads = {
    kernel: ctx.views,
    issuance: ctx.viewsOf(issuanceModule),
    offers: ctx.viewsOf(offersModule),
    verification: ctx.viewsOf(verificationModule),
    webhooks: ctx.viewsOf(webhooksModule),
    approvals: ctx.viewsOf(approvalsModule),
    wallet: ctx.viewsOf(walletModule),
    tenants: ctx.viewsOf(tenantsModule),
    own: stores.ops,
  };
  const clockNow = () => ctx.clock.now();
  const health = new OpsHealth({
    kernel: reads.kernel,
    webhooks: reads.webhooks,
    ping: () => ctx.database.ping(),
    cluster: () => ctx.database.cluster(),
    database: ctx.config.database,
    dataDir: ctx.config.dataDir,
    disk: files.disk,
    mailTransport: ctx.config.smtpUrl ? 'smtp' : 'outbox',
    keyBackend: ctx.keyBackend,
    roots: ctx.roots,
    clock: ctx.clock,
  });
  const deployment = new Deployment({
    kernel: reads.kernel,
    database: ctx.config.database,
    shipped: ctx.shipped,
    processName: ctx.processName,
    mountedGroups: () => ctx.mountedGroups(),
    metrics: ctx.config.metricsToken !== undefined,
    clock: ctx.clock,
  });
  const checks = new StatusChecks({
    issuance: reads.issuance,
    status,
    tenants,
    keys: ctx.keys,
    urls: ctx.urls,
    revoked: (tenant, seq) => status.revokedIndices(tenant, seq),
  });
  const agents = new AgentActivity({
    store: stores.agents,
    uow: ctx.unitOfWork(),
    checkTenant: (slug) => tenants.existing(slug),
    clock: ctx.clock,
  });
  const backups = new Backups({
    engine: ctx.database.backups,
    log: ctx.log,
    store: stores.backups,
    folder: files.backups,
    uow: ctx.unitOfWork(),
    ids: ctx.ids,
    clock: ctx.clock,
    replicaOn: async (scratch) => {
      const replica = await ctx.replicas.start(scratch.location, scratch.schema ? { schema: scratch.schema } : {});
      try {
        const [replicaStatus, replicaTenants, replicaDeposits] = await Promise.all([
          replica.services(statusModule),
          replica.services(tenantsModule),
          replica.services(depositsModule),
        ]);
        const onReplica = readsOn(replica);
        return {
          audit: onReplica.audit,
          deposits: replicaDeposits.views,
          status: new StatusChecks({
            issuance: replica.viewsOf(issuanceModule),
            status: replicaStatus,
            tenants: replicaTenants,
            keys: onReplica.keys,
            urls: ctx.urls,
            revoked: (tenant, seq) => replicaStatus.revokedIndices(tenant, seq),
          }),
          keys: { active: onReplica.kernel, store: onReplica.keys, roots: onReplica.roots },
          close: () => replica.close(),
        };
      } catch (err) {
        await replica.close();
        throw err;
      }
    },
  });
  const rotation = {
    keys: ctx.keys,
    tenants,
    status,
    kernel: reads.kernel,
    issuance: reads.issuance,
    uow: ctx.unitOfWork(),
    clock: ctx.clock,
  };
  desk.register(rotateAction(rotation));
  desk.register(replaceRootAction(ctx.roots));
  const group: RouteGroup = {
    name: 'admin-ops',
    routes: [
      ...healthRoutes(health, deployment, ctx.views, clockNow),
      ...statusRoutes({
        reads,
        checks,
        status,
        tenants,
        uow: ctx.unitOfWork(),
        statusUri: (tenant, seq) => ctx.urls.statusList(tenant, seq),
        clockNow,
        keyBackend: ctx.keyBackend,
      }),
      ...trustRoutes(trust),
      ...rotationRoutes(reads, tenants, clockNow),
      ...upkeepRoutes(reads, clockNow),
      ...backupRoutes(backups, stores.backups),
      ...expiryRoutes({ reads, types, tenants, clockNow }),
      ...funnelRoutes(reads, clockNow),
      ...fixtureRoutes({
        fixtures: [members.demoFixtures, wallet.demoFixtures, deposits.demoFixtures],
        tenants: reads.tenants,
        demo: deposits.demo,
        types,
        uow: ctx.unitOfWork(),
      }),
      ...driftRoutes(
        new DidDrift({
          keys: ctx.keys,
          didOf: (slug) => tenants.didOf(slug),
          urlOf: (did) => didWebUrl(did, ctx.config.outboundAllow),
          read: (did, url) => readDidDocument(did, url, ctx.fetcher),
          domainOf: (slug) => stores.orgs.domain(slug),
        }),
        tenants,
      ),
    ],
  };
  return {
    group,
    console: {
      name: 'console-ops',
      routes: [
        ...consoleTrustRoutes(trust),
        ...consoleStateRoutes({
          agents,
          tenants,
          // The counts are each owner's (OrgService.counts); the domain is the back office's own.
          orgs: { counts: (slugs) => orgs.counts(slugs), domains: (slugs) => stores.orgs.domains(slugs) },
          issuance: reads.issuance,
          keys: ctx.keys,
          clockNow,
        }),
        ...agentRoutes(agents),
      ],
    },
    jobs: [
      {
        name: 'backoffice.retire-superseded-keys',
        everyMs: RETIREMENT.everyMs,
        run: () => retireSuperseded(rotation).then(() => {}),
      },
      { name: 'backoffice.backup-drill', everyMs: DRILLS.everyMs, run: () => backups.drillDue().then(() => {}) },
    ],
  };
};
