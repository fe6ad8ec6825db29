import type { DatabaseLocation } from '../../../config/config.ts';
import type { BackupEngine } from '../../../ports/backup-engine.ts';
import type { Db } from '../connect.ts';
import { PostgresBackup, restorePostgres } from './postgres-backup.ts';
import { restoreSqlite, SqliteBackup } from './sqlite-backup.ts';

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

export function backupEngine(db: Db, location: DatabaseLocation, scratchDir: string): BackupEngine {
  return location.kind === 'sqlite' ? new SqliteBackup(location.file, scratchDir) : new PostgresBackup(db, location.url);
}
