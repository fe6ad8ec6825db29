// The issuance bench on one engine: a server on a fresh database, its levels, ageing, its levels again.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { softhsmMissing, softToken } from '../test/helpers/softhsm.ts';
import type { AgeResult } from './age.ts';
import { type Flow, runLevels, topUp } from './issuance-levels.ts';
import type { Options, Phase, Row } from './issuance-options.ts';
import type { CryptoRates, MdocCost } from './lib/crypto-rates.ts';
import { type Engine, postgresDatabase, sqliteDatabase } from './lib/databases.ts';
import { benchWalletProvider } from './lib/haip.ts';
import { type ProfileSummary, summariseProfile } from './lib/profile.ts';
import { type BenchServer, serverErrors, startServer } from './lib/server.ts';
import { type StatementTime, sqlTimeServer, sqlTimesSince } from './lib/sql-time.ts';
import { fixed } from './lib/stats.ts';
import { BENCH_CLAIMS, type PoolItem, postJson, setUpIssuer, type Target } from './lib/wallet.ts';

const BENCH_TYPE = { tenant: 'Bench Transit', type: 'Bench Transit Pass', claims: BENCH_CLAIMS };

/** An OTLP receiver for a run with --tracing: it reads every export and discards it, counting the bytes. */
async function otlpSink(): Promise<{ url: string; bytes(): number; close(): Promise<void> }> {
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on('data', (c: Buffer) => {
      bytes += c.length;
    });
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bytes: () => bytes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A SoftHSM token for a run with --keys pkcs11; SoftHSM must be installed. */
function benchToken() {
  const missing = softhsmMissing();
  if (missing) throw new Error(missing);
  return softToken('openrail-bench');
}

export interface EngineResult {
  rows: Row[];
  aging?: AgeResult & { counts: Record<string, number> };
  serverLogErrors: Array<{ phase: Phase; count: number; first?: string }>;
  /** The main thread's profile over every measured window, and over each grant's alone with its credentials. */
  profile?: ProfileSummary;
  /** Per grant: its measured windows (µs on the monotonic clock, which the profile's samples carry), for a reading of the profile file beyond the summary. */
  profiles?: Array<{ grant: Flow['grant']; credentials: number; windowsUs: Array<[number, number]>; summary: ProfileSummary }>;
  profileThreads?: Array<{ file: string; busyMs: number }>;
  /** --sql-time: each grant's statements, timed in the profiled server (warm-ups included). */
  sqlTimes?: Array<{ grant: Flow['grant']; credentials: number; statements: StatementTime[] }>;
  problem?: string;
}

export async function benchEngine(
  engine: Engine,
  opts: Options,
  crypto: CryptoRates,
  mdoc: MdocCost | undefined,
  log: (l: string) => void,
): Promise<EngineResult> {
  const dir = mkdtempSync(join(tmpdir(), `openrail-bench-${engine}-`));
  const db =
    engine === 'sqlite' ? sqliteDatabase(dir) : await postgresDatabase(process.env.TEST_DATABASE_URL ?? '', opts.dbLatencyMs);
  const result: EngineResult = { rows: [], serverLogErrors: [] };
  const sampling = { ...(db.sampler ? { sampler: db.sampler } : {}), ...(db.distance ? { distance: db.distance } : {}) };
  const servers: BenchServer[] = [];
  const provider = await benchWalletProvider(dir);
  const preAuthorized: Flow = { grant: 'pre-authorized' };
  // One token per run: SoftHSM reads its configuration once per process, the bench's and the server's.
  const token = opts.keys === 'pkcs11' ? benchToken() : undefined;
  const sink = opts.tracing ? await otlpSink() : undefined;
  const sqlTime = opts.sqlTime && engine === 'sqlite' ? sqlTimeServer(join(dir, 'sql-time')) : undefined;
  const start = async (phase: Phase | 'setup', workers = 1, cpuProfDir?: string) => {
    const timed = cpuProfDir ? sqlTime : undefined;
    const s = await startServer({
      databaseUrl: db.url,
      dataDir: dir,
      logFile: join(dir, `server-${phase}-${workers}.log`),
      workers,
      ...(cpuProfDir ? { cpuProfDir } : {}),
      ...(timed ? { nodeFlags: timed.nodeFlags } : {}),
      env: {
        ...timed?.env,
        OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE: provider.anchorFile,
        ...(opts.metrics ? { OPENRAIL_METRICS_TOKEN: 'bench-metrics-scraper-token-0123456789abcdef' } : {}),
        ...(token ? token.env : {}),
        ...(sink ? { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_BSP_MAX_QUEUE_SIZE: '8192' } : {}),
      },
    });
    servers.push(s);
    return s;
  };
  const stop = async (s: BenchServer, phase: Phase) => {
    await s.stop();
    const errs = serverErrors(s.logFile);
    result.serverLogErrors.push({ phase, ...errs });
    if (errs.count > 0) log(`  server log of ${engine} ${phase}: ${errs.count} error line(s); first: ${errs.first}`);
  };
  let keep = false;
  try {
    log(`${engine}: starting a server on a fresh database`);
    const first = await start(opts.cpuProf ? 'setup' : 'fresh');
    const problem = await db.verify();
    if (problem) {
      result.problem = problem;
      log(`  ${problem}; skipping ${engine}`);
      return result;
    }
    const target = await setUpIssuer(first.origin, { ...BENCH_TYPE, mdoc: opts.formats.includes('mdoc') });
    // The bench tenant serves the authorization code flow too (its offers then name an issuer_state).
    await postJson(`${first.origin}/api/tenants/authorization-flow`, { tenant: target.tenant, haipIssuance: true }, 200);
    const pool: PoolItem[] = [];

    if (opts.cpuProf) {
      // Setup (offers) on an unprofiled server, so the profile holds issuance alone.
      const estimate = opts.quick ? 300 : 450;
      const levels = opts.wallets.length * (opts.formats.length + (opts.formats.includes('sd-jwt') ? 1 : 0));
      await topUp(target, pool, Math.ceil(estimate * (opts.warmupS + opts.durationS) * levels * 1.3) + 100);
      await first.stop();
      const profDir = join(dir, 'profile');
      mkdirSync(profDir, { recursive: true });
      const server = await start('fresh', 1, profDir);
      retarget(target, server.origin);
      log(`${engine}: ${pool.length} offers ready; profiling the server over the levels`);
      // The HAIP rows too (SD-JWT VC, as unprofiled), each grant's windows kept apart.
      const flows: Flow[] = opts.formats.includes('sd-jwt') ? [preAuthorized, { grant: 'haip', provider }] : [preAuthorized];
      const measured: Array<{ grant: Flow['grant']; windows: Array<[number, number]>; rows: Row[] }> = [];
      for (const flow of flows) {
        const windows: Array<[number, number]> = [];
        const rows = await runLevels(
          {
            flow,
            formats: flow.grant === 'haip' ? ['sd-jwt'] : opts.formats,
            engine,
            phase: 'fresh',
            workers: 1,
            server,
            target,
            pool,
            opts,
            crypto,
            ...(mdoc ? { mdoc } : {}),
            topUps: false,
            profiled: true,
            windows,
            ...sampling,
          },
          log,
        );
        result.rows.push(...rows);
        measured.push({ grant: flow.grant, windows, rows });
        if (sqlTime) {
          const statements = await sqlTimesSince(server.pid, sqlTime.base, measured.length - 1);
          const credentials = rows.reduce((n, r) => n + r.credentials + r.warmupCredentials, 0);
          result.sqlTimes = [...(result.sqlTimes ?? []), { grant: flow.grant, credentials, statements }];
        }
      }
      await stop(server, 'fresh');
      const summary = summariseProfile(
        profDir,
        25,
        measured.flatMap((m) => m.windows),
      );
      if (summary.main) result.profile = summary.main;
      result.profileThreads = summary.threads;
      result.profiles = measured.flatMap(({ grant, windows, rows }) => {
        const main = summariseProfile(profDir, 25, windows).main;
        return main
          ? [{ grant, credentials: rows.reduce((n, r) => n + r.credentials, 0), windowsUs: windows, summary: main }]
          : [];
      });
      return result;
    }

    // Each phase at every --workers value: a server of that many processes, levels, stop.
    const phase = async (name: Phase) => {
      for (const workers of opts.workers) {
        if (!server) {
          log(`${engine}: starting a server of ${workers} process(es) on the ${name} database`);
          server = await start(name, workers);
          retarget(target, server.origin);
        }
        const s = server;
        // HAIP on the fresh database: what the authorization code flow adds, beside the interface's.
        // It issues the SD-JWT VC configuration only (bench/lib/haip.ts): no HAIP rows with --formats mdoc.
        const haip = name === 'fresh' && opts.formats.includes('sd-jwt');
        // With --pairs n, the two grants n times over, one after the other: each HAIP window beside a pre-authorized one.
        const flows: Flow[] = haip
          ? Array.from({ length: opts.pairs }, () => [preAuthorized, { grant: 'haip', provider } as Flow]).flat()
          : [preAuthorized];
        for (const [i, flow] of flows.entries()) {
          const formats = flow.grant === 'haip' ? (['sd-jwt'] as const) : opts.formats;
          // A later pair's flows are warm already (V8 compiled their code in the first pair's warm-ups):
          // one second brings the wallets up to speed, so many short pairs fit in a run (bench/README.md).
          const warmed = i >= 2 ? { warmupS: Math.min(opts.warmupS, 1) } : {};
          result.rows.push(
            ...(await runLevels(
              {
                flow,
                formats,
                engine,
                phase: name,
                workers,
                server: s,
                target,
                pool,
                opts,
                crypto,
                ...(mdoc ? { mdoc } : {}),
                topUps: true,
                ...warmed,
                ...sampling,
              },
              log,
            )),
          );
        }
        await stop(s, name);
        server = undefined;
      }
    };
    let server: BenchServer | undefined = first;
    if ((opts.workers[0] ?? 1) !== 1) {
      await stop(first, 'fresh');
      server = undefined;
    }
    await phase('fresh');

    log(`${engine}: ageing the database with ${opts.rows.toLocaleString('en')} earlier issuances`);
    const aged = await db.age({ tenant: target.tenant, typeId: target.typeId, rows: opts.rows, now: Date.now() });
    const counts = await db.counts();
    result.aging = { ...aged, counts };
    log(
      `  aged in ${fixed(aged.seconds, 1)} s (${Object.entries(aged.steps)
        .map(([k, v]) => `${k} ${fixed(v, 1)} s`)
        .join(', ')}): ${aged.lists} lists from seq ${aged.firstSeq} (newest allocated ${aged.newestAllocated}); ` +
        `rows now ${Object.entries(counts)
          .map(([t, n]) => `${t} ${n.toLocaleString('en')}`)
          .join(', ')}`,
    );

    await phase('aged');
    return result;
  } catch (err) {
    keep = true;
    log(`  ${engine} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}; logs kept in ${dir}`);
    result.problem = String(err);
    return result;
  } finally {
    for (const s of servers) await s.stop().catch(() => undefined);
    await db.drop().catch((err) => log(`  could not drop the ${engine} database: ${String(err)}`));
    token?.remove();
    if (!keep && !opts.cpuProf) rmSync(dir, { recursive: true, force: true });
    else if (opts.cpuProf) log(`  profile and logs kept in ${dir}`);
  }
}

/** The server listens on a new port after a restart: issuer identifier and audience follow PUBLIC_URL. */
function retarget(target: Target, origin: string): void {
  target.origin = origin;
  target.issuer = `${origin}/t/${target.tenant}`;
}
