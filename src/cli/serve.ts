import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { createLogger } from '../app/logger.ts';
import { type Config, ConfigError, loadConfig } from '../config/config.ts';
import { listenProblem, portProblem } from './port-check.ts';
import { VERB_USAGE } from './usage.ts';

/** A worker that exits within this long of starting is failing to start, not crashing: no restart. */
const START_GRACE_MS = 10_000;
/** More restarts than this within RESTART_WINDOW_MS is a crash loop: the primary stops. */
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;
/** Set by the primary for its workers: how many share the pool budget. */
const WORKER_COUNT = 'OPENRAIL_WORKER_COUNT';
/**
 * A worker's exit code when it failed to start (its reason is on stderr): however long that took,
 * the primary stops rather than restarting it into the same failure.
 */
const WORKER_START_FAILED = 78;

/**
 * The service, loaded only once the port is known to be free: loading it takes seconds (every
 * feature, its framework and drivers), which a start that cannot listen should not wait for.
 */
const loadCompose = async () => (await import('../compose.ts')).compose;

/**
 * `openrail serve` / `npm start`: validate configuration, migrate, seed, listen, drain on SIGTERM.
 * With `--workers N` (default: one per core) a primary process prepares the database, then starts
 * N workers that share the port (node:cluster) and the database (docs/scaling.md); N = 1 serves
 * from this process.
 */
export async function serve(args: string[]): Promise<void> {
  const workers = parseWorkers(args);
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`openrail: configuration error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel, undefined, config.nodeId);
  if (cluster.isWorker) return serveWorker(config, logger, Number(process.env[WORKER_COUNT]));
  // Workers share the primary's listening socket, so the primary checks for them too.
  const problem = await portProblem(config.host, config.port);
  if (problem) {
    logger.fatal({ host: config.host, port: config.port }, 'start failed: the port cannot be listened on');
    process.stderr.write(`openrail: cannot start: ${problem}\n`);
    process.exit(1);
  }
  if (workers === 1) return serveAlone(config, logger);
  return servePrimary(config, logger, workers);
}

function parseWorkers(args: string[]): number {
  const usage = (problem: string): never => {
    process.stderr.write(`openrail serve: ${problem}\n${VERB_USAGE.serve}\n`);
    process.exit(2);
  };
  let values: { workers?: string | undefined };
  try {
    ({ values } = parseArgs({ args, options: { workers: { type: 'string' } }, strict: true }));
  } catch (err) {
    return usage((err as Error).message);
  }
  if (values.workers === undefined) return availableParallelism();
  const n = Number(values.workers);
  if (!/^\d+$/.test(values.workers) || n < 1 || n > 256)
    return usage(`--workers takes a whole number 1-256 (got ${values.workers})`);
  return n;
}

function failer(logger: Logger, config: Config, exitCode = 1) {
  return (err: unknown): never => {
    logger.fatal({ err }, 'start failed');
    const problem = listenProblem(err, config.host, config.port) ?? (err instanceof Error ? err.message : String(err));
    process.stderr.write(`openrail: cannot start: ${problem}\n`);
    process.exit(exitCode);
  };
}

/**
 * The one place a secret is printed, on purpose and only once, outside the structured log, and
 * before listening, so that a port already in use cannot swallow the only copy.
 */
function revealOwnerToken(token: string | undefined, config: Config): void {
  if (!token) {
    // Later starts: the token was printed on the first one. Say how to get in again without it.
    if (!config.ownerToken) {
      process.stdout.write(
        `\nThe owner token was printed on the first start only. Operators sign in at ${config.publicUrl.origin}/admin;\n` +
          'if the token is lost, start again with OPENRAIL_OWNER_TOKEN set to a new secret of 32 or more characters:\n' +
          'while it is set, it is the only owner token (docs/authentication.md, "Owner token").\n',
      );
    }
    return;
  }
  process.stdout.write(
    `\nOwner token (shown once; store it now, only its hash is kept):\n  ${token}\n` +
      'Use it as: Authorization: Bearer <token>\n',
  );
}

function announce(config: Config, port: number, workers: number): void {
  const across = workers > 1 ? ` in ${workers} worker processes` : '';
  process.stdout.write(`\nopenrail is serving at ${config.publicUrl.origin} (listening on ${config.host}:${port})${across}\n\n`);
}

/** Drains on the first SIGTERM or SIGINT: `stop` ends the work, then the process exits. */
function onStopSignal(logger: Logger, stop: () => Promise<void>): void {
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'draining and shutting down');
    stop().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

async function serveAlone(config: Config, logger: Logger): Promise<void> {
  const fail = failer(logger, config);
  const compose = await loadCompose();
  const rail = await compose(config, { logger, warn: (m) => logger.warn(m) }).catch(fail);
  revealOwnerToken(rail.revealedOwnerToken, config);
  await rail.app.listen({ port: config.port, host: config.host }).catch(fail);
  const address = rail.app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info(
    { listen: `http://${config.host}:${port}`, publicUrl: config.publicUrl.origin, database: config.database.kind },
    'openrail is serving',
  );
  announce(config, port, 1);
  onStopSignal(logger, () => rail.close());
}

/**
 * The primary: migrates and seeds through one full start (so that a bad configuration, master key
 * or database fails here, once, before any worker), reveals a first owner token, then starts the
 * workers and restarts any that dies after it has started. It serves nothing itself.
 */
async function servePrimary(config: Config, logger: Logger, workers: number): Promise<void> {
  const fail = failer(logger, config);
  const compose = await loadCompose();
  const prepared = await compose(config, { logger, warn: (m) => logger.warn(m), runJobs: false }).catch(fail);
  const token = prepared.revealedOwnerToken;
  await prepared.close();
  revealOwnerToken(token, config);

  cluster.setupPrimary({ silent: false });
  let closing = false;
  const started = new Map<Worker, number>();
  const fork = () => started.set(cluster.fork({ [WORKER_COUNT]: String(workers) }), Date.now());
  const restarts: number[] = [];
  const stopAll = (why: string) => {
    process.stderr.write(`openrail: ${why} (see the log)\n`);
    closing = true;
    for (const w of started.keys()) w.process.kill('SIGTERM');
    process.exitCode = 1;
  };
  let listening = 0;
  let port = config.port;
  cluster.on('listening', (_worker, address) => {
    port = address.port;
    if (++listening === workers) {
      logger.info({ listen: `http://${config.host}:${port}`, workers, database: config.database.kind }, 'openrail is serving');
      announce(config, port, workers);
    }
  });
  cluster.on('exit', (worker, code, signal) => {
    const since = started.get(worker) ?? 0;
    started.delete(worker);
    if (closing) return;
    logger.error({ pid: worker.process.pid, code, signal }, 'worker exited');
    const now = Date.now();
    if (listening < workers && (code === WORKER_START_FAILED || now - since < START_GRACE_MS))
      return stopAll('cannot start: a worker process failed while starting');
    restarts.push(now);
    while ((restarts[0] ?? now) < now - RESTART_WINDOW_MS) restarts.shift();
    if (restarts.length > MAX_RESTARTS)
      return stopAll(`worker processes keep exiting (${restarts.length} in a minute); stopping`);
    fork();
  });
  for (let i = 0; i < workers; i++) fork();
  onStopSignal(logger, async () => {
    closing = true;
    const exits = [...started.keys()].map((w) => new Promise<void>((resolve) => w.once('exit', () => resolve())));
    for (const w of started.keys()) w.process.kill('SIGTERM');
    await Promise.all(exits);
  });
}

/** A worker: a full start on the prepared database, with its share of the PostgreSQL connections. */
async function serveWorker(config: Config, logger: Logger, workers: number): Promise<void> {
  const fail = failer(logger, config, WORKER_START_FAILED);
  const compose = await loadCompose();
  const poolSize = Math.max(2, Math.floor(config.dbPoolSize / Math.max(1, workers)));
  const rail = await compose(config, { logger, warn: (m) => logger.warn(m), database: { poolSize } }).catch(fail);
  await rail.app.listen({ port: config.port, host: config.host }).catch(fail);
  onStopSignal(logger, () => rail.close());
}
