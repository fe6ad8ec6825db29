import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';

/**
 * Ages a database by inserting `rows` earlier issuances of one tenant and type directly with
 * set-based SQL, while the server is stopped: issued_credentials rows spread over new status
 * lists of 131072 entries with capacity 65536 (every list full but the newest), and the spent,
 * collected offer behind each credential (columns not named take their defaults: nothing of the
 * tx_code, no reference). Access tokens and nonces are not aged: the server's
 * sweep deletes expired ones at start and every minute, so an aged database never holds many.
 *
 * Status indices are unique within each list: the i-th row of a list gets
 * idx = (i * 40503 + 7919) mod 131072, a bijection because 40503 is odd and i < 65536 < 131072.
 */
export interface AgeSpec {
  tenant: string;
  typeId: string;
  rows: number;
  /** The aged issuances spread over the year before this instant (epoch ms). */
  now: number;
}

export interface AgeResult {
  rows: number;
  lists: number;
  /** The seq of the first aged list (lists 1..firstSeq-1 already existed). */
  firstSeq: number;
  newestAllocated: number;
  seconds: number;
  /** Seconds per step, to see where an ageing run spends its time. */
  steps: Record<string, number>;
}

/** Runs `fn`, recording its duration in seconds under `name`. */
async function timed<T>(steps: Record<string, number>, name: string, fn: () => T | Promise<T>): Promise<T> {
  const t0 = performance.now();
  const value = await fn();
  steps[name] = (performance.now() - t0) / 1000;
  return value;
}

export const LIST_SIZE = 131_072;
export const LIST_CAPACITY = 65_536;
const MULTIPLIER = 40_503;
const OFFSET = 7_919;
const YEAR_MS = 365 * 24 * 3600 * 1000;
/** Every 200th aged credential is revoked (0.5 %), so the revoked index and status lists have content. */
const REVOKED_EVERY = 200;

function plan(spec: AgeSpec, existingMaxSeq: number) {
  const lists = Math.ceil(spec.rows / LIST_CAPACITY);
  const step = Math.max(1, Math.floor(YEAR_MS / spec.rows));
  const start = spec.now - YEAR_MS;
  return {
    lists,
    firstSeq: existingMaxSeq + 1,
    step,
    start,
    newestAllocated: spec.rows - (lists - 1) * LIST_CAPACITY,
    listValues: Array.from({ length: lists }, (_, j) => ({
      seq: existingMaxSeq + 1 + j,
      allocated: j === lists - 1 ? spec.rows - (lists - 1) * LIST_CAPACITY : LIST_CAPACITY,
      createdAt: start + j * LIST_CAPACITY * step,
    })),
  };
}

export function ageSqlite(file: string, spec: AgeSpec): AgeResult {
  const t0 = performance.now();
  const steps: Record<string, number> = {};
  const step = (name: string, fn: () => void) => {
    const s0 = performance.now();
    fn();
    steps[name] = (performance.now() - s0) / 1000;
  };
  const db = new SqliteDatabase(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -262144');
    const existing = db.prepare('select max(seq) as seq from status_lists where tenant = ?').get(spec.tenant) as {
      seq: number | null;
    };
    const p = plan(spec, existing.seq ?? 0);
    const params = {
      rows: spec.rows,
      tenant: spec.tenant,
      type: spec.typeId,
      base: p.firstSeq,
      capacity: LIST_CAPACITY,
      size: LIST_SIZE,
      mult: MULTIPLIER,
      offset: OFFSET,
      start: p.start,
      step: p.step,
      now: spec.now,
      revokedEvery: REVOKED_EVERY,
    };
    const series = 'with recursive n(r) as (select 0 union all select r + 1 from n where r + 1 < @rows)';
    db.exec('begin');
    try {
      const insertList = db.prepare(
        'insert into status_lists (tenant, seq, size, capacity, allocated, created_at) values (?, ?, ?, ?, ?, ?)',
      );
      for (const l of p.listValues) insertList.run(spec.tenant, l.seq, LIST_SIZE, LIST_CAPACITY, l.allocated, l.createdAt);
      step('issued_credentials', () =>
        db
          .prepare(
            `${series}
         insert into issued_credentials (id, tenant, type_id, offer_id, list_seq, idx, holder_thumbprint, issued_at, revoked_at)
         select 'crd_aged' || printf('%09d', r), @tenant, @type, 'off_aged' || printf('%09d', r),
                @base + r / @capacity, ((r % @capacity) * @mult + @offset) % @size,
                substr(hex(randomblob(22)), 1, 43), @start + r * @step,
                case when r % @revokedEvery = 7 then min(@now, @start + r * @step + 86400000) end
         from n`,
          )
          .run(params),
      );
      step('offers', () =>
        db
          .prepare(
            `${series}
         insert into offers (id, tenant, type_id, code_hash, subject, created_at, expires_at, erase_after, redeemed_at, collected_at)
         select 'off_aged' || printf('%09d', r), @tenant, @type, substr(hex(randomblob(22)), 1, 43), null,
                @start + r * @step - 120000, @start + r * @step + 780000, @start + r * @step + 299000,
                @start + r * @step - 1000, @start + r * @step
         from n`,
          )
          .run(params),
      );
      step('commit', () => db.exec('commit'));
    } catch (err) {
      db.exec('rollback');
      throw err;
    }
    step('checkpoint', () => db.pragma('wal_checkpoint(TRUNCATE)'));
    return {
      rows: spec.rows,
      lists: p.lists,
      firstSeq: p.firstSeq,
      newestAllocated: p.newestAllocated,
      seconds: (performance.now() - t0) / 1000,
      steps,
    };
  } finally {
    db.close();
  }
}

/**
 * PostgreSQL: generate_series, the two big tables filled in parallel on two connections (each in
 * its own transaction), then VACUUM ANALYZE as autovacuum would do in time.
 */
export async function agePostgres(url: string, schema: string, spec: AgeSpec): Promise<AgeResult> {
  const t0 = performance.now();
  const steps: Record<string, number> = {};
  const connect = async () => {
    const c = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
    await c.connect();
    return c;
  };
  const a = await connect();
  const b = await connect().catch(async (err) => {
    await a.end();
    throw err;
  });
  try {
    const existing = await a.query<{ seq: number | null }>('select max(seq) as seq from status_lists where tenant = $1', [
      spec.tenant,
    ]);
    const p = plan(spec, Number(existing.rows[0]?.seq ?? 0));
    const inTransaction = async (c: pg.Client, name: string, work: () => Promise<unknown>) => {
      const s0 = performance.now();
      await c.query('begin');
      try {
        await c.query('set local synchronous_commit = off');
        await work();
        await c.query('commit');
      } catch (err) {
        await c.query('rollback').catch(() => undefined);
        throw err;
      }
      steps[name] = (performance.now() - s0) / 1000;
    };
    const credentials = inTransaction(a, 'issued_credentials + status_lists', async () => {
      for (const l of p.listValues) {
        await a.query(
          'insert into status_lists (tenant, seq, size, capacity, allocated, created_at) values ($1, $2, $3, $4, $5, $6)',
          [spec.tenant, l.seq, LIST_SIZE, LIST_CAPACITY, l.allocated, l.createdAt],
        );
      }
      // $1 tenant, $2 type, $3 first seq, $4 start, $5 step, $6 now, $7 rows
      await a.query(
        `insert into issued_credentials (id, tenant, type_id, offer_id, list_seq, idx, holder_thumbprint, issued_at, revoked_at)
         select 'crd_aged' || lpad(r::text, 9, '0'), $1, $2, 'off_aged' || lpad(r::text, 9, '0'),
                $3::int + r / ${LIST_CAPACITY}, ((r % ${LIST_CAPACITY}) * ${MULTIPLIER} + ${OFFSET}) % ${LIST_SIZE},
                substr(md5(random()::text) || md5(random()::text), 1, 43), $4::bigint + r * $5::bigint,
                case when r % ${REVOKED_EVERY} = 7 then least($6::bigint, $4::bigint + r * $5::bigint + 86400000) end
         from generate_series(0::bigint, $7::bigint - 1) as r`,
        [spec.tenant, spec.typeId, p.firstSeq, p.start, p.step, spec.now, spec.rows],
      );
    });
    const offers = inTransaction(b, 'offers', () =>
      b.query(
        `insert into offers (id, tenant, type_id, code_hash, subject, created_at, expires_at, erase_after, redeemed_at, collected_at)
         select 'off_aged' || lpad(r::text, 9, '0'), $1, $2, substr(md5(random()::text) || md5(random()::text), 1, 43), null,
                $3::bigint + r * $4::bigint - 120000, $3::bigint + r * $4::bigint + 780000, $3::bigint + r * $4::bigint + 299000,
                $3::bigint + r * $4::bigint - 1000, $3::bigint + r * $4::bigint
         from generate_series(0::bigint, $5::bigint - 1) as r`,
        [spec.tenant, spec.typeId, p.start, p.step, spec.rows],
      ),
    );
    const settled = await Promise.allSettled([credentials, offers]);
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    await timed(steps, 'vacuum analyze', () =>
      Promise.all([
        a.query('vacuum analyze issued_credentials'),
        b.query('vacuum analyze offers').then(() => b.query('vacuum analyze status_lists')),
      ]),
    );
    return {
      rows: spec.rows,
      lists: p.lists,
      firstSeq: p.firstSeq,
      newestAllocated: p.newestAllocated,
      seconds: (performance.now() - t0) / 1000,
      steps,
    };
  } finally {
    await a.end();
    await b.end();
  }
}

/** Row counts the aged server starts on, for the report. */
export async function countRows(
  target: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; schema: string },
): Promise<Record<string, number>> {
  const wanted = ['issued_credentials', 'offers', 'status_lists', 'access_tokens', 'spent_nonces', 'nonces'];
  const counts: Record<string, number> = {};
  if (target.kind === 'sqlite') {
    const db = new SqliteDatabase(target.file, { readonly: true });
    try {
      const present = new Set(
        (db.prepare("select name from sqlite_master where type = 'table'").all() as Array<{ name: string }>).map((r) => r.name),
      );
      for (const t of wanted.filter((w) => present.has(w))) {
        counts[t] = (db.prepare(`select count(*) as n from ${t}`).get() as { n: number }).n;
      }
    } finally {
      db.close();
    }
    return counts;
  }
  const client = new pg.Client({ connectionString: target.url, options: `-c search_path=${target.schema}` });
  await client.connect();
  try {
    const present = new Set(
      (
        await client.query<{ table_name: string }>('select table_name from information_schema.tables where table_schema = $1', [
          target.schema,
        ])
      ).rows.map((r) => r.table_name),
    );
    for (const t of wanted.filter((w) => present.has(w))) {
      counts[t] = Number((await client.query(`select count(*) as n from ${t}`)).rows[0]?.n);
    }
  } finally {
    await client.end();
  }
  return counts;
}
