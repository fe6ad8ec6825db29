import { sql } from 'kysely';
import type { DatabaseLocation } from '../../../config/config.ts';
import type { BackupContents } from '../../../ports/backup-store.ts';
import { type Db, type OpenOptions, openDatabase } from '../connect.ts';
import { contentsOf } from './contents.ts';
import { PostgresBackup, restorePostgres } from './postgres-backup.ts';
import { restoreSqlite, SqliteBackup } from './sqlite-backup.ts';

/** A database restored from a backup for a drill, and how to be rid of it. */
export interface ScratchDatabase {
  location: DatabaseLocation;
  options: OpenOptions;
  drop(): Promise<void>;
}

/**
 * Taking and restoring backups with the engine's own method (docs/operations.md, "Backups and
 * restore drills"): SQLite's online backup API on a thread of its own, PostgreSQL's pg_dump and
 * pg_restore. Neither holds the serving connection or blocks a writer.
 */
export interface BackupEngine {
  readonly engine: 'sqlite' | 'postgres';
  /** The backup file's extension. */
  readonly extension: string;
  /** Writes a consistent copy of the database to `file`; answers what that copy holds. */
  take(file: string): Promise<BackupContents & { schema?: string }>;
  /** Restores `file` into a new scratch database named after `name`. */
  scratch(file: string, name: string): Promise<ScratchDatabase>;
}

/**
 * Restores a backup as the database at `location`, which must not exist yet (SQLite) or hold no
 * table in the backup's schema (PostgreSQL): a restore never overwrites data. `openrail restore`
 * (docs/operations.md, "Restoring a backup") checks the manifest's checksum first.
 */
export function restoreBackup(
  manifest: { engine: 'sqlite' | 'postgres'; schema?: string },
  file: string,
  location: DatabaseLocation,
): Promise<void> {
  return manifest.engine === 'sqlite'
    ? restoreSqlite(file, location)
    : restorePostgres(file, location, manifest.schema ?? 'public');
}

/** What a restored database holds, counted as its backup's manifest was (contents.ts). */
export async function restoredContents(engine: BackupEngine['engine'], scratch: ScratchDatabase): Promise<BackupContents> {
  const db = openDatabase(scratch.location, { ...scratch.options, poolSize: 1 });
  try {
    return await contentsOf(engine, async (text) => (await sql.raw<Record<string, unknown>>(text).execute(db)).rows);
  } finally {
    await db.destroy();
  }
}

export function backupEngine(db: Db, location: DatabaseLocation, scratchDir: string): BackupEngine {
  return location.kind === 'sqlite' ? new SqliteBackup(location.file, scratchDir) : new PostgresBackup(db, location.url);
}
