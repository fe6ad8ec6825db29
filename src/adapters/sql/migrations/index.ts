import type { Migration, MigrationProvider } from 'kysely';
import { foundation } from './0001-foundation.ts';

/** Migrations are code, applied in name order at start. Append; never edit a shipped one. */
const MIGRATIONS: Record<string, Migration> = {
  '0001-foundation': foundation,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => MIGRATIONS,
};
