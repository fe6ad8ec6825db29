/**
 * Tables are owned (docs/architecture.md, "Tables, owners and views"): every table of the migrated
 * schema has exactly one owning module (adapters/sql/owners.ts), every adapter names in its SQL
 * only the tables of the module whose folder it sits in, and it imports from another owner's
 * folder only what that owner publishes (its views and its statements). Another module's data is
 * read through a view its owner publishes (SQL in the owner's folder), never by naming its table.
 * Each check is shown failing on a scratch copy of the adapters with one violation added.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { migrate } from '../src/adapters/sql/connect.ts';
import { ownershipProblems, TABLE_OWNERS } from '../src/adapters/sql/owners.ts';
import { MODULES } from '../src/compose.ts';
import { openTestDb, tablesOf, testDatabases } from './helpers/databases.ts';
import { adapterImports, adapterTables, PUBLISHED, tablesNamed } from './helpers/table-references.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const OWNED = TABLE_OWNERS as Readonly<Record<string, readonly string[]>>;
const TABLES = Object.values(OWNED).flat();
const MODULE_NAMES = MODULES.map((m) => m.name);

/** Each adapter under `root` that names a table beyond its folder's module (at the top of adapters/sql: any table). */
function crossings(root: string): string[] {
  return adapterTables(root, TABLES).flatMap(({ file, folder, tables }) => {
    const own = folder === undefined ? [] : (OWNED[folder] ?? []);
    const foreign = tables.filter((t) => !own.includes(t));
    return foreign.length > 0 ? [`${file} names ${foreign.join(', ')}`] : [];
  });
}

/** Each import under `root` of an adapter from another owner's folder that the owner does not publish. */
function unpublishedImports(root: string): string[] {
  return adapterImports(root)
    .filter(({ owner, target }) => owner in OWNED && !PUBLISHED.test(target))
    .map(({ file, target }) => `${file} imports ${target}`);
}

/** A scratch copy of `src/adapters/sql` with `files` added (path under it, text), for `check` to read. */
function onScratchCopy(files: Record<string, string>, check: (root: string) => void): void {
  const scratch = mkdtempSync(join(tmpdir(), 'openrail-owners-'));
  try {
    cpSync(join(ROOT, 'src', 'adapters', 'sql'), join(scratch, 'src', 'adapters', 'sql'), { recursive: true });
    for (const [path, text] of Object.entries(files)) writeFileSync(join(scratch, 'src', 'adapters', 'sql', path), text);
    check(scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
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

describe('an adapter names only its own module’s tables, and imports only what other owners publish', () => {
  test('every adapter of adapters/sql names only its folder’s tables', () => {
    assert.deepEqual(
      crossings(ROOT),
      [],
      'read another module’s table through a view its owner publishes, in the owner’s folder',
    );
  });

  test('a probe: an adapter in the wallet’s folder that reads the offers table is named', () => {
    const probe = "export const probe = (db: Db) => db.selectFrom('offers').select('id').execute();\n";
    onScratchCopy({ 'wallet/sql-probe-reads.ts': probe }, (scratch) => {
      assert.deepEqual(crossings(scratch), ['src/adapters/sql/wallet/sql-probe-reads.ts names offers']);
    });
  });

  test('every adapter imports from another owner’s folder only its views and statements', () => {
    assert.deepEqual(unpublishedImports(ROOT), [], 'import what another owner publishes: its *-views.ts or *-statements.ts');
    assert.ok(adapterImports(ROOT).length > 5, 'the imports were read');
  });

  test('a probe: an adapter that imports another owner’s store is named, one that imports its statements is not', () => {
    const probe = [
      "import { SqlWalletItemStore } from '../wallet/sql-wallet-item-store.ts';",
      "import { addItem } from '../wallet/wallet-statements.ts';",
      "import { SqlWalletViews } from '../wallet/sql-wallet-views.ts';",
      '',
      'export const probe = [SqlWalletItemStore, addItem, SqlWalletViews];',
      '',
    ].join('\n');
    onScratchCopy({ 'offers/sql-probe-store.ts': probe }, (scratch) => {
      assert.deepEqual(unpublishedImports(scratch), [
        'src/adapters/sql/offers/sql-probe-store.ts imports src/adapters/sql/wallet/sql-wallet-item-store.ts',
      ]);
    });
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
