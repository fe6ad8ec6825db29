import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { testDatabases } from '../../../../test/helpers/databases.ts';
import { migrate, openDatabase } from '../connect.ts';
import { PostgresBackup } from './postgres-backup.ts';

const postgres = testDatabases().find((f) => f.name === 'postgres');

// docs/scaling.md advises an idle_in_transaction_session_timeout for openrail's role. A backup's
// transaction is idle while pg_dump reads its snapshot, which takes longer than this one (pg_dump
// starts a process and reads the catalogue): unless the backup lifts the timeout for its own
// transaction, the server ends the session and the backup fails at its commit.
test('a backup outlasting the role’s timeouts for requests is taken all the same', async (t) => {
  if (!postgres) return t.skip('TEST_DATABASE_URL is not set');
  const target = await postgres.create();
  if (target.location.kind !== 'postgres') throw new Error('a PostgreSQL database');
  const schema = target.schema ? { schema: target.schema } : {};
  const migrating = openDatabase(target.location, schema);
  await migrate(migrating).finally(() => migrating.destroy());
  const db = openDatabase(target.location, {
    ...schema,
    settings: { idle_in_transaction_session_timeout: '50ms', statement_timeout: '5s' },
  });
  const dir = await mkdtemp(join(tmpdir(), 'openrail-pgbackup-'));
  try {
    const file = join(dir, 'b.pgdump');
    const taken = await new PostgresBackup(db, target.location.url).take(file);
    assert.equal(taken.schema, target.schema ?? 'public');
    assert.ok(taken.counts.audit_log !== undefined, 'the manifest counts the schema’s tables');
    assert.ok((await stat(file)).size > 0, 'pg_dump wrote the file');
  } finally {
    await db.destroy();
    await rm(dir, { recursive: true, force: true });
    await target.drop();
  }
});
