import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import pg from 'pg';
import { type Db, migrate, openDatabase } from '../../src/adapters/sql/connect.ts';
import type { DatabaseLocation } from '../../src/config/config.ts';
import type { AccessTokenRecord } from '../../src/ports/access-token-store.ts';
import { emptyProfile, type TenantRecord } from '../../src/ports/tenant-store.ts';

/** A database a suite runs against: a fresh SQLite file, or a fresh schema on TEST_DATABASE_URL. */
export interface TestDatabase {
  name: 'sqlite' | 'postgres';
  location: DatabaseLocation;
  /** PostgreSQL: the schema this suite owns. */
  schema?: string;
  /** The DATABASE_URL a child process would use to reach the same database. */
  url: string;
  drop(): Promise<void>;
}

export type DatabaseFactory = { name: 'sqlite' | 'postgres'; create(): Promise<TestDatabase> };

const sqlite: DatabaseFactory = {
  name: 'sqlite',
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'openrail-test-'));
    const file = join(dir, 'test.sqlite');
    return {
      name: 'sqlite',
      location: { kind: 'sqlite', file },
      url: `sqlite:${file}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
};

function postgres(url: string): DatabaseFactory {
  return {
    name: 'postgres',
    async create() {
      const schema = `t_${randomBytes(6).toString('hex')}`;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`create schema ${schema}`);
      await client.end();
      const scoped = new URL(url);
      scoped.searchParams.set('options', `-c search_path=${schema}`);
      return {
        name: 'postgres',
        location: { kind: 'postgres', url },
        schema,
        url: scoped.toString(),
        drop: async () => {
          const c = new pg.Client({ connectionString: url });
          await c.connect();
          await c.query(`drop schema ${schema} cascade`);
          await c.end();
        },
      };
    },
  };
}

/** SQLite always; PostgreSQL too when TEST_DATABASE_URL is set. */
export function testDatabases(): DatabaseFactory[] {
  const url = process.env.TEST_DATABASE_URL;
  return url ? [sqlite, postgres(url)] : [sqlite];
}

/** An independent Kysely instance (its own connection or pool) on the test database. */
export function openTestDb(target: TestDatabase): Db {
  return openDatabase(target.location, target.schema ? { schema: target.schema } : {});
}

/** A suite's migrated database and its connection, there once the suite's first `before` has run. */
export interface SuiteDatabase {
  readonly target: TestDatabase;
  readonly db: Db;
}

/**
 * In a describe, before its own hooks: a database of `factory`, made and migrated before the
 * suite's tests, its connection closed and the database dropped after them.
 */
export function migratedDatabase(factory: DatabaseFactory): SuiteDatabase {
  const suite = {} as { target: TestDatabase; db: Db };
  before(async () => {
    suite.target = await factory.create();
    suite.db = openTestDb(suite.target);
    await migrate(suite.db);
  });
  after(async () => {
    await suite.db?.destroy();
    await suite.target?.drop();
  });
  return suite;
}

/** A table of the migrated schema and its columns, as the database itself reports them. */
export interface TableShape {
  name: string;
  columns: Array<{ name: string; isNullable: boolean }>;
}

/**
 * The tables of one test database (without Kysely's bookkeeping), read from the database's own
 * catalogue; on PostgreSQL only the suite's schema (pg-introspector.ts).
 */
export async function tablesOf(db: Db): Promise<TableShape[]> {
  const tables = await db.introspection.getTables();
  return tables.map((t) => ({ name: t.name, columns: t.columns.map((c) => ({ name: c.name, isNullable: c.isNullable })) }));
}

/** A tenant row with an empty profile, for storage-level suites. */
export function tenantRecord(slug: string, at = 1): TenantRecord {
  return { slug, name: slug.toUpperCase(), ...emptyProfile(), createdAt: at, updatedAt: at };
}

/** An access token row as the token endpoint writes it (for tests of the access-token plane). */
export async function insertAccessToken(db: Db, t: AccessTokenRecord): Promise<void> {
  await db
    .insertInto('access_tokens')
    .values({
      token_hash: t.tokenHash,
      tenant: t.tenant,
      grant_id: t.grantId,
      created_at: t.createdAt,
      expires_at: t.expiresAt,
      spent_at: null,
    })
    .execute();
}
