/**
 * Tables are owned (docs/architecture.md, "Tables, owners and views"): every table of the migrated
 * schema has exactly one owning module (adapters/sql/owners.ts), and every adapter names in its SQL
 * only the tables of the module whose folder it sits in. Another module's data is read through a
 * view its owner publishes (SQL in the owner's folder), never by naming its table.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { migrate } from '../src/adapters/sql/connect.ts';
import { ownershipProblems, TABLE_OWNERS } from '../src/adapters/sql/owners.ts';
import { MODULES } from '../src/compose.ts';
import { openTestDb, tablesOf, testDatabases } from './helpers/databases.ts';
import { adapterTables, tablesNamed } from './helpers/table-references.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const OWNED = TABLE_OWNERS as Readonly<Record<string, readonly string[]>>;
const TABLES = Object.values(OWNED).flat();
const MODULE_NAMES = MODULES.map((m) => m.name);

/**
 * Adapters that still name another module's tables, and which: a debt, listed so that it is seen
 * and can only shrink (a test fails on an entry that no longer holds).
 */
const KNOWN_CROSSINGS: Readonly<Record<string, string>> = {};

/** Each adapter's tables beyond its folder's module (at the top of adapters/sql: every table it names). */
function crossings(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const { file, folder, tables } of adapterTables(ROOT, TABLES)) {
    const own = folder === undefined ? [] : (OWNED[folder] ?? []);
    const foreign = tables.filter((t) => !own.includes(t));
    if (foreign.length > 0) found.set(file, foreign);
  }
  return found;
}

describe('every table has one owner', () => {
  for (const factory of testDatabases()) {
    test(`the migrated schema, each table owned once by a module or the kernel (${factory.name})`, async () => {
      const target = await factory.create();
      const db = openTestDb(target);
      try {
        await migrate(db);
        const tables = (await tablesOf(db)).map((t) => t.name).filter((t) => !t.startsWith('kysely_'));
        assert.deepEqual(ownershipProblems(tables, OWNED, MODULE_NAMES), []);
        assert.ok(tables.length > 60, 'the schema was read');
      } finally {
        await db.destroy();
        await target.drop();
      }
    });
  }

  test('a probe: an unowned table, a table owned twice and an owner that is no module are each named', () => {
    const problems = ownershipProblems(
      ['members', 'votes', 'stray'],
      { membership: ['members', 'votes'], wallet: ['votes'], nobody: [] },
      MODULE_NAMES,
    );
    assert.deepEqual(problems.sort(), [
      'nobody owns tables but is not a module',
      'table stray has no owner',
      'table votes has two owners: membership, wallet',
    ]);
  });
});

describe('an adapter names only its own module’s tables', () => {
  test('every adapter of adapters/sql, each in its owner’s folder', () => {
    const found = crossings();
    const unexpected = [...found].filter(([file, tables]) => KNOWN_CROSSINGS[file] !== tables.join(' '));
    assert.deepEqual(
      unexpected.map(([file, tables]) => `${file} names ${tables.join(', ')}`),
      [],
      'read another module’s table through a view its owner publishes, in the owner’s folder',
    );
    for (const file of Object.keys(KNOWN_CROSSINGS))
      assert.ok(found.has(file), `${file} no longer crosses: take it off the list`);
  });

  test('a probe: the builder’s and the SQL text’s table references are found, comments are not', () => {
    const text = [
      "db.selectFrom('members as m').innerJoin('wallet_items as w', 'w.account_id', 'm.account_id')",
      "sql`update offers set state = 'spent'`",
      "const s = new Statement('insert into votes (id) values (?)');",
      '// read from tenants, said in a comment',
      '/* join channels */',
    ].join('\n');
    assert.deepEqual([...tablesNamed(text, TABLES)].sort(), ['members', 'offers', 'votes', 'wallet_items']);
  });
});
