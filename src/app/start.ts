import { join } from 'node:path';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import pino from 'pino';
import { systemIds } from '../adapters/crypto/ids.ts';
import { AesKeyVault } from '../adapters/crypto/key-vault.ts';
import { KeyBackends } from '../adapters/crypto/keys/key-backends.ts';
import { authorityEndingSoon, renewKeyCertificates } from '../adapters/crypto/platform-ca.ts';
import { systemRandom } from '../adapters/crypto/random-pool.ts';
import { TenantKeyStore } from '../adapters/crypto/tenant-key-store.ts';
import { PACKAGE_ROOT } from '../adapters/fs/package-root.ts';
import { shippedBuildAt } from '../adapters/fs/source-files.ts';
import { webAssetFilesAt } from '../adapters/fs/web-asset-files.ts';
import { GuardedFetcher } from '../adapters/http/guarded-fetcher.ts';
import { configuredMailer } from '../adapters/mail/configured-mailer.ts';
import { RecordedMailer } from '../adapters/mail/recorded-mailer.ts';
import { promMeter } from '../adapters/metrics/prom-meter.ts';
import { backupEngine } from '../adapters/sql/backup/engine.ts';
import { type Db, dropFreedBytes, migrate, type OpenOptions, openDatabase, poolStats, settled } from '../adapters/sql/connect.ts';
import { coverRegistry, SqlHolderRecords } from '../adapters/sql/holder-records.ts';
import { clusterState, pingWritable } from '../adapters/sql/kernel/cluster-state.ts';
import { SqlCertificateAuthorityStore } from '../adapters/sql/kernel/sql-certificate-authority-store.ts';
import { SqlJobLeaseStore } from '../adapters/sql/kernel/sql-job-lease-store.ts';
import { SqlKernelViews } from '../adapters/sql/kernel/sql-kernel-views.ts';
import { SqlMailOutcomes } from '../adapters/sql/kernel/sql-mail-outcomes.ts';
import { SqlRateBudget } from '../adapters/sql/kernel/sql-rate-budget.ts';
import { SqlSettingsStore } from '../adapters/sql/kernel/sql-settings-store.ts';
import { SqlKeyCertificateRenewals, SqlSigningKeyStore } from '../adapters/sql/kernel/sql-signing-key-store.ts';
import { reachDatabase } from '../adapters/sql/postgres-start-error.ts';
import { SqlUnitOfWork } from '../adapters/sql/sql-unit-of-work.ts';
import { startTracing } from '../adapters/tracing/sdk.ts';
import type { Config } from '../config/config.ts';
import { resolveMasterKey } from '../config/master-key.ts';
import { type Clock, systemClock } from '../core/clock.ts';
import { ServiceError } from '../core/errors.ts';
import { RATE_WINDOW_MAX_SECONDS } from '../core/integration-scopes.ts';
import { IssuerUrls } from '../core/issuer-urls.ts';
import type { Random } from '../core/random.ts';
import { buildApp } from '../http/app.ts';
import { AnonymousGate } from '../http/auth/anonymous-gate.ts';
import { buildOpenApi } from '../http/openapi.ts';
import type { RouteGroup } from '../http/route.ts';
import type { HolderRecords } from '../ports/holder-records.ts';
import type { HttpFetcher } from '../ports/http-fetcher.ts';
import type { RateBudget } from '../ports/integration-token-store.ts';
import type { KeyBackend } from '../ports/key-backend.ts';
import type { KeyVault } from '../ports/key-vault.ts';
import type { MailOutcomeLog } from '../ports/mail-outcomes.ts';
import { noMeter } from '../ports/meter.ts';
import type { SettingsStore } from '../ports/settings-store.ts';
import { installWebAssets, loadWebAssets, type WebAssets } from '../web/assets.ts';
import { type CertificateJobDeps, certificateJob, certifierFor, refreshingRoots } from './certificates.ts';
import { type Job, JobRunner, processName } from './jobs.ts';
import type { Module } from './module.ts';
import { ownerTokenHash, revealOwnerTokenOnFirstStart } from './owner-token.ts';
import { type BaseContext, ModuleRegistry } from './registry.ts';

export const APP_ROOT = PACKAGE_ROOT;

/** The web kit's files, read on the first start in this process and kept. */
let webFiles: WebAssets | undefined;

export interface Openrail {
  app: FastifyInstance;
  db: Db;
  /** The mounted route table, as registered. */
  routes: RouteGroup[];
  /** The background jobs of the built modules (tests tick them by hand). */
  jobs: JobRunner;
  /** The services of a module that was built (tests drive a dispatcher with them). */
  services<S>(module: Module<S>): Promise<S>;
  /** The views a module publishes (Module.views), on this service's database. */
  viewsOf<V>(module: Module<unknown, V>): V;
  /** Set only on the start that generated the owner token: shown once, never stored in clear. */
  revealedOwnerToken?: string;
  close(): Promise<void>;
}

export interface StartOptions {
  clock?: Clock;
  /** The randomness features draw (default: the CSPRNG). */
  random?: Random;
  logger?: FastifyBaseLogger;
  warn?: (message: string) => void;
  database?: OpenOptions;
  /** Outbound HTTP (default: the SSRF-guarded fetcher). */
  fetcher?: HttpFetcher;
  /** false: jobs and daemons are not started (tests tick `jobs` and drive daemons by hand). Default true. */
  runJobs?: boolean;
  /**
   * Where private keys are made and sign; default: the one OPENRAIL_KEYS configures, made here and
   * closed with the service. A replica shares its process's (one PKCS#11 library per process).
   */
  keyBackend?: KeyBackend;
}

/**
 * Boots the service from its modules: opens and migrates the database, checks the master key,
 * builds each mounted module (and what it uses), registers the mounted route groups with the
 * planes they name, starts the background jobs, and last reveals a first owner token.
 */
export async function startOpenrail(config: Config, modules: readonly Module[], options: StartOptions = {}): Promise<Openrail> {
  const clock = options.clock ?? systemClock;
  const random = options.random ?? systemRandom;
  const warn = options.warn ?? ((m: string) => process.emitWarning(m));
  const log = options.logger ?? pino({ level: 'silent' });
  const vault = new AesKeyVault(resolveMasterKey(config, warn));
  const unmounted = new Set(config.unmountedGroups);
  checkGroupNames(modules, unmounted);
  const meter = config.metricsToken ? promMeter(config.nodeId) : noMeter;
  const keyBackend = options.keyBackend ?? new KeyBackends(config.keys, vault, meter);
  const closeKeys = options.keyBackend ? async () => undefined : () => keyBackend.close();
  webFiles ??= loadWebAssets(webAssetFilesAt());
  installWebAssets(webFiles);

  // Before anything makes a span: the SDK registers the tracer the spans are made with.
  const stopTracing = config.tracing ? await startTracing(config.nodeId) : async () => undefined;
  const db = openDatabase(config.database, { poolSize: config.dbPoolSize, ...options.database });
  try {
    await reachDatabase(db, config.database);
    await migrate(db);
    const settings = new SqlSettingsStore(db);
    const transactions = new SqlUnitOfWork(db, clock);
    await checkMasterKey(settings, vault);
    const urls = new IssuerUrls(config.publicUrl);
    const { certifier, roots } = await certifierFor(config, new SqlCertificateAuthorityStore(db), keyBackend, clock, urls);
    const renewals = new SqlKeyCertificateRenewals(db);
    // Keys made before certificates existed get theirs before the first request is served; with a
    // token that cannot sign just now, the certificate job gives them theirs once it is back.
    await renewKeyCertificates(renewals, certifier, clock.now()).catch((err) => {
      if (!(err instanceof ServiceError && err.code === 'signing_unavailable')) throw err;
      log.warn({ code: err.code }, 'the key token cannot sign: certificates are renewed once it is back (docs/keys.md)');
    });
    if (authorityEndingSoon(certifier, clock.now())) {
      log.warn(
        { notAfter: new Date(certifier.notAfter).toISOString() },
        'the certificate authority of the signing keys ends within 60 days: replace it (docs/keys.md)',
      );
    }

    // The OpenAPI document is built by its first reader (GET /openapi.json, the operator apps, the
    // developer pages) and kept: a process that never serves one never holds it (docs/scaling.md).
    let openApiOf: () => Record<string, unknown> = () => ({});
    let served: readonly string[] = [];
    const thisProcess = processName(config.nodeId);
    const rateWindows = new SqlRateBudget(db);
    const mailOutcomes = new SqlMailOutcomes(db);
    const pool = poolStats(db);
    if (pool) {
      meter.gauge(
        'openrail_db_pool_connections',
        'PostgreSQL connections of this process, by state.',
        async () => {
          const now = poolStats(db) ?? { open: 0, idle: 0, waiting: 0 };
          return { open: now.open, idle: now.idle, waiting: now.waiting };
        },
        'state',
      );
    }
    // The parts of the holder-data registry, the kernel's and each module's, once they are first asked for.
    let holderParts: readonly HolderRecords[] | undefined;
    const context: BaseContext = {
      config,
      clock,
      ids: systemIds,
      random,
      log,
      vault,
      keyBackend,
      keys: new TenantKeyStore(new SqlSigningKeyStore(db), keyBackend, clock, certifier),
      certifier,
      roots,
      urls,
      fetcher: options.fetcher ?? new GuardedFetcher({ allowOrigins: config.outboundAllow }),
      budgets: new AnonymousGate(rateWindows, clock, log, config.anonymousBudgetScale),
      ownerTokenHash: ownerTokenHash(settings, config),
      rates: rateWindows,
      database: {
        ping: () => pingWritable(db),
        cluster: () => clusterState(db),
        dropFreedBytes: () => dropFreedBytes(db),
        backups: backupEngine(db, config.database, join(config.backupDir, 'scratch')),
      },
      meter,
      views: new SqlKernelViews(db),
      holderRecords: () => {
        holderParts ??= coverRegistry([new SqlHolderRecords(db, 'kernel'), ...registry.holderRecords()]);
        return holderParts;
      },
      mailer: new RecordedMailer(
        configuredMailer(config, (path) => log.info({ path }, 'mail written to the development outbox')),
        config.smtpUrl ? 'smtp' : 'outbox',
        mailOutcomes,
        meter,
        clock,
        systemIds,
      ),
      unitOfWork: () => transactions,
      openApi: () => openApiOf(),
      mountedGroups: () => served,
      processName: thisProcess,
      shipped: shippedBuildAt(APP_ROOT),
      replicas: {
        start: async (database, open) => {
          const replica = await startOpenrail({ ...config, database, metricsToken: undefined, unmountedGroups: [] }, modules, {
            clock,
            random,
            warn: () => undefined,
            database: open,
            ...(options.fetcher ? { fetcher: options.fetcher } : {}),
            runJobs: false,
            keyBackend,
          });
          return {
            services: (module) => replica.services(module),
            viewsOf: (module) => replica.viewsOf(module),
            store: (store) => new store(replica.db),
            close: () => replica.close(),
          };
        },
      },
    };
    const registry = new ModuleRegistry(modules, context, (store) => new store(db));
    // A holder-data entry no module runs, or one two run, refuses the start.
    context.holderRecords();
    const mounted = modules.filter((m) => m.groups.some((g) => !unmounted.has(g)));
    const groups: RouteGroup[] = [];
    for (const module of mounted) {
      const built = await registry.build(module);
      const served = built.routes?.() ?? [];
      checkServedGroups(module, served);
      groups.push(...served.filter((g) => !unmounted.has(g.name)));
    }
    for (const module of modules) if (module.runsUnmounted) await registry.build(module);
    const planes = await registry.planesFor(groups.flatMap((g) => g.routes.map((r) => r.auth)));
    registry.seal();
    let openApi: Record<string, unknown> | undefined;
    openApiOf = () => {
      openApi ??= buildOpenApi(groups, planes, config.publicUrl.origin);
      return openApi;
    };
    served = groups.map((g) => g.name).sort();

    const app = buildApp({
      groups,
      planes,
      publicOrigin: config.publicUrl.origin,
      siteName: config.platformName,
      settled: () => settled(db),
      trustProxy: config.trustProxy,
      budgets: context.budgets,
      meter,
      tracing: config.tracing,
      ...(options.logger ? { logger: options.logger } : {}),
    });
    await app.ready();
    const jobs = new JobRunner(
      [...kernelJobs(rateWindows, mailOutcomes, { renewals, certifier, roots, log }), ...(await registry.jobs())],
      new SqlJobLeaseStore(db),
      clock,
      log,
      meter,
      // One name for this process: its leases and GET /ops/cloud's thisProcess.
      thisProcess,
    );
    const daemons = await registry.daemons();
    const stopRefreshingRoots = refreshingRoots(roots, log);
    if (options.runJobs !== false) {
      await jobs.start();
      for (const daemon of daemons) daemon.start();
    }
    // Last, so that a start which fails earlier cannot generate a token nobody ever sees.
    const revealed = await revealOwnerTokenOnFirstStart(settings, config);
    const result: Openrail = {
      app,
      db,
      routes: groups,
      jobs,
      services: (module) => registry.services(module),
      viewsOf: (module) => registry.viewsOf(module),
      close: async () => {
        stopRefreshingRoots();
        await jobs.stop();
        for (const daemon of daemons) await daemon.stop();
        await app.close();
        await db.destroy();
        await closeKeys();
        await stopTracing();
      },
    };
    if (revealed) result.revealedOwnerToken = revealed;
    return result;
  } catch (err) {
    await db.destroy();
    await closeKeys();
    await stopTracing();
    throw err;
  }
}

/** How long the comms health can look back at mail outcomes. */
export const MAIL_OUTCOMES_KEPT_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * The kernel's own upkeep: rate windows (every budget's counts, keyed by address, subject or key)
 * that ended long ago are deleted, so what anonymous callers make the service count is bounded too.
 */
function kernelJobs(rateWindows: RateBudget, mailOutcomes: MailOutcomeLog, certificates: CertificateJobDeps): Job[] {
  const keepMs = 2 * RATE_WINDOW_MAX_SECONDS * 1000;
  return [
    certificateJob(certificates),
    {
      name: 'kernel.prune-rate-windows',
      everyMs: 10 * 60 * 1000,
      run: async (now) => void (await rateWindows.prune(now - keepMs)),
    },
    {
      name: 'kernel.prune-mail-outcomes',
      everyMs: 60 * 60 * 1000,
      run: async (now) => void (await mailOutcomes.prune(now - MAIL_OUTCOMES_KEPT_MS)),
    },
  ];
}

/**
 * A module serves exactly the groups it declares, each once: a group it builds under another name
 * would be mounted whatever OPENRAIL_UNMOUNTED_GROUPS says, and a declared one it never builds
 * could be named there to no effect.
 */
function checkServedGroups(module: Module, served: readonly RouteGroup[]): void {
  const names = served.map((g) => g.name);
  const declared = [...module.groups].sort();
  if (new Set(names).size !== names.length || names.slice().sort().join() !== declared.join()) {
    throw new Error(
      `module ${module.name} declares the groups ${declared.join(', ') || '(none)'} and builds ${names.sort().join(', ') || '(none)'}`,
    );
  }
}

/** OPENRAIL_UNMOUNTED_GROUPS may name only groups some module serves. */
function checkGroupNames(modules: readonly Module[], unmounted: ReadonlySet<string>): void {
  const known = new Set(modules.flatMap((m) => m.groups));
  const unknown = [...unmounted].filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new Error(`OPENRAIL_UNMOUNTED_GROUPS names unknown groups: ${unknown.join(', ')} (known: ${[...known].join(', ')})`);
  }
}

async function checkMasterKey(settings: SettingsStore, vault: KeyVault): Promise<void> {
  const check = vault.checkValue();
  if (await settings.putIfAbsent('master_key_check', check)) return;
  if ((await settings.get('master_key_check')) !== check) {
    throw new Error('OPENRAIL_MASTER_KEY is not the key this database was created with; its private keys cannot be opened.');
  }
}
