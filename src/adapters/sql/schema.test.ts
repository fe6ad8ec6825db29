import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { openTestDb, tablesOf, testDatabases } from '../../../test/helpers/databases.ts';
import { type Db, migrate } from './connect.ts';

/** Table → column → whether it may be null. */
type Shape = Map<string, Map<string, boolean>>;

/**
 * schema.ts, the tables as the queries see them, read as text: each table of `Database` with its
 * columns and whether each may be null.
 */
function declaredShape(): Shape {
  const text = readFileSync(new URL('./schema.ts', import.meta.url), 'utf8');
  const bodies = new Map<string, string>();
  for (const m of text.matchAll(/^export interface (\w+) \{\n([\s\S]*?)^\}/gm)) bodies.set(m[1] as string, m[2] as string);
  const members = (name: string) => [...(bodies.get(name) ?? '').matchAll(/^ {2}(\w+)\??: (.+);$/gm)];
  return new Map(
    members('Database').map(([, table = '', iface = '']) => [
      table,
      new Map(members(iface).map(([, column = '', type = '']) => [column, /(^|\| )null( \||$)/.test(type)])),
    ]),
  );
}

/** The tables as the migrated database itself reports them. */
async function migratedShape(db: Db): Promise<Shape> {
  const tables = await tablesOf(db);
  return new Map(tables.map((t) => [t.name, new Map(t.columns.map((c) => [c.name, c.isNullable]))]));
}

/**
 * Where the two disagree, as `table.column` lines. Nullability is compared only when `nulls`:
 * SQLite reports a text primary key as nullable unless it was declared NOT NULL (a quirk it keeps
 * for compatibility), whatever the queries assume.
 */
function differences(migrated: Shape, declared: Shape, nulls: boolean): string[] {
  const out: string[] = [];
  for (const table of new Set([...migrated.keys(), ...declared.keys()])) {
    const m = migrated.get(table);
    const d = declared.get(table);
    if (!m || !d) {
      out.push(`${table}: ${m ? 'not in schema.ts' : 'no migration creates it'}`);
      continue;
    }
    for (const column of new Set([...m.keys(), ...d.keys()])) {
      if (!m.has(column)) out.push(`${table}.${column}: no migration creates it`);
      else if (!d.has(column)) out.push(`${table}.${column}: not in schema.ts`);
      else if (nulls && m.get(column) !== d.get(column)) {
        out.push(`${table}.${column}: ${m.get(column) ? 'nullable' : 'not null'} in the database, not in schema.ts`);
      }
    }
  }
  return out.sort();
}

for (const factory of testDatabases()) {
  describe(`schema.ts and the migrations (${factory.name})`, () => {
    test('name the same tables and columns (and, on PostgreSQL, the same nullable ones); a column added behind schema.ts is named', async () => {
      const target = await factory.create();
      const db = openTestDb(target);
      const nulls = factory.name === 'postgres';
      try {
        await migrate(db);
        const declared = declaredShape();
        assert.ok(declared.size > 40, `schema.ts read: ${declared.size} tables`);
        assert.deepEqual(differences(await migratedShape(db), declared, nulls), []);

        await sql`alter table settings add column scratch text`.execute(db);
        assert.deepEqual(differences(await migratedShape(db), declared, nulls), ['settings.scratch: not in schema.ts']);
      } finally {
        await db.destroy();
        await target.drop();
      }
    });
  });
}
