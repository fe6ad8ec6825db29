import type { Migration, MigrationProvider } from 'kysely';
import { foundation } from './0001-foundation.ts';
import { issuance } from './0002-issuance.ts';
import { verification } from './0003-verification.ts';

/** Migrations are code, applied in name order at start. Append; never edit a shipped one. */
const MIGRATIONS: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-issuance': issuance,
  '0003-verification': verification,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => MIGRATIONS,
};
