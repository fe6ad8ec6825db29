import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BackupFolder } from '../../ports/backup-folder.ts';

/** The backup folder at `dir` on the local disk: its files are their owner's only (0600, the folder 0700). */
export function backupFolderAt(dir: string): BackupFolder {
  const path = (name: string) => join(dir, name);
  return {
    path,
    ensure: async () => {
      await mkdir(dir, { recursive: true, mode: 0o700 });
    },
    create: (name, text) => writeFile(path(name), text, { mode: 0o600, flag: 'wx' }),
    rename: (from, to) => rename(path(from), path(to)),
    remove: (name) => rm(path(name), { force: true }),
    files: async () => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      return entries.filter((e) => e.isFile()).map((e) => e.name);
    },
    read: (name) =>
      readFile(path(name), 'utf8').then(
        (text) => text,
        () => undefined,
      ),
    modifiedAt: (name) =>
      stat(path(name)).then(
        (s) => s.mtimeMs,
        () => undefined,
      ),
  };
}
