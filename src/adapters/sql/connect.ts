import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresAdapter, sql } from 'kysely';
import type pg from 'pg';
import type { DatabaseLocation } from '../../config/config.ts';
import { ServiceError } from '../../core/errors.ts';
import { whenFirstUsed } from '../../core/lazy-package.ts';
import { endStatement, statementSpan } from '../../core/tracing.ts';
import type { DiskState } from '../../ports/account-erasure-store.ts';
import { ambient, commitUnknown } from './ambient.ts';
import { migrationProvider } from './migrations/index.ts';
import { SchemaScopedPostgresDialect } from './pg-introspector.ts';
import type { Database } from './schema.ts';
import { OpenrailSqliteDialect, whileBusySync } from './sqlite-driver.ts';
import { preparedName } from './statement.ts';
import { WalCheckpointer } from './wal-checkpointer.ts';
import { type Flush, WalSync } from './wal-sync.ts';

/** PostgreSQL's driver, loaded only when a database is on PostgreSQL. */
export const driver = whenFirstUsed<typeof pg>('pg');

export type Db = Kysely<Database>;

/** Whether `db` talks to PostgreSQL (row locks, FOR UPDATE and the like, are taken there only). */
export const onPostgres = (db: Db): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

export interface OpenOptions {
  /** PostgreSQL only: the schema to work in (tests give each suite its own). */
  schema?: string;
  /**
   * PostgreSQL only: settings for every session, as `-c name=value` (a test imposes a server
   * timeout with it). With neither this nor `schema`, node-postgres reads PGOPTIONS as libpq does.
   */
  settings?: Record<string, string>;
  poolSize?: number;
  /** SQLite only: how the write-ahead log is flushed (default fdatasync; a test may watch it). */
  flush?: Flush;
}

const INT8_OID = 20;

/**
 * Opens the database. The handle is ambient (ambient.ts, decision 0020): from inside a
 * transaction's work it is that transaction.
 */
export function openDatabase(location: DatabaseLocation, options: OpenOptions = {}): Db {
  if (location.kind === 'sqlite') return openSqlite(location.file, options);
  const pool = new (driver().Pool)({
    connectionString: location.url,
    max: options.poolSize ?? 10,
    // A database that does not answer a new connection is unreachable: requests then fail with
    // 503 database_unavailable instead of waiting for the network (docs/scaling.md).
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    // bigint columns hold epoch milliseconds, well inside Number's exact range.
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === INT8_OID
          ? (v: string) => Number(v)
          : driver().types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
    ...sessionOptions(options),
  });
  pool.on('connect', prepareStatements);
  // An idle connection the server ends (a restart, a terminated backend) is dropped from the pool
  // and the next query opens another; unheard, the pool's error would end the process.
  pool.on('error', () => undefined);
  const reachable = { connect: () => pool.connect().catch(unreachable), end: () => pool.end() };
  const db = ambient(new Kysely<Database>({ dialect: new SchemaScopedPostgresDialect({ pool: reachable }) }));
  pools.set(db, pool);
  return db;
}

/** The start-up `options` of each PostgreSQL session: its schema and settings, if any. */
function sessionOptions(options: OpenOptions): { options?: string } {
  const settings = { ...options.settings, ...(options.schema ? { search_path: options.schema } : {}) };
  const text = Object.entries(settings)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');
  return text ? { options: text } : {};
}

/** How long a new PostgreSQL connection may take, or the wait for a free one of the pool. */
export const CONNECT_TIMEOUT_MS = 5000;

/** Node's codes of a connection that failed or broke, and PostgreSQL's SQLSTATEs of one (class 08, a shut-down server). */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
]);
/**
 * Class 08 (connection exceptions), a server shutting down (57P01-03), and 25006: a write sent to
 * a standby, which is what a client of a failing-over cluster meets for a moment after the proxy
 * already routes to the node being promoted, or before it stops routing to a demoted one.
 */
const UNREACHABLE_SQLSTATE = /^(08...|57P0[123]|25006)$/;
/** node-postgres's own messages for a connection it lost or could not make in time. */
const UNREACHABLE_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/** Whether `err` says the database could not be reached (rather than refusing a statement). */
export function isUnreachable(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return (
    (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || UNREACHABLE_SQLSTATE.test(code))) ||
    (typeof message === 'string' && UNREACHABLE_MESSAGE.test(message))
  );
}

/** Rethrows a failure to reach the database as 503 database_unavailable; anything else as it was. */
function unreachable(err: unknown): never {
  if (isUnreachable(err)) {
    throw new ServiceError('database_unavailable', undefined, { headers: { 'retry-after': '5' }, cause: err });
  }
  throw err;
}

/** Statements that change nothing on their own, so that their failure leaves nothing made. */
const CHANGES_NOTHING = /^\s*(select|show|values|begin|rollback|savepoint|set)\b/i;

/**
 * What a lost connection means for the statement it lost (docs/high-availability.md, "What a
 * client sees"): a COMMIT, or a write sent on its own (autocommit), may have been applied before
 * the answer was lost, so it is `commit_unknown`; anything else inside a transaction, or a read,
 * changed nothing, so it is `database_unavailable`, safe to run again.
 */
function lostUnder(statement: string, inTransaction: boolean): (err: unknown) => never {
  const mayHaveCommitted = /^\s*commit\b/i.test(statement) || (!inTransaction && !CHANGES_NOTHING.test(statement));
  return (err) => {
    if (mayHaveCommitted && unanswered(err)) throw commitUnknown(err);
    return unreachable(err);
  };
}

/**
 * A connection that broke with no answer from the server. An error the server sent (a SQLSTATE:
 * a standby's 25006, a shutdown's 57P01) is an answer: the statement was not done.
 */
const unanswered = (err: unknown) => {
  const { code } = (err ?? {}) as { code?: unknown };
  return isUnreachable(err) && !(typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code));
};

const pools = new WeakMap<Db, pg.Pool>();

/** A PostgreSQL handle's pool (undefined on SQLite), for work that needs one connection of its own. */
export const poolOf = (db: Db): pg.Pool | undefined => pools.get(db);

/** A PostgreSQL handle's pool: connections open, idle, and requests waiting for one (undefined on SQLite). */
export function poolStats(db: Db): { open: number; idle: number; waiting: number } | undefined {
  const pool = pools.get(db);
  return pool && { open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
}

/**
 * The hot paths' statements (statement.ts) are prepared once per connection: a query whose text is
 * a Statement's goes out under the Statement's name, so PostgreSQL parses and plans it on first
 * use only. Any other text goes out unnamed, as Kysely sends it.
 */
function prepareStatements(client: pg.PoolClient): void {
  // A connection that breaks (the database restarted, the network cut) makes its client emit
  // 'error' whether or not a statement is running; the statement itself fails with the error, and
  // the pool drops the client. Unheard, the event would end the process.
  client.on('error', () => undefined);
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  // Whether the connection is inside a transaction Kysely opened (its BEGIN, COMMIT and ROLLBACK
  // come through here like every statement).
  let inTransaction = false;
  const named = (text: unknown, values: unknown, ...rest: unknown[]) => {
    const name = typeof text === 'string' && Array.isArray(values) ? preparedName(text) : undefined;
    const sent = name ? query({ name, text, values }, ...rest) : query(text, values, ...rest);
    if (!(sent instanceof Promise)) return sent;
    const statement = typeof text === 'string' ? text : '';
    const span = statementSpan('postgresql', statement);
    if (/^\s*begin\b/i.test(statement)) inTransaction = true;
    const within = inTransaction;
    if (/^\s*(commit|rollback)\b/i.test(statement)) inTransaction = false;
    // A connection lost under a statement: PostgreSQL rolls an open transaction back; the caller hears 503.
    const answered = sent.catch(lostUnder(statement, within));
    return span
      ? answered.then(
          (result) => {
            endStatement(span);
            return result;
          },
          (err: unknown) => {
            endStatement(span, err);
            throw err;
          },
        )
      : answered;
  };
  client.query = named as typeof client.query;
}

const flushers = new WeakMap<Db, WalSync>();

/** The SQLite connection's page cache, in KiB. */
const PAGE_CACHE_KIB = 2000;

function openSqlite(file: string, options: OpenOptions): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new SqliteDatabase(file, { timeout: 0 });
  // Every setting is idempotent, so all are made again while another process holds the file's
  // lock or rebuilds its log's index (several workers starting at once).
  whileBusySync(() => {
    sqlite.pragma('journal_mode = WAL');
    // NORMAL: a COMMIT does not wait for the disk; WalSync flushes the log off the event loop and
    // every answer waits for that flush, which is what FULL would give (decision 0016).
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    // A second process holding the write lock is waited for by the driver, from the event loop.
    sqlite.pragma('busy_timeout = 0');
    // Deleted and overwritten content is zeroed in the file rather than left in free space, so an
    // erased offer subject is gone from the database file once its page is written back
    // (docs/offers.md, erasure; dropFreedBytes below does that for the write-ahead log).
    sqlite.pragma('secure_delete = ON');
    // SQLite's own default page cache, 2 MB, not the 16 MB better-sqlite3 is built with: a page not
    // held here is read again from the kernel's file cache, which a process's resident set does not
    // count (docs/scaling.md, "Memory").
    sqlite.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  });
  const onDisk = file !== ':memory:';
  const wal = onDisk ? new WalSync(`${file}-wal`, options.flush) : undefined;
  let checkpointer: WalCheckpointer | undefined;
  if (onDisk) {
    sqlite.pragma('wal_autocheckpoint = 0');
    checkpointer = new WalCheckpointer(file, () => {
      if (sqlite.open) sqlite.pragma('wal_autocheckpoint = 1000');
    });
  }
  const db = ambient(
    new Kysely<Database>({
      dialect: new OpenrailSqliteDialect(sqlite, { ...(wal ? { wal } : {}), ...(checkpointer ? { checkpointer } : {}) }),
    }),
  );
  if (wal) flushers.set(db, wal);
  return db;
}

/**
 * Undefined when every write committed on `db` so far is durable; else a promise of it. Nothing
 * that a write decided, or that a read saw, may be answered before (decision 0016). PostgreSQL
 * makes a commit durable before anyone can see it, so there it is always undefined.
 */
export function settled(db: Db): Promise<void> | undefined {
  return flushers.get(db)?.settled();
}

/**
 * Applies pending migrations. On PostgreSQL Kysely holds an advisory lock, so concurrent starts
 * are serialised. SQLite has no lock across connections and runs DDL outside the migration
 * transaction: when a concurrent start is applying the same migrations, ours fails on "already
 * exists", and we wait for the other start to record them. `upTo` (tests of a migration's data
 * step) stops after the migration of that name.
 */
export async function migrate(db: Db, upTo?: string): Promise<void> {
  // On PostgreSQL Kysely's bookkeeping tables are pinned to our schema, and it looks for them
  // through an introspector that reads no other (pg-introspector.ts).
  const schema =
    db.getExecutor().adapter instanceof PostgresAdapter
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({ db, provider: migrationProvider, ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error, results } = await (upTo === undefined ? migrator.migrateToLatest() : migrator.migrateTo(upTo));
  if (!error) return;
  const failed = results?.find((r) => r.status === 'Error');
  if (upTo !== undefined) throw new Error(`migration ${failed?.migrationName ?? upTo} failed`, { cause: error });
  for (let wait = 0; wait < 50; wait++) {
    const state = await migrator.getMigrations().catch(() => []);
    if (state.length > 0 && state.every((m) => m.executedAt !== undefined)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed`, { cause: error });
}

/**
 * Makes erasure reach the disk on SQLite: a checkpoint copies every page changed since the last
 * one (with its erased content zeroed, see secure_delete) over the old page in the database
 * file, and TRUNCATE empties the write-ahead log, which still holds the pages as they were
 * before. On PostgreSQL old row versions stay in the table files until VACUUM reclaims them and
 * in WAL segments until they are recycled (docs/offers.md); nothing is done here. Answers what
 * was done: `zeroed`, `pending` (the checkpoint could not finish), `not-checked` (PostgreSQL).
 */
export async function dropFreedBytes(db: Db): Promise<DiskState> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return 'not-checked';
  for (let attempt = 1; ; attempt++) {
    const { rows } = await sql<{ busy: number }>`pragma wal_checkpoint(TRUNCATE)`.execute(db);
    // busy: a reader (another process on the file) held pages the checkpoint could not copy yet,
    // or the checkpointer's own thread (wal-checkpointer.ts) was copying them: a moment later
    // the second is done.
    if (Number(rows[0]?.busy ?? 1) === 0) return 'zeroed';
    if (attempt === TRUNCATE_ATTEMPTS) return 'pending';
    await new Promise((resolve) => setTimeout(resolve, TRUNCATE_RETRY_MS));
  }
}

/** How often dropFreedBytes tries, and how long apart, before it answers `pending`. */
const TRUNCATE_ATTEMPTS = 5;
const TRUNCATE_RETRY_MS = 20;
