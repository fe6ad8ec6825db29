import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Migration, MigrationProvider } from 'kysely';

const DIR = dirname(fileURLToPath(import.meta.url));
/** `NNNN-what.ts`: applied in name order. */
const MIGRATION_FILE = /^(\d{4}-[a-z0-9-]+)\.ts$/;

/**
 * Migrations are code, applied in name order at start, collected by convention: every
 * `NNNN-<what>.ts` file in this folder exports one Migration. Adding one is adding a file.
 * Append; never edit a shipped one.
 */
export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    const migrations: Record<string, Migration> = {};
    for (const file of readdirSync(DIR).sort()) {
      const name = MIGRATION_FILE.exec(file)?.[1];
      if (!name) continue;
      const exported = Object.values(await import(pathToFileURL(`${DIR}/${file}`).href)) as Migration[];
      const migration = exported.find((m) => typeof m?.up === 'function');
      if (exported.length !== 1 || !migration) throw new Error(`migration ${file} must export exactly one Migration`);
      migrations[name] = migration;
    }
    return migrations;
  },
};
