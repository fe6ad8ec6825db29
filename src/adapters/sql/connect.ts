import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  Kysely,
  Migrator,
  PostgresAdapter,
  PostgresDialect,
  SqliteDialect,
  type SqliteDatabase as SqliteDialectDatabase,
  sql,
} from 'kysely';
import pg from 'pg';
import type { DatabaseLocation } from '../../config/config.ts';
import { migrationProvider } from './migrations/index.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;

export interface OpenOptions {
  /** PostgreSQL only: the schema to work in (tests give each suite its own). */
  schema?: string;
  poolSize?: number;
  /**
   * SQLite only: make a query that would deadlock on the transaction's connection fail at once
   * (see `holdingConnection`). It costs every request a little (AsyncLocalStorage), so the tests
   * turn it on and a deployment does not.
   */
  guardTransactions?: boolean;
}

const INT8_OID = 20;

export function openDatabase(location: DatabaseLocation, options: OpenOptions = {}): Db {
  if (location.kind === 'sqlite') {
    if (location.file !== ':memory:') mkdirSync(dirname(location.file), { recursive: true });
    const sqlite = new SqliteDatabase(location.file);
    sqlite.pragma('journal_mode = WAL');
    // FULL makes a committed transaction durable across power loss, not only process crashes.
    sqlite.pragma('synchronous = FULL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    // Deleted and overwritten content is zeroed in the file rather than left in free space, so an
    // erased offer subject is gone from the database file once its page is written back
    // (docs/offers.md, erasure; dropFreedBytes below does that for the write-ahead log).
    sqlite.pragma('secure_delete = ON');
    const config = { database: withStatementCache(sqlite) };
    if (!options.guardTransactions) return new Kysely<Database>({ dialect: new SqliteDialect(config) });
    const token = {};
    const db = new Kysely<Database>({ dialect: new GuardedSqliteDialect(config, token) });
    connectionTokens.set(db, token);
    return db;
  }
  const pool = new pg.Pool({
    connectionString: location.url,
    max: options.poolSize ?? 10,
    // bigint columns hold epoch milliseconds, well inside Number's exact range.
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === INT8_OID
          ? (v: string) => Number(v)
          : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/**
 * SQLite has one connection, which a transaction holds until it ends. A query on the root
 * database from inside that transaction's own work waits for the connection forever, and every
 * request after it waits behind it: the service hangs. With `guardTransactions` (the tests),
 * `holdingConnection` marks the work of a transaction, and such a query fails at once, naming the
 * mistake, instead of hanging.
 * (PostgreSQL has a pool, so the same query would run, outside the transaction: still a mistake,
 * but not a hang; it is not caught here.)
 */
const holder = new AsyncLocalStorage<object>();
const connectionTokens = new WeakMap<Db, object>();

/** Runs the work of a transaction on `db`, marked as holding its connection (see above). */
export function holdingConnection<T>(db: Db, work: () => Promise<T>): Promise<T> {
  const token = connectionTokens.get(db);
  return token ? holder.run(token, work) : work();
}

class GuardedSqliteDialect extends SqliteDialect {
  constructor(
    config: ConstructorParameters<typeof SqliteDialect>[0],
    private readonly token: object,
  ) {
    super(config);
  }

  override createDriver() {
    const driver = super.createDriver();
    const acquire = driver.acquireConnection.bind(driver);
    driver.acquireConnection = async () => {
      if (holder.getStore() === this.token) {
        throw new Error(
          'a query on the database from inside a transaction, outside it: it would wait forever (use the unit of work’s stores)',
        );
      }
      return acquire();
    };
    return driver;
  }
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query afresh; preparing costs more than running most of ours. Statements
 * are reusable, and Kysely runs one query at a time on its single SQLite connection, so a prepared
 * statement is kept per SQL text (bounded; the oldest is dropped first).
 */
function withStatementCache(sqlite: SqliteDatabase.Database): SqliteDialectDatabase {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => sqlite.close(),
    prepare: (text: string) => {
      let statement = cache.get(text);
      if (!statement) {
        statement = sqlite.prepare(text);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
        cache.set(text, statement);
      }
      return statement;
    },
  };
}

/**
 * Applies pending migrations. On PostgreSQL Kysely holds an advisory lock, so concurrent starts
 * are serialised. SQLite has no lock across connections and runs DDL outside the migration
 * transaction: when a concurrent start is applying the same migrations, ours fails on "already
 * exists", and we wait for the other start to record them.
 */
export async function migrate(db: Db): Promise<void> {
  // On PostgreSQL Kysely would look for its bookkeeping tables in every schema and be misled by
  // another application's (or another openrail's) in the same database: pin them to ours.
  const schema =
    db.getExecutor().adapter instanceof PostgresAdapter
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({ db, provider: migrationProvider, ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (!error) return;
  for (let wait = 0; wait < 50; wait++) {
    const state = await migrator.getMigrations().catch(() => []);
    if (state.length > 0 && state.every((m) => m.executedAt !== undefined)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  const failed = results?.find((r) => r.status === 'Error');
  throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed`, { cause: error });
}

/**
 * Makes erasure reach the disk on SQLite: a checkpoint copies every page changed since the last
 * one (with its erased content zeroed, see secure_delete) over the old page in the database
 * file, and TRUNCATE empties the write-ahead log, which still holds the pages as they were
 * before. On PostgreSQL old row versions stay in the table files until VACUUM reclaims them and
 * in WAL segments until they are recycled (docs/offers.md); nothing is done here.
 */
export async function dropFreedBytes(db: Db): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
}
