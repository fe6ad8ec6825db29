import type SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, type DatabaseConnection, type Driver, type QueryResult, SelectQueryNode, SqliteDialect } from 'kysely';
import type { WalCheckpointer } from './wal-checkpointer.ts';
import type { WalSync } from './wal-sync.ts';

const STATEMENT_CACHE_SIZE = 500;
/** How long a statement keeps retrying while another process holds the write lock. */
const BUSY_LIMIT_MS = 5000;

export interface SqliteDriverOptions {
  /** Makes every durable-before-answer promise (decision 0016); absent for `:memory:`. */
  wal?: WalSync;
  /** Runs checkpoints on its own thread; stopped before the connection closes. */
  checkpointer?: WalCheckpointer;
  /** Refuses a query issued from inside a transaction's own work (connect.ts, holdingConnection). */
  insideTransaction?: () => boolean;
}

/**
 * Kysely's SQLite dialect on openrail's own driver, which differs from Kysely's in four ways:
 * - statements are prepared once per SQL text and kept (preparing costs more than running most of ours);
 * - a transaction begins IMMEDIATE, taking the write lock at once, so that a second process on the
 *   same file can never invalidate its snapshot half way (SQLITE_BUSY_SNAPSHOT);
 * - a statement that finds the file locked by another process is retried from the event loop,
 *   never by SQLite sleeping on it (busy_timeout is 0), for up to five seconds;
 * - every commit is reported to the write-ahead-log flusher (WalSync), which makes it durable, and
 *   checkpoints run on a thread of their own (WalCheckpointer).
 */
export class OpenrailSqliteDialect extends SqliteDialect {
  constructor(
    private readonly sqlite: SqliteDatabase.Database,
    private readonly options: SqliteDriverOptions,
  ) {
    super({ database: sqlite });
  }

  override createDriver(): Driver {
    return new OpenrailSqliteDriver(this.sqlite, this.options);
  }
}

class OpenrailSqliteDriver implements Driver {
  private readonly connection: SqliteConnection;
  private held = false;
  private readonly queue: Array<() => void> = [];

  constructor(
    private readonly sqlite: SqliteDatabase.Database,
    private readonly options: SqliteDriverOptions,
  ) {
    this.connection = new SqliteConnection(sqlite, options.wal);
  }

  async init(): Promise<void> {}

  /** SQLite has one connection; callers take turns, first come first served. */
  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.options.insideTransaction?.()) {
      throw new Error(
        'a query on the database from inside a transaction, outside it: it would wait forever (use the unit of work’s stores)',
      );
    }
    if (this.held) await new Promise<void>((resolve) => this.queue.push(resolve));
    this.held = true;
    return this.connection;
  }

  async releaseConnection(): Promise<void> {
    const next = this.queue.shift();
    if (next) next();
    else this.held = false;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(): Promise<void> {
    // A rollback writes nothing that needs flushing.
    if (this.sqlite.inTransaction) this.sqlite.exec('rollback');
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoted(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to ${quoted(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release ${quoted(name)}`));
  }

  async destroy(): Promise<void> {
    await this.options.wal?.drain();
    await this.options.checkpointer?.stop();
    this.sqlite.close();
  }
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

interface Prepared {
  statement: SqliteDatabase.Statement;
  reader: boolean;
  /** Whether it can change the database by itself (a write, DDL, a pragma; not begin or commit). */
  writes: boolean;
  /** INSERT, UPDATE or DELETE: its change count says whether it wrote. */
  dml: boolean;
}

class SqliteConnection implements DatabaseConnection {
  private readonly statements = new Map<string, Prepared>();

  constructor(
    private readonly sqlite: SqliteDatabase.Database,
    private readonly wal: WalSync | undefined,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const prepared = this.prepare(compiled.sql);
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      try {
        return this.run<R>(prepared, compiled.parameters);
      } catch (err) {
        // SQLITE_BUSY: another process holds the lock and the statement did nothing; try again soon.
        if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() - started > BUSY_LIMIT_MS) throw err;
        await pause(attempt);
      }
    }
  }

  private run<R>(prepared: Prepared, parameters: readonly unknown[]): QueryResult<R> {
    const { statement } = prepared;
    const inTransaction = this.sqlite.inTransaction;
    if (prepared.reader) {
      const rows = statement.all(parameters) as R[];
      this.committed(prepared, inTransaction, rows.length);
      return { rows };
    }
    const { changes, lastInsertRowid } = statement.run(parameters);
    this.committed(prepared, inTransaction, changes);
    return {
      numAffectedRows: BigInt(changes),
      insertId: BigInt(lastInsertRowid),
      rows: [],
    };
  }

  /**
   * Tells the flusher when a statement committed something: the end of a transaction (COMMIT,
   * which SQLite counts as read-only), or a write outside one, unless it is an INSERT, UPDATE or
   * DELETE that changed no row (a refused conditional write leaves nothing to flush).
   */
  private committed(prepared: Prepared, wasInTransaction: boolean, changed: number): void {
    if (this.sqlite.inTransaction) return;
    if (wasInTransaction || (prepared.writes && (!prepared.dml || changed > 0))) this.wal?.noteCommit();
  }

  async *streamQuery<R>(compiled: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(compiled.query)) throw new Error('SQLite streams select queries only');
    const { statement } = this.prepare(compiled.sql);
    for (const row of statement.iterate(compiled.parameters)) yield { rows: [row as R] };
  }

  private prepare(text: string): Prepared {
    let prepared = this.statements.get(text);
    if (!prepared) {
      const statement = this.sqlite.prepare(text);
      prepared = {
        statement,
        reader: statement.reader,
        writes: !statement.readonly,
        dml: /^\s*(insert|update|delete|replace)\b/i.test(text),
      };
      if (this.statements.size >= STATEMENT_CACHE_SIZE) this.statements.delete(this.statements.keys().next().value as string);
      this.statements.set(text, prepared);
    }
    return prepared;
  }
}

/** First retries on the next turn of the event loop, then after 1, 2, 4 … 16 ms. */
function pause(attempt: number): Promise<void> {
  if (attempt < 3) return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => setTimeout(resolve, Math.min(16, 2 ** (attempt - 3))));
}
