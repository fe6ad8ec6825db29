/**
 * The backup folder (OPENRAIL_BACKUP_DIR) as backups and their drills use it
 * (adapters/fs/backup-folder.ts). A name is a file's name inside the folder.
 */
export interface BackupFolder {
  /** Where the file `name` is: what the backup engine writes to, digests and restores from. */
  path(name: string): string;
  /** Creates the folder, its owner's only, if it is not there. */
  ensure(): Promise<void>;
  /** Writes a new file, its owner's only; refuses one that is there already. */
  create(name: string, text: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  /** Removes a file; nothing happens when it is not there. */
  remove(name: string): Promise<void>;
  /** The names of the folder's files (not its folders); none when there is no folder. */
  files(): Promise<string[]>;
  /** A file's text, or undefined when it cannot be read. */
  read(name: string): Promise<string | undefined>;
  /** When a file was last written (milliseconds), or undefined when it is not there. */
  modifiedAt(name: string): Promise<number | undefined>;
}
