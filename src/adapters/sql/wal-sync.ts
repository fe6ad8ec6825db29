import { closeSync, fdatasync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

/** How a flush reaches the disk: node's fdatasync on the libuv thread pool (a test may watch it). */
export type Flush = (fd: number, done: (err: NodeJS.ErrnoException | null) => void) => void;

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * Group commit for SQLite (docs/decisions/0016-group-commit.md). The connection runs with
 * `synchronous = NORMAL`, so a COMMIT writes its frames to the write-ahead log without waiting for
 * the disk; this class then makes them durable with `fdatasync` on the log, off the event loop,
 * one flush at a time. Commits made while a flush is in flight are covered by the next one, so
 * under load one flush serves many use cases, and the event loop never waits for the disk.
 *
 * Nothing may be told about a commit before the flush that covers it has returned: `settled()`
 * answers once everything committed so far is on disk (the HTTP layer awaits it before every
 * answer). That is what `synchronous = FULL` guarantees, with the fsync moved out of the commit.
 */
export class WalSync {
  private committed = 0;
  private durable = 0;
  /** Writes made in the open transaction, not committed yet. */
  private pending = false;
  private flushing = false;
  private fd: number | undefined;
  private failure: Error | undefined;
  private waiters: Waiter[] = [];

  constructor(
    private readonly walFile: string,
    private readonly flush: Flush = fdatasync,
  ) {}

  /** A write was made in the open transaction: what reads or reports it waits for its commit too. */
  noteWrite(): void {
    this.pending = true;
  }

  /** A write transaction (or an autocommitted write) has just committed. */
  noteCommit(): void {
    this.committed++;
    this.pending = false;
    this.kick();
  }

  /** The open transaction failed to commit: its writes never happened, and who waited for them fails. */
  failPending(err: Error): void {
    this.pending = false;
    const failure = new Error(`a transaction could not be committed: ${err.message}`, { cause: err });
    const waiting = this.waiters.filter((w) => w.seq > this.committed);
    this.waiters = this.waiters.filter((w) => w.seq <= this.committed);
    for (const w of waiting) w.reject(failure);
  }

  /**
   * Undefined when everything committed so far is durable; otherwise a promise that resolves when
   * it is, or rejects when the flush failed (after which nothing is ever reported durable again:
   * the data that failed to reach the disk cannot be vouched for, see "fsyncgate").
   */
  settled(): Promise<void> | undefined {
    if (this.failure) return Promise.reject(this.failure);
    const seq = this.committed + (this.pending ? 1 : 0);
    if (this.durable >= seq) return undefined;
    return new Promise((resolve, reject) => {
      this.waiters.push({ seq, resolve, reject });
    });
  }

  /** Flushes what is pending now and stops; for a process about to close its database. */
  async drain(): Promise<void> {
    await this.settled();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private kick(): void {
    if (this.flushing || this.failure || this.durable >= this.committed) return;
    const target = this.committed;
    let fd: number;
    try {
      fd = this.openLog();
    } catch (err) {
      this.fail(err as Error);
      return;
    }
    this.flushing = true;
    this.flush(fd, (err) => {
      this.flushing = false;
      if (err) {
        this.fail(err);
        return;
      }
      this.durable = target;
      const ready = this.waiters.filter((w) => w.seq <= target);
      if (ready.length > 0) {
        this.waiters = this.waiters.filter((w) => w.seq > target);
        for (const w of ready) w.resolve();
      }
      this.kick();
    });
  }

  /**
   * The log's file descriptor, opened once. SQLite creates the log when the database is first
   * written in WAL mode and keeps it while any connection is open (ours is), truncating it in
   * place; so one descriptor stays valid. When it is first opened, the directory is synced too, so
   * that the log's own name survives a power loss (as SQLite does for a new journal).
   */
  private openLog(): number {
    if (this.fd !== undefined) return this.fd;
    const fd = openSync(this.walFile, 'r');
    const dir = openSync(dirname(this.walFile), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
    this.fd = fd;
    return fd;
  }

  private fail(err: Error): void {
    this.failure = new Error(`the SQLite write-ahead log could not be flushed to disk: ${err.message}`, { cause: err });
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.reject(this.failure);
  }
}
