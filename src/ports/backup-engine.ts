import type { DatabaseLocation } from '../config/config.ts';
import type { BackupContents } from './backup-store.ts';

/** A database restored from a backup for a drill, and how to be rid of it. */
export interface ScratchDatabase {
  location: DatabaseLocation;
  /** PostgreSQL: the schema the backup was taken from, restored under the same name. */
  schema?: string;
  drop(): Promise<void>;
}

/**
 * Taking and restoring backups with the engine's own method (docs/operations.md, "Backups and
 * restore drills"); adapters/sql/backup/ holds the SQLite and PostgreSQL ones.
 */
export interface BackupEngine {
  readonly engine: 'sqlite' | 'postgres';
  /** The backup file's extension. */
  readonly extension: string;
  /** Writes a consistent copy of the database to `file`; answers what that copy holds. */
  take(file: string): Promise<BackupContents & { schema?: string }>;
  /** Restores `file` into a new scratch database named after `name`. */
  scratch(file: string, name: string): Promise<ScratchDatabase>;
  /** What a restored database holds, counted as the manifest was. */
  contents(scratch: ScratchDatabase): Promise<BackupContents>;
  /** A backup file's SHA-256 (hex) and size, read as a stream: what its manifest records and a drill checks. */
  digest(file: string): Promise<{ sha256: string; bytes: number }>;
}
