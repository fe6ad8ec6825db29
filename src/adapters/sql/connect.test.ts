import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import { openTestDb, testDatabases } from '../../../test/helpers/databases.ts';
import { migrate, openDatabase } from './connect.ts';

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

test('migrations succeed while another client of the database creates, alters and drops schemas', async (t) => {
  if (!postgres) return t.skip('TEST_DATABASE_URL is not set');
  // Kysely's own introspection read every schema's tables: a schema dropped in that moment failed
  // it with 3F000 (11 starts of 15), a column renamed with 42703 (a CI run). Ours reads only the
  // schema openrail works in, from one snapshot of the catalogue.
  const url = process.env.TEST_DATABASE_URL as string;
  let stop = false;
  const churn = async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    for (let i = 0; !stop; i++) {
      const schema = `t_churn_${process.pid}_${i}_${Math.random().toString(36).slice(2, 8)}`;
      await c.query(`create schema ${schema}`);
      await c.query(`create table ${schema}.a (id serial primary key, v text)`);
      await c.query(`alter table ${schema}.a rename column v to w`);
      await c.query(`drop schema ${schema} cascade`);
      await new Promise((r) => setTimeout(r, 5));
    }
    await c.end();
  };
  const churning = [churn(), churn()];
  try {
    for (let i = 0; i < 6; i++) {
      const target = await postgres.create();
      const db = openTestDb(target);
      try {
        await migrate(db);
      } finally {
        await db.destroy();
        await target.drop();
      }
    }
  } finally {
    stop = true;
    await Promise.all(churning);
  }
});

test('a SQLite connection keeps a page cache of 2 MB (SQLite’s default), not the 16 MB its driver is built with', async () => {
  const factory = testDatabases().find((f) => f.name === 'sqlite');
  assert.ok(factory);
  const target = await factory.create();
  const db = openTestDb(target);
  try {
    const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(db);
    // Negative: KiB rather than pages (docs/scaling.md, "Memory").
    assert.deepEqual(rows, [{ cache_size: -2000 }]);
  } finally {
    await db.destroy();
    await target.drop();
  }
});

/** This process's open files that SQLite made as temporary files (unlinked at once, so only /proc shows them). */
const sqliteTempFiles = () =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).includes('etilqs_');
    } catch {
      return false; // the descriptor of the directory listing itself, closed by now
    }
  });

test('a unit of work’s savepoint journal stays in memory, and temp_store is back at its default for the sorts inside it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'openrail-subjournal-'));
  const file = join(dir, 'db.sqlite');
  const seeding = openDatabase({ kind: 'sqlite', file });
  try {
    await migrate(seeding);
    // About 100 pages of rows, committed; rewriting them all in a unit of work journals about
    // 400 KB of their earlier content, far past SQLite's 64 KiB spill threshold.
    const rows = Array.from({ length: 400 }, (_, i) => ({ name: `journal-${i}`, value: 'a'.repeat(1000) }));
    await seeding.insertInto('settings').values(rows).execute();
  } finally {
    await seeding.destroy();
  }
  // The unit of work is the first batch of a fresh connection: a pragma prepared once and run
  // applies nothing on its first run (SQLite applies it when compiling), which let that batch's
  // journal spill.
  const db = openDatabase({ kind: 'sqlite', file });
  try {
    const seen = await db.transaction().execute(async (trx) => {
      const changed = await trx
        .updateTable('settings')
        .set({ value: 'b'.repeat(1000) })
        .where('name', 'like', 'journal-%')
        .execute();
      const files = sqliteTempFiles();
      const { rows: store } = await sql<{ temp_store: number }>`pragma temp_store`.execute(trx);
      return { changed: Number(changed[0]?.numUpdatedRows), files, store };
    });
    assert.equal(seen.changed, 400);
    assert.deepEqual(seen.files, [], 'no journal file under /var/tmp');
    // 0, the build's default (files): a large sort still spills rather than growing the process.
    assert.deepEqual(seen.store, [{ temp_store: 0 }]);
  } finally {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a SQLite file another process holds locked while this one opens it is waited for, not refused', async () => {
  // Several workers opening one file at once met SQLITE_BUSY_RECOVERY (one rebuilding the log's
  // index) and one of them failed to start: opening now tries again, for up to five seconds.
  const dir = mkdtempSync(join(tmpdir(), 'openrail-open-busy-'));
  const file = join(dir, 'db.sqlite');
  try {
    // In the rollback journal's mode, so that switching to WAL needs the lock the holder keeps.
    const seed = new SqliteDatabase(file);
    seed.exec('create table t (v integer)');
    seed.close();
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const D = require('better-sqlite3'); const d = new D(process.argv[1]);
         d.exec('begin exclusive'); d.exec('insert into t values (1)'); process.stdout.write('held\\n');
         setTimeout(() => { d.exec('commit'); d.close(); }, 400);`,
        file,
      ],
      { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = once(holder, 'exit');
    await once(holder.stdout, 'data');
    const started = Date.now();
    const db = openDatabase({ kind: 'sqlite', file });
    try {
      assert.ok(Date.now() - started >= 200, 'the open waited for the holder');
      await sql`insert into t values (2)`.execute(db);
      const count = await sql<{ n: number }>`select count(*) as n from t`.execute(db);
      assert.deepEqual(count.rows, [{ n: 2 }], "the holder's row and ours");
      const probe = new SqliteDatabase(file, { readonly: true });
      assert.equal(probe.pragma('journal_mode', { simple: true }), 'wal');
      probe.close();
    } finally {
      await db.destroy();
    }
    assert.deepEqual(await exited, [0, null]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
