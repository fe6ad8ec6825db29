// The verification bench hosted: the real server on each engine, whole OID4VP transactions at each level.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/helpers/process.ts';
import type { AgeResult } from './age.ts';
import { coresOf, cpuWindow } from './lib/cpu-window.ts';
import { type CryptoRates, describeMdocCost, type MdocCost, mdocCost } from './lib/crypto-rates.ts';
import { type Database, type Engine, postgresDatabase, sqliteDatabase } from './lib/databases.ts';
import { type Failures, mergeFailures } from './lib/drive.ts';
import type { Format } from './lib/formats.ts';
import { commCpuMs } from './lib/machine.ts';
import { elementBytes, handoverInfoBytes } from './lib/mdoc.ts';
import { type ProfileSummary, summariseProfile } from './lib/profile.ts';
import { type BenchServer, serverErrors, startServer } from './lib/server.ts';
import { fixed, latencySummary, percentile } from './lib/stats.ts';
import {
  driveHosted,
  type Held,
  HOSTED_CLAIMS,
  type HostedTarget,
  hostedSubject,
  issueHeld,
  type Profile,
  setUpHosted,
  transaction,
} from './verify-hosted.ts';
import type { Options } from './verify-options.ts';

/** Hosted verification is measured under both profiles (HAIP on the fresh database only). */
const PROFILES: readonly Profile[] = ['openid4vp', 'haip'];

export const HOSTED_CEILING_DEFINITION =
  'crypto cost of a hosted transaction = what the server cannot skip: the request object signed (1 sign), the issuer ' +
  'JWT and the KB-JWT verified (2 verifies), the holder key made from its JWK (every holder is new to the server: the ' +
  'bench cycles through more holders than the verifier keeps keys for) = 1/sign_rate + 2/verify_rate + 1/import_rate. ' +
  'The status list token is signed once per revision and verified once per token (both cached), so it costs nothing per ' +
  'transaction here; crypto ceiling = one core doing nothing else. A haip row does more crypto than this counts (an ' +
  'ECDH key made, sealed and opened per transaction, and an ECDH-ES decryption), so its crypto share overstates the ' +
  'headroom';

export const MDOC_HOSTED_CEILING_DEFINITION =
  'crypto cost of a hosted mdoc transaction = what the server cannot skip: the request object signed (1 sign), the MSO ' +
  '(issuerAuth) and the device signature verified (2 verifies), the device key made from the MSO (every holder is new), ' +
  'and one SHA-256 of each disclosed element and of the session transcript’s handover info = 1/sign_rate + ' +
  '2/verify_rate + 1/import_rate + digests_ms. The status list token is verified once per token (cached), as for SD-JWT ' +
  'VC. Not counted, as a server could keep their results: the issuer key made again from its JWK for every MSO verify, ' +
  'and the x5chain checked up to the anchor (X.509 parsing and an ES256 verify through WebCrypto) for every presentation. ' +
  'A haip row does more crypto than this counts, as for SD-JWT VC (the response key, its thumbprint, the decryption)';

export interface HostedRow {
  engine: Engine;
  /** sd-jwt: an SD-JWT VC with a KB-JWT; mdoc: a DeviceResponse, asked for with format mso_mdoc. */
  format: Format;
  /** openid4vp: the interface's profile; haip: x509_hash request, direct_post.jwt response (docs/haip.md). */
  profile: Profile;
  db: 'fresh' | 'aged';
  workers: number;
  concurrency: number;
  transactions: number;
  seconds: number;
  perSec: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  responseP50Ms: number;
  responseP99Ms: number;
  stepP50Ms: Record<string, number>;
  stepP99Ms: Record<string, number>;
  failures: number;
  warmupFailures: number;
  failureKinds: Failures;
  serverCpuMsPerTx?: number;
  /** The crypto cost of a transaction against the server CPU per transaction. */
  cryptoShare?: number;
  serverCores?: number;
  clientCores: number;
  otherCores?: number;
  postgresCores?: number;
  /** PostgreSQL: the round trip the bench's proxy added (--db-latency), and the round trips per transaction it counted over the window. */
  dbLatencyMs?: number;
  roundTripsPerOperation?: number;
  ceilingFraction: number;
}

export interface HostedResult {
  rows: HostedRow[];
  credentials: number;
  txCryptoMs: number;
  ceilingPerSec: number;
  /** The crypto cost of a hosted mdoc transaction (MDOC_HOSTED_CEILING_DEFINITION), when mdoc is measured. */
  mdoc?: MdocCost;
  engines: Partial<
    Record<Engine, { setupSeconds?: number; aging?: AgeResult; serverLogErrors: number; firstError?: string; problem?: string }>
  >;
  /** The main thread's profile over every measured window (the start, warm-ups and set-up left out). */
  profile?: ProfileSummary;
  /** The same, over each verification profile's and format's windows alone, with their transactions. */
  profiles?: Array<{ profile: Profile; format: Format; transactions: number; summary: ProfileSummary }>;
}

interface HostedContext {
  engine: Engine;
  db: HostedRow['db'];
  workers: number;
  target: HostedTarget;
  /** The credentials held in each format measured. */
  held: Partial<Record<Format, Held[]>>;
  opts: Options;
  server: BenchServer;
  /** The crypto cost of a transaction in each format measured, and the ceiling it sets. */
  costs: Partial<Record<Format, { costMs: number; ceilingPerSec: number }>>;
  distance?: Database['distance'];
  /** With --cpu-prof: where each measured window went on the monotonic clock, so the profile can be cut to it. */
  measured?: Array<{ profile: Profile; format: Format; window: [number, number]; transactions: number }>;
}

async function measureHosted(ctx: HostedContext, concurrency: number, profile: Profile, format: Format): Promise<HostedRow> {
  const { target, opts, server } = ctx;
  const held = ctx.held[format];
  const cost = ctx.costs[format];
  if (!held || !cost) throw new Error(`no ${format} credentials are held`);
  const warm = await driveHosted(target, held, concurrency, opts.warmupS, profile, format);
  const endWindow = cpuWindow(() => server.cpuMs(), ctx.engine === 'postgres' ? () => commCpuMs('postgres') : undefined);
  const tripsBefore = ctx.distance?.roundTrips();
  const m = await driveHosted(target, held, concurrency, opts.durationS, profile, format);
  const trips = tripsBefore === undefined ? undefined : (ctx.distance?.roundTrips() ?? 0) - tripsBefore;
  const cpu = endWindow();
  ctx.measured?.push({ profile, format, window: m.windowUs, transactions: m.ok });
  const perSec = m.ok / m.seconds;
  const stepP = (p: number) => Object.fromEntries(Object.entries(m.steps).map(([k, v]) => [k, percentile(v, p)]));
  const serverMs = cpu.serverMs !== undefined && m.ok > 0 ? cpu.serverMs / m.ok : undefined;
  return {
    engine: ctx.engine,
    format,
    profile,
    db: ctx.db,
    workers: ctx.workers,
    concurrency,
    transactions: m.ok,
    seconds: m.seconds,
    perSec,
    ...latencySummary(m.latencies),
    responseP50Ms: percentile(m.steps.response, 50),
    responseP99Ms: percentile(m.steps.response, 99),
    stepP50Ms: stepP(50),
    stepP99Ms: stepP(99),
    failures: m.errors,
    warmupFailures: warm.errors,
    failureKinds: mergeFailures(warm.failures, m.failures),
    ...(serverMs !== undefined ? { serverCpuMsPerTx: serverMs, cryptoShare: cost.costMs / serverMs } : {}),
    ...coresOf(cpu, m.seconds),
    ...(ctx.engine === 'postgres' ? { postgresCores: cpu.extraMs / 1000 / m.seconds } : {}),
    ...(ctx.distance && trips !== undefined && m.ok > 0
      ? { dbLatencyMs: ctx.distance.dbLatencyMs, roundTripsPerOperation: trips / m.ok }
      : {}),
    ceilingFraction: perSec / cost.ceilingPerSec,
  };
}

export async function benchHosted(opts: Options, crypto: CryptoRates, log: (l: string) => void): Promise<HostedResult> {
  const txCryptoMs = 1000 / crypto.signPerSec + 2000 / crypto.verifyPerSec + 1000 / crypto.importPerSec;
  const result: HostedResult = {
    rows: [],
    credentials: opts.held,
    txCryptoMs,
    ceilingPerSec: 1000 / txCryptoMs,
    engines: {},
  };
  // An mdoc presentation's digests: its disclosed elements (every claim is asked for) and the handover info.
  if (opts.formats.includes('mdoc')) {
    const inputs = [...elementBytes(HOSTED_CLAIMS, hostedSubject(0)), handoverInfoBytes('http://127.0.0.1:43210')];
    result.mdoc = mdocCost(txCryptoMs, inputs, opts.cryptoMs);
    log(describeMdocCost('a hosted mdoc transaction', result.mdoc));
  }
  for (const engine of opts.engines) {
    const problem = await hostedEngine(engine, opts, result, log).catch((err) =>
      err instanceof Error ? (err.stack ?? err.message) : String(err),
    );
    if (problem) {
      result.engines[engine] = {
        ...result.engines[engine],
        serverLogErrors: result.engines[engine]?.serverLogErrors ?? 0,
        problem,
      };
      log(`  hosted on ${engine} failed: ${problem}`);
    }
  }
  return result;
}

/** One engine: credentials issued over the rail, then every level at every --workers value, fresh and aged. */
async function hostedEngine(
  engine: Engine,
  opts: Options,
  result: HostedResult,
  log: (l: string) => void,
): Promise<string | undefined> {
  const dir = mkdtempSync(join(tmpdir(), `openrail-bench-verify-${engine}-`));
  const db =
    engine === 'sqlite' ? sqliteDatabase(dir) : await postgresDatabase(process.env.TEST_DATABASE_URL ?? '', opts.dbLatencyMs);
  const summary: NonNullable<HostedResult['engines'][Engine]> = { serverLogErrors: 0 };
  result.engines[engine] = summary;
  const profDir = join(dir, 'profile');
  if (opts.cpuProf) mkdirSync(profDir);
  // One port for every start: the held credentials name the issuer's did:web, which follows PUBLIC_URL.
  const port = await freePort();
  let keep = opts.cpuProf;
  const servers: BenchServer[] = [];
  const start = async (workers: number, profile = false) => {
    const server = await startServer({
      databaseUrl: db.url,
      dataDir: dir,
      logFile: join(dir, `server-${servers.length}.log`),
      workers,
      port,
      ...(profile ? { cpuProfDir: profDir } : {}),
    });
    servers.push(server);
    return server;
  };
  const stop = async (server: BenchServer) => {
    await server.stop();
    const errors = serverErrors(server.logFile);
    summary.serverLogErrors += errors.count;
    summary.firstError ??= errors.first;
  };
  try {
    const t0 = performance.now();
    const setup = await start(1);
    const schemaProblem = await db.verify();
    if (schemaProblem) return schemaProblem;
    const target = await setUpHosted(setup.origin, opts.formats.includes('mdoc'));
    const held: HostedContext['held'] = {};
    for (const format of opts.formats) {
      const mine = await issueHeld(target, opts.held, format);
      held[format] = mine;
      // One transaction outside the measurement: the path works before it is timed.
      for (const profile of PROFILES) {
        const first = await transaction(target, mine[0] as Held, profile, format);
        if (!first.ok) throw new Error(`a first hosted ${format} ${profile} transaction failed: ${first.key}: ${first.sample}`);
      }
    }
    await stop(setup);
    summary.setupSeconds = (performance.now() - t0) / 1000;
    log(
      `hosted on ${engine}: type ${target.typeId}; ${opts.held} credentials of each format (${opts.formats.join(', ')}) ` +
        `issued over the rail in ${fixed(summary.setupSeconds, 1)} s`,
    );
    const costs: HostedContext['costs'] = {
      'sd-jwt': { costMs: result.txCryptoMs, ceilingPerSec: result.ceilingPerSec },
      ...(result.mdoc ? { mdoc: result.mdoc } : {}),
    };
    const measured: NonNullable<HostedContext['measured']> = [];
    const phase = async (name: HostedRow['db']) => {
      for (const workers of opts.cpuProf ? [1] : opts.workers) {
        const server = await start(workers, opts.cpuProf);
        for (const c of opts.concurrency) {
          const ctx = {
            engine,
            db: name,
            workers,
            target,
            held,
            opts,
            server,
            costs,
            ...(db.distance ? { distance: db.distance } : {}),
            ...(opts.cpuProf ? { measured } : {}),
          };
          // HAIP on the fresh database: what its encryption adds, beside the interface's profile.
          // The formats of a level one after the other, so that each sees the machine as the other did.
          for (const profile of name === 'fresh' ? PROFILES : (['openid4vp'] as const)) {
            for (const format of opts.formats) {
              const row = await measureHosted(ctx, c, profile, format);
              result.rows.push(row);
              log(
                `  ${engine} ${format} ${profile} ${name} ${workers} process(es) ${c} wallets: ${fixed(row.perSec, 0)} tx/s, ` +
                  `p50 ${fixed(row.p50Ms, 2)} ms p99 ${fixed(row.p99Ms, 2)} ms, srv cpu ${fixed(row.serverCpuMsPerTx, 3)} ms/tx, ` +
                  `failures ${row.failures + row.warmupFailures}, other processes ${fixed(row.otherCores, 2)} cores`,
              );
            }
          }
        }
        await stop(server);
      }
    };
    await phase('fresh');
    if (opts.cpuProf) {
      const profile = summariseProfile(
        profDir,
        25,
        measured.map((m) => m.window),
      );
      if (profile.main) result.profile = profile.main;
      result.profiles = [];
      for (const p of PROFILES) {
        for (const format of opts.formats) {
          const mine = measured.filter((m) => m.profile === p && m.format === format);
          const main = summariseProfile(
            profDir,
            25,
            mine.map((m) => m.window),
          ).main;
          const transactions = mine.reduce((n, m) => n + m.transactions, 0);
          if (main && transactions > 0) result.profiles.push({ profile: p, format, transactions, summary: main });
        }
      }
      return undefined;
    }
    log(`hosted on ${engine}: ageing the database with ${opts.rows.toLocaleString('en')} earlier issuances`);
    summary.aging = await db.age({ tenant: target.tenant, typeId: target.typeId, rows: opts.rows, now: Date.now() });
    await phase('aged');
    return undefined;
  } catch (err) {
    keep = true;
    throw err;
  } finally {
    for (const s of servers) await s.stop().catch(() => undefined);
    await db.drop().catch((err) => log(`  could not drop the ${engine} database: ${String(err)}`));
    if (summary.serverLogErrors > 0) keep = true;
    if (!keep) rmSync(dir, { recursive: true, force: true });
    else log(`  hosted on ${engine}: logs kept in ${dir}`);
  }
}
