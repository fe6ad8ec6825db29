import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** A checkpoint is run once the write-ahead log has grown by this much (SQLite's own default). */
const CHECKPOINT_BYTES = 4 * 1024 * 1024;
const POLL_MS = 100;

/*
 * The thread's program, plain JavaScript (it runs without the TypeScript loader). Its own
 * connection copies committed pages from the log into the database file (PASSIVE: it never waits
 * for, or blocks, a writer or reader) and syncs both files.
 */
const PROGRAM = `
const { workerData } = require('node:worker_threads');
const { statSync } = require('node:fs');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: 0 });
db.pragma('synchronous = NORMAL');
let checkpoint;
let checkpointedAt = 0;
setInterval(() => {
  let size = 0;
  try { size = statSync(workerData.file + '-wal').size; } catch { return; }
  if (size < checkpointedAt) checkpointedAt = 0;
  if (size - checkpointedAt < workerData.bytes && size < workerData.bytes) return;
  try {
    checkpoint ??= db.prepare('pragma wal_checkpoint(PASSIVE)');
    checkpoint.get();
    checkpointedAt = size;
  } catch { /* busy: the next tick tries again */ }
}, workerData.pollMs);
`;

/**
 * Moves SQLite's checkpoints off the event loop. By default SQLite checkpoints inside the COMMIT
 * that pushes the log past 1,000 pages: that commit copies the pages and syncs two files while
 * every request waits. The serving connection turns automatic checkpoints off
 * (`wal_autocheckpoint = 0`), and this thread checkpoints instead. If the thread ever stops, the
 * serving connection checkpoints for itself again, so the log cannot grow without bound.
 */
export class WalCheckpointer {
  private readonly worker: Worker;
  private stopped = false;

  constructor(file: string, onStop: () => void) {
    this.worker = new Worker(PROGRAM, {
      eval: true,
      workerData: {
        file,
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        bytes: CHECKPOINT_BYTES,
        pollMs: POLL_MS,
      },
    });
    this.worker.unref();
    this.worker.on('error', () => undefined);
    this.worker.on('exit', () => {
      if (!this.stopped) onStop();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.worker.terminate();
  }
}
