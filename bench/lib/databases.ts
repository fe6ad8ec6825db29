import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { MAX_LATENCY_MS, startPgProxy } from '../../test/helpers/pg-proxy.ts';
import { type AgeResult, agePostgres, ageSqlite, countRows } from '../age.ts';
import { within } from './deadline.ts';

export type Engine = 'sqlite' | 'postgres';

/** Ageing 1M rows takes a minute or two; anything far beyond that is a hang. */
const AGE_TIMEOUT_MS = 30 * 60 * 1000;

/** What the server's PostgreSQL backends did over a window (mean counts per sample). */
export interface BackendActivity {
  active: number;
  lockWaits: number;
  idleInTransaction: number;
  samples: number;
  lockWaitsOn: Record<string, number>;
  /** The samples' backends idle inside a transaction, by the statement each ran last (what they had just done). */
  idleAfter: Record<string, number>;
}

/** A database a bench serves from: a fresh SQLite file, or a fresh schema on TEST_DATABASE_URL. */
export interface Database {
  engine: Engine;
  /** DATABASE_URL for the server. */
  url: string;
  age(spec: { tenant: string; typeId: string; rows: number; now: number }): Promise<AgeResult>;
  counts(): Promise<Record<string, number>>;
  /** PostgreSQL: whether the server's tables landed in the bench's schema. */
  verify(): Promise<string | undefined>;
  /** PostgreSQL: samples what the server's backends are doing until stopped. */
  sampler?: () => BackendSampler;
  /**
   * PostgreSQL: the server reaches it through the bench's proxy (test/helpers/pg-proxy.ts), which
   * holds each direction back by half of `dbLatencyMs` and counts the round trips crossing it.
   */
  distance?: { dbLatencyMs: number; roundTrips(): number };
  drop(): Promise<void>;
}

export interface BackendSampler {
  stop(): Promise<BackendActivity>;
}

/** Polls pg_stat_activity for the backends of one application_name. */
function backendSampler(url: string, applicationName: string): BackendSampler {
  const client = new pg.Client({ connectionString: url });
  const totals = { active: 0, lockWaits: 0, idleInTransaction: 0, samples: 0 };
  const lockWaitsOn: Record<string, number> = {};
  const idleAfter: Record<string, number> = {};
  let running = true;
  const loop = (async () => {
    await client.connect();
    while (running) {
      const r = await client.query<{ active: string; lock_waits: string; idle_in_tx: string }>(
        `select count(*) filter (where state = 'active') as active,
                count(*) filter (where wait_event_type = 'Lock') as lock_waits,
                count(*) filter (where state = 'idle in transaction') as idle_in_tx
         from pg_stat_activity where application_name = $1`,
        [applicationName],
      );
      // A backend idle in a transaction shows the statement it ran last: what its transaction did before it waited.
      const waiting = await client.query<{ idle: boolean; what: string; n: string }>(
        `select state = 'idle in transaction' as idle,
                case when state = 'idle in transaction' then '' else wait_event || ': ' end
                  || left(regexp_replace(regexp_replace(query, '\\s+', ' ', 'g'), '\\(\\$[0-9]+(, \\$[0-9]+)*\\)', '(…)', 'g'), 90)
                  as what, count(*) as n
         from pg_stat_activity where application_name = $1 and (wait_event_type = 'Lock' or state = 'idle in transaction')
         group by 1, 2`,
        [applicationName],
      );
      for (const w of waiting.rows) {
        const into = w.idle ? idleAfter : lockWaitsOn;
        into[w.what] = (into[w.what] ?? 0) + Number(w.n);
      }
      const row = r.rows[0];
      totals.active += Number(row?.active ?? 0);
      totals.lockWaits += Number(row?.lock_waits ?? 0);
      totals.idleInTransaction += Number(row?.idle_in_tx ?? 0);
      totals.samples++;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await client.end();
  })();
  return {
    stop: async () => {
      running = false;
      await within(loop, 10_000, 'the PostgreSQL activity sampler to stop');
      const n = Math.max(1, totals.samples);
      return {
        active: totals.active / n,
        lockWaits: totals.lockWaits / n,
        idleInTransaction: totals.idleInTransaction / n,
        samples: totals.samples,
        lockWaitsOn,
        idleAfter,
      };
    },
  };
}

export function sqliteDatabase(dir: string): Database {
  const file = join(dir, 'bench.sqlite');
  return {
    engine: 'sqlite',
    url: `sqlite:${file}`,
    age: async (spec) => ageSqlite(file, spec),
    counts: () => countRows({ kind: 'sqlite', file }),
    verify: async () => undefined,
    drop: async () => undefined,
  };
}

/**
 * A fresh schema on `url`, which the server reaches through a proxy of the bench's own that puts
 * the database `dbLatencyMs` away (a round trip) and counts the round trips (docs/scaling.md).
 * The bench's own work (schema, ageing, counting, sampling) goes to the database directly.
 */
export async function postgresDatabase(url: string, dbLatencyMs = 0): Promise<Database> {
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  // Schema work (create, check, count, drop) is quick; a minute is a dead database.
  const admin = <T>(fn: (c: pg.Client) => Promise<T>) =>
    within(
      (async () => {
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        try {
          return await fn(c);
        } finally {
          await c.end();
        }
      })(),
      60_000,
      `PostgreSQL at ${new URL(url).host} (schema ${schema})`,
    );
  await admin((c) => c.query(`create schema ${schema}`));
  // As test/helpers/databases.ts points a child process at a schema: libpq's options parameter.
  const scoped = new URL(url);
  scoped.searchParams.set('options', `-c search_path=${schema}`);
  // Names the server's connections, so pg_stat_activity can tell them from any other client's.
  scoped.searchParams.set('application_name', `openrail-${schema}`);
  const proxy = await startPgProxy(scoped.toString(), dbLatencyMs);
  return {
    engine: 'postgres',
    url: proxy.url,
    distance: { dbLatencyMs, roundTrips: () => proxy.roundTrips() },
    age: (spec) => within(agePostgres(url, schema, spec), AGE_TIMEOUT_MS, `ageing PostgreSQL schema ${schema}`),
    counts: () => within(countRows({ kind: 'postgres', url, schema }), 120_000, `counting the rows of schema ${schema}`),
    sampler: () => backendSampler(url, `openrail-${schema}`),
    verify: () =>
      admin(async (c) => {
        const r = await c.query(
          "select table_schema from information_schema.tables where table_name = 'issued_credentials' and table_schema = $1",
          [schema],
        );
        return r.rowCount === 1
          ? undefined
          : `DATABASE_URL=${scoped.toString().replace(/:[^:@/]*@/, ':***@')} did not put the server's tables in schema ${schema}`;
      }),
    drop: async () => {
      await proxy.stop();
      await admin((c) => c.query(`drop schema ${schema} cascade`));
    },
  };
}

/** `--db-latency <ms>`: the round trip the proxy adds between the server and PostgreSQL (default 0). */
export function dbLatencyFrom(raw: string | undefined): number {
  if (raw === undefined) return 0;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || n > MAX_LATENCY_MS)
    throw new Error(`--db-latency is 0 to ${MAX_LATENCY_MS} ms (got ${raw})`);
  return n;
}

/** The engines a bench runs on: SQLite, and PostgreSQL when TEST_DATABASE_URL is set; `--engine` picks one. */
export function enginesFrom(option: string | undefined): Engine[] {
  const pgUrl = process.env.TEST_DATABASE_URL;
  if (option === undefined) return pgUrl ? ['sqlite', 'postgres'] : ['sqlite'];
  if (option !== 'sqlite' && option !== 'postgres') throw new Error('--engine is sqlite or postgres');
  if (option === 'postgres' && !pgUrl) throw new Error('--engine postgres needs TEST_DATABASE_URL');
  return [option];
}

/** `--workers`: serving processes to measure; by default one, and one per core. */
export function workersFrom(option: string | undefined, cores: number, single: boolean): string {
  return option ?? (single || cores === 1 ? '1' : `1,${cores}`);
}
