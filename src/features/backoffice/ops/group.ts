import { LocalKeyStore } from '../../../adapters/crypto/local-key-store.ts';
import { APP_ROOT } from '../../../app/start.ts';
import type { RouteGroup } from '../../../http/route.ts';
import { credentialTypesModule } from '../../credential-types/module.ts';
import { depositsModule } from '../../deposits/module.ts';
import { didWebUrl, readDidDocument } from '../../issuer-trust/did-web-resolver.ts';
import { issuerTrustModule } from '../../issuer-trust/module.ts';
import { statusModule } from '../../status/module.ts';
import { tenantsModule } from '../../tenants/module.ts';
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
export const opsGroup: GroupBuilder = async (ctx, { desk, stores, readsOn }) => {
  const [status, tenants, trust, types, deposits] = await Promise.all([
    ctx.use(statusModule),
    ctx.use(tenantsModule),
    ctx.use(issuerTrustModule),
    ctx.use(credentialTypesModule),
    ctx.use(depositsModule),
  ]);
  const views = stores.ops;
  const clockNow = () => ctx.clock.now();
  const health = new OpsHealth({
    views,
    ping: () => ctx.database.ping(),
    database: ctx.config.database,
    dataDir: ctx.config.dataDir,
    mailTransport: ctx.config.smtpUrl ? 'smtp' : 'outbox',
    clock: ctx.clock,
  });
  const deployment = new Deployment({
    views,
    database: ctx.config.database,
    appRoot: APP_ROOT,
    processName: ctx.processName,
    mountedGroups: () => ctx.mountedGroups(),
    metrics: ctx.config.metricsToken !== undefined,
    clock: ctx.clock,
  });
  const checks = new StatusChecks({
    views,
    status,
    tenants,
    keys: ctx.keys,
    urls: ctx.urls,
    revoked: (tenant, seq) => status.revokedIndices(tenant, seq),
  });
  const agents = new AgentActivity({
    store: stores.agents,
    uow: ctx.unitOfWork({ agents: stores.agents }),
    checkTenant: (slug) => tenants.existing(slug),
    clock: ctx.clock,
  });
  const backups = new Backups({
    engine: ctx.database.backups,
    log: ctx.log,
    store: stores.backups,
    dir: ctx.config.backupDir,
    uow: ctx.unitOfWork({ backups: stores.backups }),
    ids: ctx.ids,
    clock: ctx.clock,
    replicaOn: async (scratch) => {
      const replica = await ctx.startReplica(scratch.location, scratch.schema ? { schema: scratch.schema } : {});
      try {
        const [replicaStatus, replicaTenants, replicaDeposits] = await Promise.all([
          replica.services(statusModule),
          replica.services(tenantsModule),
          replica.services(depositsModule),
        ]);
        const reads = readsOn(replica);
        return {
          audit: reads.audit,
          deposits: replicaDeposits.views,
          status: new StatusChecks({
            views: reads.ops,
            status: replicaStatus,
            tenants: replicaTenants,
            keys: new LocalKeyStore(reads.signingKeys, ctx.vault, ctx.clock, ctx.certifier),
            urls: ctx.urls,
            revoked: (tenant, seq) => replicaStatus.revokedIndices(tenant, seq),
          }),
          close: () => replica.close(),
        };
      } catch (err) {
        await replica.close();
        throw err;
      }
    },
  });
  const rotation = { keys: ctx.keys, tenants, status, views, uow: ctx.unitOfWork({}), clock: ctx.clock };
  desk.register(rotateAction(rotation));
  const group: RouteGroup = {
    name: 'admin-ops',
    routes: [
      ...healthRoutes(health, deployment, stores.audit, clockNow),
      ...statusRoutes({
        views,
        checks,
        status,
        tenants,
        uow: ctx.unitOfWork({}),
        statusUri: (tenant, seq) => ctx.urls.statusList(tenant, seq),
        clockNow,
      }),
      ...trustRoutes(trust),
      ...rotationRoutes(views, tenants, clockNow),
      ...upkeepRoutes(views, clockNow),
      ...backupRoutes(backups, stores.backups),
      ...expiryRoutes({ views, types, tenants, clockNow }),
      ...funnelRoutes(views, clockNow),
      ...fixtureRoutes({
        fixtures: stores.fixtures,
        demo: deposits.demo,
        types,
        uow: ctx.unitOfWork({ fixtures: stores.fixtures }),
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
        ...consoleStateRoutes({ agents, tenants, orgs: stores.orgs, views, keys: ctx.keys, clockNow }),
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
