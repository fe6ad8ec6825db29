import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { openTestDb, testDatabases } from '../../../test/helpers/databases.ts';

const postgres = testDatabases().find((f) => f.name === 'postgres');

test('a pooled PostgreSQL connection the server ends while idle is dropped, and the next query opens another', async (t) => {
  if (!postgres) return t.skip('TEST_DATABASE_URL is not set');
  const target = await postgres.create();
  const db = openTestDb(target);
  try {
    const pid = async () => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]?.pid;
    const before = await pid();
    // The connection is idle in the pool now; another session ends it, as a restart or an operator would.
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    await admin.query('select pg_terminate_backend($1)', [before]);
    await admin.end();
    await new Promise((r) => setTimeout(r, 200));
    const after = await pid();
    assert.ok(after !== undefined && after !== before, 'a new connection answers');
  } finally {
    await db.destroy();
    await target.drop();
  }
});
