// The issuance bench's options and the shape of its rows (npm run bench -- issuance --help).
import { availableParallelism } from 'node:os';
import { dbLatencyFrom, type Engine, enginesFrom, workersFrom } from './lib/databases.ts';
import type { Failures } from './lib/drive.ts';
import { type Format, formatsFrom } from './lib/formats.ts';
import { type CommonOptions, parseOptions, positive, positiveIntegers, WARMUP_OPTION } from './lib/options.ts';

export type Phase = 'fresh' | 'aged';
/** pre-authorized: the interface's flow; haip: the authorization code flow with PAR, PKCE, DPoP and wallet attestation (docs/haip.md). */
export type Grant = 'pre-authorized' | 'haip';

export interface Options extends CommonOptions {
  rows: number;
  wallets: number[];
  /** `openrail serve --workers` values, each measured at every level. */
  workers: number[];
  engines: Engine[];
  /** Before each measurement, wait (up to this many seconds) for other processes to leave the CPUs. */
  waitQuietS: number;
  /** Serve with metrics on (docs/operations.md, "Metrics"). */
  metrics: boolean;
  /** PostgreSQL: the round trip added between the server and the database (--db-latency). */
  dbLatencyMs: number;
  /** Where the server keeps its keys (OPENRAIL_KEYS): sealed, or pkcs11 on a SoftHSM token made for the run. */
  keys: 'sealed' | 'pkcs11';
  /** Serve with tracing on, exporting over OTLP to a local sink that discards (--tracing). */
  tracing: boolean;
  /** The credential formats issued at each pre-authorized level (--formats; HAIP issues SD-JWT VC only). */
  formats: Format[];
  /** With --cpu-prof on SQLite: time each statement the profiled server runs, per grant (--sql-time). */
  sqlTime: boolean;
  /** On the fresh database, the pre-authorized and HAIP levels measured this many times, one after the other (--pairs). */
  pairs: number;
}

export interface Row {
  engine: Engine;
  /** sd-jwt: the type's SD-JWT VC configuration; mdoc: its `<typeId>.mdoc` configuration (ISO mdoc). */
  format: Format;
  grant: Grant;
  /** OPENRAIL_KEYS of the server: sealed, or pkcs11 (SoftHSM). */
  keys: 'sealed' | 'pkcs11';
  /** The server traced every request (OTEL_*, exported to a local sink). */
  tracing: boolean;
  db: Phase;
  /** Serving processes (`openrail serve --workers`). */
  workers: number;
  wallets: number;
  credentials: number;
  seconds: number;
  perSec: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  errors: number;
  ceilingFraction: number;
  /** Server CPU (user + system) per credential, and in cores, over the measured window. */
  serverCpuMsPerCredential?: number;
  /** Of that, the serving process's main thread (one process only); the rest is its helper threads (bench/lib/server.ts). */
  serverMainCpuMsPerCredential?: number;
  /** The crypto cost of an issuance against the server CPU per issuance: how near the server runs to the cryptography. */
  cryptoShare?: number;
  serverCores?: number;
  /** The bench process (all wallets) in cores: near 1.0 means the client, not the server, is the limit. */
  clientCores: number;
  /** Cores other processes on the machine kept busy meanwhile: above ~0.1 the machine was shared. */
  otherCores?: number;
  /** PostgreSQL: cores used by postgres processes (every backend on the machine) meanwhile. */
  postgresCores?: number;
  /** PostgreSQL: the round trip the bench's proxy added (--db-latency), and the round trips per credential it counted over the window. */
  dbLatencyMs?: number;
  roundTripsPerOperation?: number;
  /**
   * PostgreSQL: the server's backends, sampled every 25 ms over the window (mean counts): running a
   * statement, waiting on a lock, and idle inside an open transaction (the server doing its own work
   * between statements of a transaction, holding whatever it locked).
   */
  pgBackends?: {
    active: number;
    lockWaits: number;
    idleInTransaction: number;
    samples: number;
    lockWaitsOn: Record<string, number>;
    idleAfter: Record<string, number>;
  };
  poolExhausted: boolean;
  /** Windows measured for this row (more than one when the machine was shared, with --wait-quiet). */
  attempts?: number;
  warmupErrors: number;
  /** Credentials issued in the warm-up before the window. */
  warmupCredentials: number;
  failures: Failures;
  sampleCheck: string[];
  profiled?: boolean;
}

const USAGE = `npm run bench -- issuance [--quick] [--rows <n>] [--duration <s>] [--warmup <s>] [--wallets 1,8,32] [--workers 1,N]
                               [--engine sqlite|postgres] [--db-latency <ms>] [--wait-quiet <s>] [--cpu-prof [--sql-time]] [--metrics]
                               [--keys sealed|pkcs11] [--tracing] [--formats sd-jwt,mdoc] [--pairs <n>]

  --quick           a short run to check the bench works (1 s per level, 50,000 aged rows, no waiting)
  --rows <n>        how many earlier issuances age the database (default 1,000,000)
  --duration <s>    measured seconds per level (default 5)
  --warmup <s>      unmeasured seconds before each level's window (default 1; 0.3 with --quick)
  --wallets <list>  concurrency levels (default 1,8,32; 8 with --cpu-prof)
  --formats <list>  credential formats, each measured at every pre-authorized level, one after the other
                    (default sd-jwt,mdoc): sd-jwt is the type's SD-JWT VC configuration, mdoc its
                    <typeId>.mdoc configuration (ISO mdoc; the type is then registered with mdoc: {}).
                    The HAIP rows issue SD-JWT VC only. With --cpu-prof the profile covers every format
                    asked: --formats mdoc profiles mdoc issuance alone
  --pairs <n>       on the fresh database, measure the pre-authorized levels and then the HAIP ones n
                    times over (default 1), and report the HAIP credential's server CPU over the
                    pre-authorized one's for each pair of neighbouring windows, with their median
                    (the machine's speed swings even within a pair: read the median of many short
                    pairs, --duration 2 --warmup 10; later pairs warm up for one second)
  --metrics         serve with metrics on (OPENRAIL_METRICS_TOKEN set), to compare with a run without
  --keys <backend>  where the server keeps its keys (OPENRAIL_KEYS, docs/keys.md): sealed (default), or
                    pkcs11 on a SoftHSM token made for the run under /dev/shm (Debian's softhsm2)
  --tracing         serve with OpenTelemetry tracing on (OTEL_EXPORTER_OTLP_ENDPOINT at a sink of the bench's
                    own that reads and discards every export), to compare with a run without
  --workers <list>  serving processes (openrail serve --workers), each measured at every level
                    (default 1 and the number of cores; 1 with --cpu-prof)
  --engine <name>   only this engine (default: sqlite, and postgres when TEST_DATABASE_URL is set)
  --db-latency <ms> PostgreSQL a network hop away: the bench's proxy between the server and the database
                    adds this round trip (0 to 100, default 0) and counts round trips per credential
  --wait-quiet <s>  before each measurement wait up to <s> s for other processes to drop below 0.15
                    busy cores, and measure a level again (3 tries) when they shared its window
                    (default 30; 0 turns both off). A shared machine understates every rate.
  --cpu-prof        profile the server (node --cpu-prof) over the levels on a fresh database, the HAIP
                    ones too, and summarise its self time in the measured windows only (start-up,
                    warm-ups and set-up left out), then per credential of each grant by group
                    (cryptography, HTTP and schemas, SQL, serialisation, logging, the collector, the
                    rest); no ageing. Setup runs on an unprofiled server first.
  --sql-time        with --cpu-prof on SQLite: also time each statement the profiled server runs
                    (bench/lib/sql-time.mjs, preloaded), and print each grant's dearest statements
                    per credential, warm-ups (and, for the first grant, the server's start)
                    included. The timing wraps every statement, so the profile beside it is a
                    little slower than one without

The SQLite file lives in a fresh directory under os.tmpdir(): TMPDIR=/dev/shm puts it on tmpfs,
which shows what fsync costs. Results go to bench/results/issuance-<timestamp>.json.`;

export function options(argv: string[]): Options {
  const { values, quick, durationS, warmupS, cryptoMs, cpuProf } = parseOptions(argv, USAGE, {
    ...WARMUP_OPTION,
    rows: { type: 'string' },
    wallets: { type: 'string' },
    workers: { type: 'string' },
    engine: { type: 'string' },
    'wait-quiet': { type: 'string' },
    metrics: { type: 'boolean', default: false },
    'db-latency': { type: 'string' },
    keys: { type: 'string' },
    tracing: { type: 'boolean', default: false },
    formats: { type: 'string' },
    'sql-time': { type: 'boolean', default: false },
    pairs: { type: 'string' },
  });
  if (values['sql-time'] === true && !cpuProf) throw new Error('--sql-time goes with --cpu-prof (it times the profiled server)');
  const pairs = Number(values.pairs ?? '1');
  if (!Number.isInteger(pairs) || pairs < 1 || pairs > 20)
    throw new Error(`--pairs takes a whole number from 1 to 20 (got ${values.pairs})`);
  if (pairs > 1 && cpuProf) throw new Error('--pairs goes without --cpu-prof (the profile covers one pair)');
  const keys = values.keys ?? 'sealed';
  if (keys !== 'sealed' && keys !== 'pkcs11') throw new Error(`--keys is sealed or pkcs11 (got ${keys})`);
  const nonNegative = (raw: string, name: string) => {
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a number of seconds (got ${raw})`);
    return n;
  };
  const wallets = positiveIntegers(values.wallets ?? (cpuProf ? '8' : '1,8,32'), 'wallets');
  const workers = positiveIntegers(workersFrom(values.workers, availableParallelism(), cpuProf), 'workers');
  const engines = enginesFrom(values.engine);
  return {
    quick,
    rows: Math.round(positive(values.rows, 'rows', quick ? 50_000 : 1_000_000)),
    durationS,
    warmupS,
    cryptoMs,
    wallets,
    workers,
    engines,
    cpuProf,
    waitQuietS: values['wait-quiet'] === undefined ? (quick ? 0 : 30) : nonNegative(values['wait-quiet'], 'wait-quiet'),
    metrics: values.metrics === true,
    dbLatencyMs: dbLatencyFrom(values['db-latency']),
    keys,
    tracing: values.tracing === true,
    formats: formatsFrom(values.formats),
    sqlTime: values['sql-time'] === true,
    pairs,
  };
}
