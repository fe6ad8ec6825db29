import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { DatabaseLocation } from '../../../config/config.ts';
import { ServiceError } from '../../../core/errors.ts';
import type { BackupEngine, ScratchDatabase } from '../../../ports/backup-engine.ts';
import { fileDigest } from '../../fs/file-digest.ts';
import { contentsOf, restoredContents } from './contents.ts';

/*
 * The backup thread's program, plain JavaScript (it runs without the TypeScript loader). Its own
 * read-only connection copies every page of one snapshot through SQLite's online backup API in a
 * single step, so writers that commit meanwhile neither wait nor restart it (in WAL mode a reader
 * never blocks a writer). The copy is turned into a single self-contained file (rollback journal),
 * and then answers the statements it is sent, read-only, until it is told to close.
 */
const PROGRAM = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
let copy;
parentPort.on('message', async (m) => {
  try {
    if (m.op === 'backup') {
      const source = new Database(workerData.source, { readonly: true, fileMustExist: true, timeout: 5000 });
      try { await source.backup(workerData.target, { progress: () => 0x7fffffff }); } finally { source.close(); }
      copy = new Database(workerData.target, { fileMustExist: true });
      copy.pragma('journal_mode = DELETE');
      parentPort.postMessage({ id: m.id, ok: true });
    } else if (m.op === 'query') {
      parentPort.postMessage({ id: m.id, ok: true, rows: copy.prepare(m.text).all() });
    } else if (m.op === 'close') {
      if (copy) copy.close();
      parentPort.postMessage({ id: m.id, ok: true });
    }
  } catch (err) {
    parentPort.postMessage({ id: m.id, ok: false, message: String(err && err.message) });
  }
});
`;

/** A scratch copy older than this belongs to a drill whose process died. */
const ABANDONED_MS = 60 * 60 * 1000;

type Reply = { id: number; ok: boolean; rows?: Record<string, unknown>[]; message?: string };

/** The backup thread, spoken to one request at a time. */
class BackupThread {
  private readonly worker: Worker;
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();

  constructor(source: string, target: string) {
    this.worker = new Worker(PROGRAM, {
      eval: true,
      workerData: { source, target, driver: createRequire(import.meta.url).resolve('better-sqlite3') },
    });
    this.worker.on('message', (r: Reply) => {
      this.waiting.get(r.id)?.resolve(r);
      this.waiting.delete(r.id);
    });
    const fail = (err: Error) => {
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', () => fail(new Error('the backup thread stopped')));
  }

  async ask(op: string, text?: string): Promise<Record<string, unknown>[]> {
    const id = this.next++;
    const reply = await new Promise<Reply>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, op, text });
    });
    if (!reply.ok) throw new Error(reply.message ?? 'the backup thread failed');
    return reply.rows ?? [];
  }

  stop = () => this.worker.terminate();
}

/** Backups of an SQLite file (docs/operations.md, "Backups and restore drills"). */
export class SqliteBackup implements BackupEngine {
  readonly engine = 'sqlite' as const;
  readonly extension = 'sqlite';
  readonly digest = fileDigest;

  constructor(
    private readonly file: string,
    private readonly scratchDir: string,
  ) {}

  async take(target: string) {
    if (this.file === ':memory:') {
      throw new ServiceError('backup_unavailable', 'An in-memory database cannot be backed up: set DATABASE_URL to a file.');
    }
    const thread = new BackupThread(this.file, target);
    try {
      await thread.ask('backup');
      const contents = await contentsOf('sqlite', (text) => thread.ask('query', text));
      await thread.ask('close');
      return contents;
    } finally {
      await thread.stop();
    }
  }

  /** Scratch copies a drill left behind when its process died: none lives longer than ABANDONED_MS. */
  private async dropAbandoned(): Promise<void> {
    const entries = await readdir(this.scratchDir).catch(() => [] as string[]);
    for (const entry of entries.filter((e) => e.startsWith('drill-'))) {
      const path = join(this.scratchDir, entry);
      const { mtimeMs } = await stat(path).catch(() => ({ mtimeMs: Date.now() }));
      if (Date.now() - mtimeMs > ABANDONED_MS) await rm(path, { recursive: true, force: true });
    }
  }

  contents(scratch: ScratchDatabase) {
    return restoredContents(this.engine, scratch);
  }

  async scratch(file: string, name: string): Promise<ScratchDatabase> {
    await this.dropAbandoned();
    const dir = join(this.scratchDir, `drill-${name}-${randomBytes(4).toString('hex')}`);
    await mkdir(dir, { recursive: true });
    const restored = join(dir, 'restored.sqlite');
    await copyFile(file, restored);
    return { location: { kind: 'sqlite', file: restored }, drop: () => rm(dir, { recursive: true, force: true }) };
  }
}

/** Copies the backup beside the target and renames it into place, so a crash leaves no half file. */
export async function restoreSqlite(file: string, location: DatabaseLocation): Promise<void> {
  if (location.kind !== 'sqlite' || location.file === ':memory:') {
    throw new Error('this backup is of an SQLite file: DATABASE_URL must name an SQLite file');
  }
  const target = location.file;
  const present = await stat(target).then(
    () => true,
    () => false,
  );
  if (present) {
    throw new Error(
      `${target} exists: a restore never overwrites a database; move it away (keep it until the restore is proven), then restore`,
    );
  }
  await mkdir(dirname(target), { recursive: true });
  // A log or index left by the database that was there would be applied to the restored file.
  const base = basename(target);
  for (const f of await readdir(dirname(target))) {
    if (f === `${base}-wal` || f === `${base}-shm` || f === `${base}-journal`) await rm(join(dirname(target), f));
  }
  const part = `${target}.restoring`;
  await copyFile(file, part);
  await rename(part, target);
}
