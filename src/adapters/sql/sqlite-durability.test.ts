// Group commit on SQLite (decision 0016): commits are flushed to disk by WalSync off the event
// loop, every answer waits for the flush that covers it, checkpoints run on their own thread, and a
// second connection holding the write lock is waited for without blocking the event loop.
import assert from 'node:assert/strict';
import { fdatasync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { testDatabases } from '../../../test/helpers/databases.ts';
import { owner, startRail } from '../../../test/helpers/rail.ts';
import { systemClock } from '../../core/clock.ts';
import { type Db, migrate, openDatabase, settled } from './connect.ts';
import { SqlUnitOfWork } from './sql-unit-of-work.ts';
import type { Flush } from './wal-sync.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Watched {
  db: Db;
  file: string;
  /** Every flush, in order: the log's size when it started, and whether it has finished. */
  flushes: Array<{ walBytes: number; done: boolean }>;
}

/** A migrated SQLite database whose log flushes are real fdatasyncs, each held back `delayMs` and recorded. */
async function watchedDatabase(delayMs = 0, fail?: NodeJS.ErrnoException): Promise<Watched> {
  const dir = mkdtempSync(join(tmpdir(), 'openrail-durability-'));
  const file = join(dir, 'test.sqlite');
  const flushes: Watched['flushes'] = [];
  const flush: Flush = (fd, done) => {
    const entry = { walBytes: statSync(`${file}-wal`).size, done: false };
    flushes.push(entry);
    setTimeout(() => {
      if (fail) {
        entry.done = true;
        done(fail);
        return;
      }
      fdatasync(fd, (err) => {
        entry.done = true;
        done(err);
      });
    }, delayMs);
  };
  const db = openDatabase({ kind: 'sqlite', file }, { flush });
  cleanups.push(async () => {
    await db.destroy().catch(() => undefined);
    // A checkpoint thread may still be letting go of the log's files: retry a directory not yet empty.
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  });
  await migrate(db);
  await settled(db)?.catch(() => undefined);
  flushes.length = 0;
  return { db, file, flushes };
}

const put = (db: Db, name: string, value = 'v') => db.insertInto('settings').values({ name, value }).execute();

describe('SQLite group commit', () => {
  test('an answer waits for the flush that covers its commit, and the flush starts after the commit', async () => {
    const { db, file, flushes } = await watchedDatabase(60);
    await put(db, 'a');
    const walAfterCommit = statSync(`${file}-wal`).size;
    const pending = settled(db);
    assert.ok(pending, 'a fresh commit is not yet durable');
    assert.equal(flushes.length, 1);
    assert.ok((flushes[0]?.walBytes ?? 0) >= walAfterCommit, 'the flush covers the committed frames');
    assert.equal(flushes[0]?.done, false);
    await pending;
    assert.equal(flushes[0]?.done, true, 'settled only after the flush returned');
    assert.equal(settled(db), undefined, 'nothing pending afterwards');
  });

  test('commits made while a flush is in flight share the next flush', async () => {
    const { db, flushes } = await watchedDatabase(40);
    await put(db, 'first');
    const answers: Array<Promise<void> | undefined> = [];
    for (let i = 0; i < 20; i++) {
      await put(db, `k${i}`);
      answers.push(settled(db));
    }
    await Promise.all(answers);
    assert.equal(flushes.length, 2, `21 commits, ${flushes.length} flushes`);
  });

  test('a transaction is one commit; a conditional write that changes nothing needs no flush', async () => {
    const { db, flushes } = await watchedDatabase();
    await db.transaction().execute(async (trx) => {
      await put(trx, 'x');
      await put(trx, 'y');
    });
    await settled(db);
    assert.equal(flushes.length, 1);
    await db.updateTable('settings').set({ value: 'z' }).where('name', '=', 'absent').execute();
    assert.equal(settled(db), undefined);
    assert.equal(flushes.length, 1);
  });

  test('a failed flush fails the answers waiting for it and every later one', async () => {
    const eio = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    const { db } = await watchedDatabase(0, eio);
    await put(db, 'a');
    await assert.rejects(settled(db) ?? Promise.resolve(), /could not be flushed to disk: EIO/);
    await assert.rejects(settled(db) ?? Promise.resolve(), /could not be flushed/);
  });

  test('checkpoints run on their own thread: the database file grows while the serving connection never checkpoints', {
    timeout: 20_000,
  }, async () => {
    const { db, file } = await watchedDatabase();
    const auto = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
    assert.equal(auto.rows[0]?.wal_autocheckpoint, 0);
    const before = statSync(file).size;
    const blob = 'x'.repeat(4000);
    for (let i = 0; i < 1500; i++) await put(db, `blob${i}`, blob);
    await settled(db);
    const deadline = Date.now() + 10_000;
    while (statSync(file).size < before + 4 * 1024 * 1024 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(statSync(file).size >= before + 4 * 1024 * 1024, `database file ${statSync(file).size} bytes`);
  });

  test('a write waits, from the event loop, for another connection holding the write lock', async () => {
    const { db, file } = await watchedDatabase();
    const other = new SqliteDatabase(file);
    cleanups.push(() => {
      other.close();
    });
    other.exec('begin immediate');
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const write = put(db, 'waited');
    setTimeout(() => other.exec('commit'), 150);
    await write;
    clearInterval(timer);
    assert.ok(ticks >= 3, `the event loop ran ${ticks} timer ticks while the write waited (a blocked loop runs none)`);
    const row = await db.selectFrom('settings').select('value').where('name', '=', 'waited').executeTakeFirst();
    assert.equal(row?.value, 'v');
  });
});

describe('SQLite batches under a storm', () => {
  test('hundreds of interleaved units of work, refusals, plain writes and reads all settle, and only what committed is there', {
    timeout: 30_000,
  }, async () => {
    const { db, flushes } = await watchedDatabase(2);
    const uow = new SqlUnitOfWork(db, systemClock);
    const kept: string[] = [];
    const work = Array.from({ length: 400 }, async (_, i) => {
      // Some units of work wait between their statements, so others queue for the connection.
      const pause = () => new Promise((r) => setTimeout(r, i % 3));
      if (i % 5 === 0) {
        await assert.rejects(
          uow.run(async () => {
            await put(db, `refused-${i}`);
            await pause();
            throw new Error('refused');
          }),
          /refused/,
        );
      } else if (i % 5 === 1) {
        await put(db, `plain-${i}`);
        kept.push(`plain-${i}`);
      } else if (i % 5 === 2) {
        await db.selectFrom('settings').select('name').where('name', 'like', 'uow-%').execute();
      } else {
        await uow.run(async () => {
          await put(db, `uow-${i}`);
          await pause();
          await put(db, `uow-${i}-second`);
        });
        kept.push(`uow-${i}`, `uow-${i}-second`);
      }
      await settled(db);
    });
    await Promise.all(work);
    const names = (await db.selectFrom('settings').select('name').execute()).map((r) => r.name);
    assert.deepEqual(
      names.filter((n) => !n.startsWith('master') && !n.startsWith('owner')).sort(),
      kept.sort(),
      'every committed write is there, and no refused one',
    );
    assert.ok(flushes.length < 400, `${flushes.length} flushes for 400 operations`);
  });
});

describe('statements that cannot run in a transaction', () => {
  test('a checkpoint commits the open batch first, and is refused inside a unit of work, which then writes nothing', async () => {
    const { db } = await watchedDatabase();
    const uow = new SqlUnitOfWork(db, systemClock);
    await assert.rejects(
      uow.run(async () => {
        await put(db, 'half-done');
        await sql`pragma wal_checkpoint(PASSIVE)`.execute(db);
      }),
      /cannot run inside a unit of work/,
    );
    const row = await db.selectFrom('settings').select('name').where('name', '=', 'half-done').executeTakeFirst();
    assert.equal(row, undefined);
    await sql`pragma wal_checkpoint(PASSIVE)`.execute(db);
  });
});

describe('SQLite group commit behind HTTP', () => {
  test('an answer is held until the flush that covers its write has returned', async () => {
    const [sqlite] = testDatabases();
    assert.ok(sqlite);
    const target = await sqlite.create();
    let flushing = false;
    const flushDone: number[] = [];
    const flush: Flush = (fd, done) => {
      flushing = true;
      setTimeout(
        () =>
          fdatasync(fd, (err) => {
            flushing = false;
            flushDone.push(performance.now());
            done(err);
          }),
        120,
      );
    };
    // No jobs or daemons: a background write (webhook routing) would start a flush of its own.
    const rail = await startRail(target, { OPENRAIL_DEMO: 'off' }, undefined, { flush, runJobs: false });
    cleanups.push(async () => {
      await rail.stop();
      await target.drop();
    });
    await new Promise((r) => setTimeout(r, 300));
    const count = flushDone.length;
    const res = await rail.app.inject({ method: 'POST', url: '/api/tenants', headers: owner, payload: { name: 'Held City' } });
    const answeredAt = performance.now();
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(flushing, false, 'no flush is still running when the answer leaves');
    assert.ok(flushDone.length > count, 'a flush ran for the write');
    assert.ok((flushDone.at(-1) ?? Number.POSITIVE_INFINITY) <= answeredAt, 'and returned before the answer');
  });
});
