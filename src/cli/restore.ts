import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileDigest } from '../adapters/fs/file-digest.ts';
import { restoreBackup } from '../adapters/sql/backup/engine.ts';
import { ToolFailed } from '../adapters/sql/backup/postgres-backup.ts';
import { type Config, ConfigError, loadConfig, storageOf } from '../config/config.ts';
import type { BackupManifest } from '../ports/backup-store.ts';
import { VERB_USAGE } from './usage.ts';

const refuse = (message: string) => {
  process.stderr.write(`openrail restore: ${message}\n`);
  process.exitCode = 1;
};

/**
 * `openrail restore <manifest>` (docs/operations.md, "Restoring a backup"): checks that the
 * backup file beside the manifest is the one taken (its SHA-256), then restores it as the
 * database the environment names, which must be empty. The service is started afterwards as
 * usual, with the same OPENRAIL_MASTER_KEY as when the backup was taken.
 */
export async function restore(args: string[]): Promise<void> {
  if (args.length !== 1 || (args[0] as string).startsWith('-')) {
    process.stderr.write(`${VERB_USAGE.restore}\n`);
    process.exitCode = 2;
    return;
  }
  const manifestPath = args[0] as string;
  let manifest: BackupManifest & { schema?: string };
  try {
    manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
  } catch (err) {
    return refuse(`${manifestPath} is not a readable manifest (${(err as NodeJS.ErrnoException).code ?? 'not JSON'})`);
  }
  if (manifest.format !== 'openrail-backup/1' || typeof manifest.file !== 'string' || basename(manifest.file) !== manifest.file) {
    return refuse(`${manifestPath} is not an openrail backup manifest`);
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) return refuse(`configuration error: ${err.message}`);
    throw err;
  }
  if (storageOf(config.database).engine !== manifest.engine) {
    return refuse(`the backup is of ${manifest.engine}, DATABASE_URL names ${storageOf(config.database).engine}`);
  }
  const file = join(dirname(manifestPath), manifest.file);
  const digest = await fileDigest(file).catch(() => undefined);
  if (!digest) return refuse(`${file} is missing: the backup file lies beside its manifest`);
  if (digest.sha256 !== manifest.sha256) {
    return refuse(`${file} has SHA-256 ${digest.sha256}, the manifest ${manifest.sha256}: the file is not the backup taken`);
  }
  try {
    await restoreBackup(manifest, file, config.database);
  } catch (err) {
    return refuse(err instanceof ToolFailed ? `${err.message}:\n${err.said}` : err instanceof Error ? err.message : String(err));
  }
  process.stdout.write(
    `restored backup ${manifest.backupId} (taken ${manifest.takenAt}) into ${storageOf(config.database).where}; start the service with the master key it was taken under\n`,
  );
}
