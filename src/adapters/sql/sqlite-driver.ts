import type SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, type DatabaseConnection, type Driver, type QueryResult, SelectQueryNode, SqliteDialect } from 'kysely';
import { endStatement, statementSpan } from '../../core/tracing.ts';
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
}

/**
 * Kysely's SQLite dialect on openrail's own driver, which differs from Kysely's in five ways:
 * - statements are prepared once per SQL text and kept (preparing costs more than running most of ours);
 * - use cases that follow one another on the connection share one transaction, each in a savepoint
 *   of it, and one COMMIT (decision 0016);
 * - that transaction begins IMMEDIATE, taking the write lock at once, so that a second process on
 *   the same file can never invalidate its snapshot half way (SQLITE_BUSY_SNAPSHOT);
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

/** A batch commits after this many use cases, or once it is this old, even while more are waiting. */
const BATCH_USES = 32;
const BATCH_MS = 2;
const UOW = 'openrail_uow';

class OpenrailSqliteDriver implements Driver {
  private readonly connection: SqliteConnection;
  private held = false;
  private readonly queue: Array<() => void> = [];
  private commitScheduled = false;
  /** The open batch's write count when the current holder took the connection. */
  private writesAtAcquire = 0;

  constructor(
    private readonly sqlite: SqliteDatabase.Database,
    private readonly options: SqliteDriverOptions,
  ) {
    this.connection = new SqliteConnection(sqlite, options.wal);
  }

  async init(): Promise<void> {}

  /** SQLite has one connection; callers take turns, first come first served. */
  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.held) await new Promise<void>((resolve) => this.queue.push(resolve));
    this.held = true;
    this.writesAtAcquire = this.connection.batch?.writes ?? 0;
    return this.connection;
  }

  /**
   * The next caller in line gets the connection, inside the open batch. A batch that is full or
   * old commits first; one nobody else is waiting for commits on the next turn of the event loop,
   * so that use cases arriving meanwhile still join it. A caller that wrote in the batch returns
   * once it has committed: a unit of work resolves committed (and an answer waits, besides, for
   * the flush: connect.ts, `settled`).
   */
  async releaseConnection(): Promise<void> {
    const batch = this.connection.batch;
    const wrote = batch !== undefined && batch.writes > this.writesAtAcquire;
    if (batch && (batch.uses >= BATCH_USES || performance.now() - batch.since >= BATCH_MS)) this.connection.commitBatch();
    const next = this.queue.shift();
    if (next) next();
    else {
      this.held = false;
      if (this.connection.batch && !this.commitScheduled) {
        this.commitScheduled = true;
        setImmediate(() => {
          this.commitScheduled = false;
          if (!this.held) this.connection.commitBatch();
        });
      }
    }
    if (wrote) await batch.done;
  }

  /** A use case is a savepoint of the batch transaction (opened, IMMEDIATE, by the first one). */
  async beginTransaction(): Promise<void> {
    await this.connection.openBatch();
    this.connection.control.savepoint.run();
    this.connection.inUseCase = true;
  }

  async commitTransaction(): Promise<void> {
    this.connection.control.release.run();
    this.connection.inUseCase = false;
    this.connection.noteWrite();
  }

  /** Undoes this use case's writes only; the batch goes on. */
  async rollbackTransaction(): Promise<void> {
    if (!this.connection.inUseCase) return;
    this.connection.inUseCase = false;
    this.connection.control.rollbackTo.run();
    this.connection.control.release.run();
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
    if (!this.held) this.connection.commitBatch();
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

interface Batch {
  uses: number;
  since: number;
  writes: number;
  /** Settles when the batch commits, or fails to. */
  done: Promise<void>;
  commit(): void;
  fail(err: Error): void;
}

function newBatch(): Batch {
  let commit = () => {};
  let fail: (err: Error) => void = () => {};
  const done = new Promise<void>((resolve, reject) => {
    commit = resolve;
    fail = reject;
  });
  // Nobody may be waiting (a batch of reads only): an unhandled rejection would end the process.
  done.catch(() => undefined);
  return { uses: 0, since: performance.now(), writes: 0, done, commit, fail };
}

/** Statements that cannot run inside a transaction: the open batch commits first. */
const OUTSIDE_TRANSACTION = /^\s*(pragma\s+wal_checkpoint|vacuum)\b/i;

class SqliteConnection implements DatabaseConnection {
  private readonly statements = new Map<string, Prepared>();
  /** The open batch transaction, while use cases (and statements) are running in it. */
  batch: Batch | undefined;
  /** Whether the holder's use case has its savepoint open (a failed begin has none to undo). */
  inUseCase = false;
  /** The statements that open, split and end the batch, prepared once (exec would parse them each time). */
  readonly control: Record<'begin' | 'commit' | 'savepoint' | 'release' | 'rollbackTo', SqliteDatabase.Statement>;

  constructor(
    private readonly sqlite: SqliteDatabase.Database,
    private readonly wal: WalSync | undefined,
  ) {
    this.control = {
      begin: sqlite.prepare('begin immediate'),
      commit: sqlite.prepare('commit'),
      savepoint: sqlite.prepare(`savepoint ${UOW}`),
      release: sqlite.prepare(`release ${UOW}`),
      rollbackTo: sqlite.prepare(`rollback to ${UOW}`),
    };
  }

  /** Opens the batch transaction if none is open, taking the write lock (waiting for another process). */
  async openBatch(): Promise<void> {
    if (!this.batch) {
      await retryBusy(() => this.begin());
      this.batch = newBatch();
    }
    this.batch.uses++;
  }

  /**
   * BEGIN IMMEDIATE with the batch's savepoint journals held in memory. Each use case's savepoint
   * journals the earlier content of every page it changes (an offer's subject among them); past
   * 64 KiB SQLite would move that journal to an unlinked file under /var/tmp for the rest of the
   * transaction, leaving those bytes in the file system's free space and costing a write per page
   * (docs/deploy.md, "SQLite's temporary files"). SQLite decides where a transaction's savepoint
   * journal lives once, when the transaction takes the write lock, from temp_store then. Sorts
   * decide when they run: temp_store goes back to its default at once, so a large sort still
   * spills to a file rather than growing the process by its whole size. The journal holds the
   * pages of one use case at a time: SQLite empties it when the use case's savepoint is released,
   * which a rolled-back use case's is too (docs/scaling.md, "Memory").
   *
   * The two pragmas are not kept prepared: SQLite applies a pragma's setting while compiling it,
   * and marks the compiled pragma to run once, so a kept one applies nothing on its first run
   * (and recompiles on every later one). That left the first batch of every connection on disk.
   */
  private begin(): void {
    this.sqlite.exec('pragma temp_store = MEMORY');
    try {
      this.control.begin.run();
    } finally {
      this.sqlite.exec('pragma temp_store = DEFAULT');
    }
  }

  noteWrite(): void {
    if (this.batch) this.batch.writes++;
    this.wal?.noteWrite();
  }

  /**
   * Commits the batch: one COMMIT for every use case in it. If the COMMIT fails, none of their
   * writes happened, and the answers waiting for them fail (WalSync.failPending).
   */
  commitBatch(): void {
    const batch = this.batch;
    if (!batch) return;
    this.batch = undefined;
    try {
      this.control.commit.run();
    } catch (err) {
      try {
        if (this.sqlite.inTransaction) this.sqlite.exec('rollback');
      } finally {
        this.wal?.failPending(err as Error);
        batch.fail(err as Error);
      }
      return;
    }
    this.wal?.noteCommit();
    batch.commit();
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const prepared = this.prepare(compiled.sql);
    if (this.batch && OUTSIDE_TRANSACTION.test(compiled.sql)) {
      // Committing here would commit the half of the use case written so far.
      if (this.inUseCase) throw new Error(`${compiled.sql} cannot run inside a unit of work`);
      this.commitBatch();
    }
    const span = statementSpan('sqlite', compiled.sql);
    if (!span) return retryBusy(() => this.run<R>(prepared, compiled.parameters));
    try {
      const result = await retryBusy(() => this.run<R>(prepared, compiled.parameters));
      endStatement(span);
      return result;
    } catch (err) {
      endStatement(span, err);
      throw err;
    }
  }

  private run<R>(prepared: Prepared, parameters: readonly unknown[]): QueryResult<R> {
    const { statement } = prepared;
    if (prepared.reader) {
      const rows = statement.all(parameters) as R[];
      this.wrote(prepared, rows.length);
      return { rows };
    }
    const { changes, lastInsertRowid } = statement.run(parameters);
    this.wrote(prepared, changes);
    return {
      numAffectedRows: BigInt(changes),
      insertId: BigInt(lastInsertRowid),
      rows: [],
    };
  }

  /**
   * Tells the flusher of a write: pending in the open batch, or committed by itself outside one;
   * an INSERT, UPDATE or DELETE that changed no row (a refused conditional write) wrote nothing.
   */
  private wrote(prepared: Prepared, changed: number): void {
    if (!prepared.writes || (prepared.dml && changed === 0)) return;
    if (this.sqlite.inTransaction) this.noteWrite();
    else this.wal?.noteCommit();
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

/**
 * Whether SQLite refused a statement that did nothing because another process holds the lock
 * (SQLITE_BUSY) or is rebuilding the write-ahead log's index after the last connection to the
 * file closed (SQLITE_BUSY_RECOVERY, seen when several workers open the file at once).
 */
export function sqliteBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_RECOVERY';
}

/**
 * Runs `work` at once and, while SQLite answers busy, again every 10 ms for up to five seconds,
 * blocking the thread: only for opening a connection, before anything is served.
 */
export function whileBusySync<T>(work: () => T): T {
  const started = Date.now();
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      return work();
    } catch (err) {
      if (!sqliteBusy(err) || Date.now() - started > BUSY_LIMIT_MS) throw err;
      Atomics.wait(sleeper, 0, 0, 10);
    }
  }
}

/**
 * Runs `work`, again while SQLite answers busy (another process holds the lock, and the
 * statement did nothing), from the event loop, for up to five seconds.
 */
async function retryBusy<T>(work: () => T): Promise<T> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      return work();
    } catch (err) {
      if (!sqliteBusy(err) || Date.now() - started > BUSY_LIMIT_MS) throw err;
      await pause(attempt);
    }
  }
}

/**
 * First retries on the next turn of the event loop, then every millisecond: another process holds
 * the lock for one batch (2 ms at most), and a longer sleep would leave it free and unused. A try
 * costs a few microseconds.
 */
function pause(attempt: number): Promise<void> {
  if (attempt < 3) return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => setTimeout(resolve, 1));
}
