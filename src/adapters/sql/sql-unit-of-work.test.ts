import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { migratedDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { systemClock } from '../../core/clock.ts';
import { afterCommit, insideTransaction } from './ambient.ts';
import type { Db } from './connect.ts';
import { atomically, SqlUnitOfWork } from './sql-unit-of-work.ts';

const readSetting = async (handle: Db, key: string) =>
  (await handle.selectFrom('settings').select('value').where('name', '=', key).executeTakeFirst())?.value;
const writeSetting = (handle: Db, key: string, value: string) =>
  handle.insertInto('settings').values({ name: key, value }).execute();

class Refused extends Error {}

for (const engine of testDatabases()) {
  describe(`the ambient transaction (${engine.name})`, () => {
    const on = migratedDatabase(engine);

    // Before decision 0020 this read waited for ever on SQLite (the transaction held the one
    // connection) and ran outside the transaction on PostgreSQL. The timeout only ends a hang.
    test('the root handle, used from inside a unit of work, is its transaction', { timeout: 20_000 }, async () => {
      const uow = new SqlUnitOfWork(on.db, () => ({}), systemClock);
      const seen = await uow.run(async () => {
        await writeSetting(on.db, 'ambient-1', 'inside');
        return readSetting(on.db, 'ambient-1');
      });
      assert.equal(seen, 'inside');
      assert.equal(await readSetting(on.db, 'ambient-1'), 'inside');
    });

    test('what the root handle wrote inside a refused unit of work is undone with it', async () => {
      const uow = new SqlUnitOfWork(on.db, () => ({}), systemClock);
      await assert.rejects(
        uow.run(async () => {
          await writeSetting(on.db, 'ambient-2', 'never');
          throw new Refused();
        }),
        Refused,
      );
      assert.equal(await readSetting(on.db, 'ambient-2'), undefined);
    });

    test('a unit of work inside another joins it; atomically inside it is a savepoint', async () => {
      const outer = new SqlUnitOfWork(on.db, (trx) => ({ trx }), systemClock);
      const inner = new SqlUnitOfWork(on.db, (trx) => ({ trx }), systemClock);
      await assert.rejects(
        outer.run(async ({ trx: outerTrx }) => {
          await inner.run(async ({ trx }) => {
            assert.equal(trx, outerTrx, 'the inner unit of work is handed the outer transaction');
            await writeSetting(on.db, 'ambient-3', 'joined');
          });
          await assert.rejects(
            atomically(on.db, async (trx) => {
              await writeSetting(trx, 'ambient-4', 'undone by its savepoint');
              throw new Refused();
            }),
            Refused,
          );
          assert.equal(await readSetting(on.db, 'ambient-4'), undefined, 'the savepoint undid its own write only');
          assert.equal(await readSetting(on.db, 'ambient-3'), 'joined');
          throw new Refused();
        }),
        Refused,
      );
      assert.equal(await readSetting(on.db, 'ambient-3'), undefined, 'the joined write went with the outer transaction');
    });

    test('a cache fills after the commit, never after a rollback, at once outside a transaction', async () => {
      const outer = new SqlUnitOfWork(on.db, () => ({}), systemClock);
      const inner = new SqlUnitOfWork(on.db, () => ({}), systemClock);
      const filled: string[] = [];
      afterCommit(() => filled.push('outside'));
      assert.deepEqual(filled, ['outside']);
      assert.equal(insideTransaction(), false);
      await outer.run(async () => {
        assert.equal(insideTransaction(), true);
        await writeSetting(on.db, 'ambient-7', 'x');
        await inner.run(async () => afterCommit(() => filled.push('joined')));
        afterCommit(() => filled.push('outer'));
        assert.deepEqual(filled, ['outside'], 'nothing before the outer transaction commits');
      });
      assert.deepEqual(filled, ['outside', 'joined', 'outer']);
      await assert.rejects(
        outer.run(async () => {
          await inner.run(async () => afterCommit(() => filled.push('rolled back')));
          throw new Refused();
        }),
        Refused,
      );
      assert.deepEqual(filled, ['outside', 'joined', 'outer'], 'a rollback drops what waited');
    });

    test('other work, and work left running after the transaction ended, use the root', { timeout: 20_000 }, async () => {
      const uow = new SqlUnitOfWork(on.db, () => ({}), systemClock);
      let release: () => void = () => {};
      let started: () => void = () => {};
      const running = new Promise<void>((resolve) => (started = resolve));
      let straggler: Promise<string | undefined> | undefined;
      let allowStraggler: () => void = () => {};
      const gate = new Promise<void>((resolve) => (allowStraggler = resolve));
      const held = uow.run(async () => {
        await writeSetting(on.db, 'ambient-5', 'committed');
        // Started inside, awaited by nobody inside: it runs after the transaction ended.
        straggler = gate.then(() => readSetting(on.db, 'ambient-5'));
        await new Promise<void>((resolve) => {
          release = resolve;
          started();
        });
      });
      await running;
      // Another request, outside the transaction's work, does not see it, and runs (on SQLite
      // after it, when the connection is free).
      const other = readSetting(on.db, 'ambient-5');
      release();
      await held;
      const seenOutside = await other;
      assert.ok(seenOutside === undefined || seenOutside === 'committed');
      allowStraggler();
      assert.equal(await straggler, 'committed');
      await writeSetting(on.db, 'ambient-6', 'after');
      assert.equal(await readSetting(on.db, 'ambient-6'), 'after');
    });
  });
}
