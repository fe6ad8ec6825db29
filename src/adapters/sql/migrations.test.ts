import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { openTestDb, testDatabases } from '../../../test/helpers/databases.ts';
import { migrate } from './connect.ts';
import { migrationProvider } from './migrations/index.ts';

for (const factory of testDatabases()) {
  describe(`migrations (${factory.name})`, () => {
    test('apply once, are idempotent, and survive concurrent starts', async () => {
      const target = await factory.create();
      const open = () => openTestDb(target);
      const [a, b] = [open(), open()];
      try {
        // Two processes starting at once on one database: both succeed, the schema is applied once.
        await Promise.all([migrate(a), migrate(b)]);
        await migrate(a);
        const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(a);
        assert.deepEqual(applied.rows.map((r) => r.name).sort(), Object.keys(await migrationProvider.getMigrations()).sort());
        for (const table of [
          'settings',
          'tenants',
          'signing_keys',
          'operators',
          'operator_sessions',
          'holder_jti',
          'access_tokens',
          'credential_types',
          'offers',
          'spent_nonces',
          'status_lists',
          'issued_credentials',
        ]) {
          await sql`select count(*) from ${sql.table(table)}`.execute(a);
        }
      } finally {
        await a.destroy();
        await b.destroy();
        await target.drop();
      }
    });
  });
}
