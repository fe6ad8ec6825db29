import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openTestDb, type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { systemClock } from '../../core/clock.ts';
import { type Db, migrate } from './connect.ts';
import { atomically, SqlUnitOfWork } from './sql-unit-of-work.ts';

const [sqlite] = testDatabases();
let target: TestDatabase;
let db: Db;

before(async () => {
  assert.ok(sqlite);
  target = await sqlite.create();
  db = openTestDb(target);
  await migrate(db);
});
after(async () => {
  await db.destroy();
  await target.drop();
});

const readSettings = (handle: Db) => handle.selectFrom('settings').selectAll().execute();

// The timeout only ends the run if the guard is missing: without it, this query waits forever.
test('on SQLite, a query on the root database from inside a transaction fails at once instead of hanging', {
  timeout: 20_000,
}, async () => {
  const uow = new SqlUnitOfWork(db, (trx) => ({ trx }), systemClock);
  await assert.rejects(
    uow.run(async () => readSettings(db)),
    /a query on the database from inside a transaction, outside it/,
  );
  await assert.rejects(
    atomically(db, async () => readSettings(db)),
    /a query on the database from inside a transaction, outside it/,
  );
  // Through the transaction's own handle it works, and so does the root database afterwards,
  // and from any other request while a transaction is open.
  assert.ok(Array.isArray(await uow.run(async ({ trx }) => readSettings(trx))));
  let release: () => void = () => {};
  let started: () => void = () => {};
  const running = new Promise<void>((resolve) => (started = resolve));
  const held = uow.run(
    () =>
      new Promise<void>((resolve) => {
        release = resolve;
        started();
      }),
  );
  await running;
  // Another request, outside the transaction's work, waits for the connection and then runs.
  const other = readSettings(db);
  release();
  await held;
  assert.ok(Array.isArray(await other));
});
