import { readFile, realpath } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileDigest } from '../adapters/fs/file-digest.ts';
import { restoreBackup } from '../adapters/sql/backup/engine.ts';
import { ToolFailed } from '../adapters/sql/backup/postgres-backup.ts';
import { type Config, ConfigError, loadConfig, storageOf } from '../config/config.ts';
import type { BackupManifest } from '../ports/backup-store.ts';
import { VERB_USAGE } from './usage.ts';

/** Lifts the rule that a backup is restored from the deployment's backup folder only. */
export const OUTSIDE_BACKUP_DIR = '--outside-backup-dir';

const refuse = (message: string) => {
  process.stderr.write(`openrail restore: ${message}\n`);
  process.exitCode = 1;
};

/** A path with its symbolic links resolved, or undefined when nothing is there. */
const real = (path: string) => realpath(path).catch(() => undefined);

/**
 * `openrail restore [--outside-backup-dir] <manifest>` (docs/operations.md, "Restoring a backup"):
 * checks that the manifest and the backup file beside it lie in the backup folder the deployment
 * names (OPENRAIL_BACKUP_DIR), links resolved, unless --outside-backup-dir says the backup is kept
 * elsewhere on purpose; that the file is the one taken (its SHA-256); then restores it as the
 * database the environment names, which must be empty. The service is started afterwards as usual,
 * with the same OPENRAIL_MASTER_KEY as when the backup was taken.
 */
export async function restore(args: string[]): Promise<void> {
  const outside = args.includes(OUTSIDE_BACKUP_DIR);
  const rest = args.filter((a) => a !== OUTSIDE_BACKUP_DIR);
  if (rest.length !== 1 || (rest[0] as string).startsWith('-')) {
    process.stderr.write(`${VERB_USAGE.restore}\n`);
    process.exitCode = 2;
    return;
  }
  const manifestPath = rest[0] as string;
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
  const named = join(dirname(manifestPath), manifest.file);
  const file = await real(named);
  if (!file) return refuse(`${named} is missing: the backup file lies beside its manifest`);
  if (!outside) {
    // A manifest names its file by name only, so the two lie together; links are resolved, so
    // neither can be brought in from elsewhere by a link in the folder.
    const folder = await real(config.backupDir);
    const elsewhere = `restore a backup of this deployment from there, or name ${OUTSIDE_BACKUP_DIR} to restore one kept elsewhere`;
    if (!folder || dirname((await real(manifestPath)) ?? manifestPath) !== folder) {
      return refuse(`${manifestPath} is not in the backup folder ${config.backupDir} (OPENRAIL_BACKUP_DIR): ${elsewhere}`);
    }
    if (dirname(file) !== folder) {
      return refuse(`${named} lies at ${file}, not in the backup folder ${config.backupDir} (OPENRAIL_BACKUP_DIR): ${elsewhere}`);
    }
  }
  const digest = await fileDigest(file).catch(() => undefined);
  if (!digest) return refuse(`${named} cannot be read`);
  if (digest.sha256 !== manifest.sha256) {
    return refuse(`${named} has SHA-256 ${digest.sha256}, the manifest ${manifest.sha256}: the file is not the backup taken`);
  }
  try {
    await restoreBackup(manifest, file, config.database);
  } catch (err) {
    return refuse(err instanceof ToolFailed ? `${err.message}:\n${err.said}` : err instanceof Error ? err.message : String(err));
  }
  process.stdout.write(
    `restored backup ${manifest.backupId} (taken ${manifest.takenAt}) into ${storageOf(config.database).where}; start the service with the master key it was taken under\n${keysNeeded(manifest)}`,
  );
}

/**
 * What the operator must provide beside the file for its keys (docs/keys.md, "Backups"): the
 * master key for the sealed ones (which the backup holds), and for keys in a token, the token
 * holding each object named, configured with OPENRAIL_KEYS=pkcs11; the backup holds none of them.
 */
export function keysNeeded(manifest: BackupManifest): string {
  if (!manifest.keys) return '';
  const inTokens = new Map<string, string[]>();
  for (const key of manifest.keys) {
    if (key.backend !== 'pkcs11' || key.token === null) continue;
    inTokens.set(key.token, [...(inTokens.get(key.token) ?? []), key.label ?? `${key.tenant}/${key.purpose}/${key.kid}`]);
  }
  const sealed = manifest.keys.filter((k) => k.backend === 'sealed').length;
  const lines = [`${sealed} keys are sealed in the backup under that master key`];
  for (const [token, labels] of inTokens) {
    lines.push(
      `${labels.length} keys are not in the backup: they are objects of the PKCS#11 token ${token}, which the service must reach (OPENRAIL_KEYS=pkcs11, OPENRAIL_PKCS11_TOKEN=${token}):`,
      ...labels.map((label) => `  ${label}`),
    );
  }
  return `${lines.join('\n')}\n`;
}
