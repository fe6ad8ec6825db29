import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { openTestDb, tablesOf, testDatabases } from '../../../test/helpers/databases.ts';
import { TIMELINE_SOURCES } from '../../ports/backoffice-views.ts';
import { type Db, migrate } from './connect.ts';
import { ACCOUNT_COLUMNS, ACCOUNT_TIMELINE_SOURCES, HOLDER_DATA, registryGaps } from './holder-data.ts';

/** Every column of the migrated schema, as the database itself reports it (not as schema.ts says). */
async function columnsOf(db: Db): Promise<Array<{ table: string; column: string }>> {
  return (await tablesOf(db)).flatMap((t) => t.columns.map((c) => ({ table: t.name, column: c.name })));
}

for (const factory of testDatabases()) {
  describe(`the holder-data registry (${factory.name})`, () => {
    test('names every column of the migrated schema that looks like it names someone, and nothing the schema lacks', async () => {
      const target = await factory.create();
      const db = openTestDb(target);
      try {
        await migrate(db);
        const gaps = registryGaps(await columnsOf(db));
        assert.deepEqual(gaps, { unregistered: [], stale: [] });
        // Every column an export section carries is a column of its table.
        const present = new Set((await columnsOf(db)).map((c) => `${c.table}.${c.column}`));
        const exported = HOLDER_DATA.flatMap((c) =>
          'columns' in c.export ? c.export.columns.map((col) => `${c.table}.${col}`) : [],
        );
        assert.ok(exported.length > 0);
        assert.deepEqual(
          exported.filter((key) => !present.has(key)),
          [],
        );

        // A later migration that adds a column naming an account, and one naming a contact, without
        // registering them: the same check now names both.
        await sql`create table scratch_notes (id text primary key, account_id text not null, note text)`.execute(db);
        await sql`alter table members add column referrer_email text`.execute(db);
        assert.deepEqual(registryGaps(await columnsOf(db)).unregistered, ['members.referrer_email', 'scratch_notes.account_id']);
      } finally {
        await db.destroy();
        await target.drop();
      }
    });
  });
}

describe('the holder-data registry', () => {
  test('holds each column once, each erasure part in one entry, and erases only accounts', () => {
    const keys = HOLDER_DATA.map((c) => `${c.names}:${c.table}.${c.column}`);
    assert.equal(new Set(keys).size, keys.length);
    const parts = ACCOUNT_COLUMNS.flatMap((c) => ('part' in c.erase ? [c.erase.part] : []));
    assert.equal(new Set(parts).size, parts.length, 'one registry entry per erasure part');
    for (const c of HOLDER_DATA.filter((c) => c.names !== 'account')) {
      assert.ok(c.erase.rule === 'kept' || c.erase.rule === 'expires', `${c.table}.${c.column}: only accounts are erased`);
    }
  });

  test("gives an account's timeline every source there is (each names an account column)", () => {
    assert.deepEqual(
      TIMELINE_SOURCES.filter((s) => ACCOUNT_TIMELINE_SOURCES.has(s)),
      [...TIMELINE_SOURCES],
    );
  });
});
