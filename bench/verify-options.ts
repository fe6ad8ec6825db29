// The verification bench's options (npm run bench -- verify --help).
import { availableParallelism } from 'node:os';
import { dbLatencyFrom, type Engine, enginesFrom, workersFrom } from './lib/databases.ts';
import { type Format, formatsFrom } from './lib/formats.ts';
import { type CommonOptions, parseOptions, positive, positiveIntegers, WARMUP_OPTION } from './lib/options.ts';

/** The project's target: the reference verifier at least this many times the peer's rate, same presentations, same run. */
export const TARGET_RATIO = 3;
export const POOL_SIZE = 64;
/** Twice the reference verifier's KeyObject cache (1024): every holder key is a miss, as with real traffic. */
export const COLD_POOL_SIZE = 2048;
export const COLD_PEER_CHECKED = 128;
/** More holders than the verifier keeps public keys for (1024): each presentation's key is new to it, as in real traffic. */
export const HELD_CREDENTIALS = 1500;

export interface Options extends CommonOptions {
  /** In-process measurements are split into this many interleaved windows per variant. */
  windows: number;
  concurrency: number[];
  workers: number[];
  engines: Engine[];
  /** Earlier issuances the aged database holds. */
  rows: number;
  /** Credentials the hosted wallets hold and present in turn. */
  held: number;
  hosted: boolean;
  /** PostgreSQL: the round trip added between the server and the database (--db-latency). */
  dbLatencyMs: number;
  /** The credential formats presented at each hosted level (--formats). */
  formats: Format[];
}

const USAGE = `npm run bench -- verify [--quick] [--duration <s>] [--warmup <s>] [--concurrency <list>] [--workers <list>] [--engine sqlite|postgres]
                             [--db-latency <ms>] [--rows <n>] [--no-hosted] [--cpu-prof] [--formats sd-jwt,mdoc]

  --quick              a short run to check the bench works (about a minute)
  --duration <s>       measured seconds per in-process verifier and per hosted level (default 5; 1 with --quick)
  --warmup <s>         unmeasured seconds before each (default 1; 0.3 with --quick)
  --concurrency <list> hosted verification: wallets running transactions at once (default 1,8,32; 8 with --quick)
  --workers <list>     serving processes (openrail serve --workers), each measured at every level
                       (default 1 and the number of cores; 1 with --cpu-prof)
  --engine <name>      hosted on this engine only (default: sqlite, and postgres when TEST_DATABASE_URL is set)
  --db-latency <ms>    PostgreSQL a network hop away: the bench's proxy between the server and the database adds
                       this round trip (0 to 100, default 0) and counts round trips per transaction
  --rows <n>           earlier issuances of the aged database (default 1,000,000; 50,000 with --quick)
  --formats <list>     hosted: the formats presented, each at every level and profile, one after the other
                       (default sd-jwt,mdoc): sd-jwt an SD-JWT VC with a KB-JWT; mdoc a DeviceResponse to a request
                       with format mso_mdoc, the type then registered with mdoc: {} and ${HELD_CREDENTIALS} mdocs issued too.
                       With --cpu-prof the profile covers every format asked: --formats mdoc profiles mdoc alone
  --no-hosted          only the in-process verifiers and the ES256 rate
  --cpu-prof           profile the hosted server (node --cpu-prof, fresh database, one process) and summarise its self time
                       in the measured windows only (start-up, warm-ups and set-up left out), then per transaction of
                       each profile and format by group (cryptography, HTTP and schemas, SQL, serialisation, logging,
                       the collector, the rest)

In process (one thread): the reference verifier (src/core/verifier, synchronous) and the peer,
@sd-jwt/sd-jwt-vc 0.19.0 SDJwtVcInstance.verify with key binding, on the same ${POOL_SIZE} presentations,
in interleaved windows; then both again on ${COLD_POOL_SIZE} presentations of distinct holders (no key
cache hit). Hosted: the real server (a fresh SQLite file or PostgreSQL schema), credentials issued
over the rail to ${HELD_CREDENTIALS} holders, whole OID4VP transactions over HTTP, on the fresh database and
after ageing it. Results go to bench/results/verify-<timestamp>.json.`;

export function options(argv: string[]): Options {
  const { values, quick, durationS, warmupS, cryptoMs, cpuProf } = parseOptions(argv, USAGE, {
    ...WARMUP_OPTION,
    concurrency: { type: 'string' },
    workers: { type: 'string' },
    engine: { type: 'string' },
    rows: { type: 'string' },
    'no-hosted': { type: 'boolean', default: false },
    'db-latency': { type: 'string' },
    formats: { type: 'string' },
  });
  return {
    quick,
    durationS,
    warmupS,
    windows: quick ? 2 : 5,
    cryptoMs,
    concurrency: positiveIntegers(values.concurrency ?? (quick ? '8' : '1,8,32'), 'concurrency'),
    workers: positiveIntegers(workersFrom(values.workers, availableParallelism(), cpuProf), 'workers'),
    engines: enginesFrom(values.engine),
    rows: Math.round(positive(values.rows, 'rows', quick ? 50_000 : 1_000_000)),
    held: HELD_CREDENTIALS,
    hosted: values['no-hosted'] !== true,
    cpuProf,
    dbLatencyMs: dbLatencyFrom(values['db-latency']),
    formats: formatsFrom(values.formats),
  };
}
