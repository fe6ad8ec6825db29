/**
 * Single use, at the store (docs/architecture.md, "Rules that hold everywhere"): every spend in
 * the catalogue (single-use/spends.ts) succeeds once, and each of its guards alone refuses it and
 * changes nothing, asked of the store directly so that no service pre-check hides a missing SQL
 * condition. On PostgreSQL each spend is also raced from two processes (this one and a child)
 * that both wait on the row's lock (or, for a spend that inserts, on a conflicting insert) before
 * either may write: the gap an in-process race never opens.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { type Db, migrate, openDatabase } from '../../src/adapters/sql/connect.ts';
import { SqlIssuedCredentialStore } from '../../src/adapters/sql/issuance/sql-issued-credential-store.ts';
import type { StatusAllocation } from '../../src/ports/issued-credential-store.ts';
import { openTestDb, type TestDatabase, testDatabases } from '../helpers/databases.ts';
import { collectFor, grantedToken, NOW, SPENDS, type SpendCase, seedTenants } from './single-use/spends.ts';

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL('../fixtures/spend-child.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** What the spend may change, as stored now: the row by the spend's key (every column), unless the spend says. */
async function stored(db: Db, spend: SpendCase, row: Record<string, unknown>): Promise<unknown> {
  if (spend.state) return spend.state(db, row);
  let q = db.selectFrom(spend.table).selectAll();
  for (const column of spend.key) q = q.where(column as never, '=', row[column] as never);
  return q.executeTakeFirst();
}

/** What the third connection holds by default while both spends queue: the row, locked. */
async function lockRow(client: pg.Client, spend: SpendCase, row: Record<string, unknown>): Promise<void> {
  const where = spend.key.map((c, i) => `${c} = $${i + 1}`).join(' and ');
  const locked = await client.query(
    `select 1 from ${spend.table} where ${where} for update`,
    spend.key.map((c) => row[c]),
  );
  assert.equal(locked.rowCount, 1);
}

for (const factory of testDatabases()) {
  describe(`single-use spends at the store (${factory.name})`, () => {
    let tdb: TestDatabase;
    let db: Db;
    before(async () => {
      tdb = await factory.create();
      db = openTestDb(tdb);
      await migrate(db);
      await seedTenants(db);
    });
    after(async () => {
      await db?.destroy();
      await tdb?.drop();
    });

    for (const spend of SPENDS) {
      describe(spend.name, () => {
        test(spend.spends === false ? 'a sound row is found, and found again' : 'a sound row is spent once', async () => {
          const row = await spend.seed(db);
          assert.equal(await spend.spend(db, row), true, 'the first spend');
          assert.equal(await spend.spend(db, row), spend.spends === false, 'the second');
        });

        for (const guard of spend.guards) {
          test(`refused: ${guard.name}; nothing changes`, async () => {
            if (guard.neighbour) {
              const row = await spend.seed(db);
              const neighbour = await spend.seed(db, guard.neighbour === true ? undefined : guard.neighbour(row));
              const untouched = await stored(db, spend, neighbour);
              assert.equal(await spend.spend(db, row), true, 'the row itself is spent');
              assert.deepEqual(await stored(db, spend, neighbour), untouched, 'its neighbour is not');
              return;
            }
            const row = await spend.seed(db, guard.row);
            const more = (await guard.before?.(db, row)) ?? {};
            const was = await stored(db, spend, row);
            assert.equal(await spend.spend(db, row, { ...guard.call, ...more }), false);
            assert.deepEqual(await stored(db, spend, row), was, 'the refused spend wrote nothing');
          });
        }
      });
    }

    describe('the collection says which use was spent, and fails loudly on anything else', () => {
      const tokenSpentAt = async (row: Record<string, unknown>) =>
        (
          await db
            .selectFrom('access_tokens')
            .select('spent_at')
            .where('token_hash', '=', row.token_hash as string)
            .executeTakeFirstOrThrow()
        ).spent_at;

      test('a c_nonce spent by another collection: refused for the nonce, the token left usable', async () => {
        const first = await grantedToken(db);
        const second = await grantedToken(db);
        const nonce = randomBytes(32).toString('base64url');
        assert.deepEqual(await collectFor(db, first, { nonce }), { ok: true, value: true });
        assert.deepEqual(await collectFor(db, second, { nonce }), { ok: false, reason: 'nonce' });
        assert.equal(await tokenSpentAt(second), null);
      });

      test('a token collected once: refused for the token', async () => {
        const row = await grantedToken(db);
        assert.deepEqual(await collectFor(db, row), { ok: true, value: true });
        assert.deepEqual(await collectFor(db, row), { ok: false, reason: 'token' });
      });

      test('an offer collected with another token of its grant: refused for the token, which stays unspent', async () => {
        const first = await grantedToken(db);
        const second = await grantedToken(db, { grant_id: first.grant_id });
        assert.deepEqual(await collectFor(db, first), { ok: true, value: true });
        assert.deepEqual(await collectFor(db, second), { ok: false, reason: 'token' });
        assert.equal(await tokenSpentAt(second), null);
      });

      test('a holder key without its reserved list is a programming error, not a refusal, and spends nothing', async () => {
        const row = await grantedToken(db);
        await assert.rejects(collectFor(db, row, { holderThumbprints: ['thumbprint'], lists: [] }), {
          message: 'one reserved list per holder key',
        });
        assert.equal(await tokenSpentAt(row), null);
      });

      test('finishing is handed one slot per holder key, drawn from the list reserved for it', async () => {
        const row = await grantedToken(db);
        const reserved = await new SqlIssuedCredentialStore(db).reserveSlots('alpha', 1, { size: 64, capacity: 8 }, NOW);
        const list = { listSeq: reserved.listSeq, size: reserved.size };
        let handed: StatusAllocation[] = [];
        const result = await collectFor(db, row, { holderThumbprints: ['thumbprint'], lists: [list] }, async (slots) => {
          handed = slots;
          return true;
        });
        assert.deepEqual(result, { ok: true, value: true });
        assert.equal(handed.length, 1, 'one slot, for the one holder key');
        assert.equal(handed[0]?.listSeq, list.listSeq);
        assert.equal(handed[0]?.idx, 0, 'the index randomIndex drew');
      });

      test('an error in finishing the collection is rethrown and rolls every spend back', async () => {
        const row = await grantedToken(db);
        const broken = new Error('signing failed');
        await assert.rejects(
          collectFor(db, row, {}, async () => {
            throw broken;
          }),
          (err) => err === broken,
        );
        assert.equal(await tokenSpentAt(row), null);
        assert.deepEqual(await collectFor(db, row), { ok: true, value: true }, 'the token still collects');
      });
    });

    if (factory.name !== 'postgres') return;

    describe('two processes, both waiting on the row before either writes', () => {
      for (const spend of SPENDS.filter((s) => s.spends !== false)) {
        test(`${spend.name}: exactly one is spent`, async () => {
          const row = await spend.seed(db);
          // This process and a child each spend with a pool of their own, named so that both can
          // be seen waiting on the row while a third connection holds it.
          const name = `race-${randomBytes(6).toString('hex')}`;
          const named = new URL(tdb.location.kind === 'postgres' ? tdb.location.url : 'postgres://unused');
          named.searchParams.set('application_name', name);
          const mine = openDatabase({ kind: 'postgres', url: named.toString() }, { schema: tdb.schema as string, poolSize: 1 });
          const holder = new pg.Client({ connectionString: tdb.url });
          await holder.connect();
          try {
            await holder.query('begin');
            await (spend.hold ? spend.hold(holder, row) : lockRow(holder, spend, row));
            const child = run(
              process.execPath,
              ['--import', 'tsx', CHILD, JSON.stringify(tdb.location), tdb.schema ?? '', name, spend.name, JSON.stringify(row)],
              { cwd: REPO, timeout: 60_000 },
            ).then((r) => r.stdout.trim());
            const answers = Promise.all([child, spend.spend(mine, row).then(String)]);
            let settled: unknown;
            answers.then(
              (v) => (settled = v),
              (err) => (settled = err),
            );
            await waitForLockWaiters(holder, name, 2, () => settled);
            await holder.query(spend.release ?? 'commit');
            assert.deepEqual((await answers).sort(), ['false', 'true']);
          } finally {
            await holder.end();
            await mine.destroy();
          }
        });
      }
    });
  });
}

/** Until `count` backends of `applicationName` wait on a lock (the children are queued on the row). */
async function waitForLockWaiters(
  client: pg.Client,
  applicationName: string,
  count: number,
  ended: () => unknown,
): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (ended() !== undefined) throw new Error(`the spends ended before the row was released: ${String(ended())}`);
    // Inside the holder's transaction the activity view is a snapshot unless it is cleared.
    await client.query('select pg_stat_clear_snapshot()');
    const r = await client.query(
      "select count(*)::int as n from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock'",
      [applicationName],
    );
    if (r.rows[0].n >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the two spends never both waited on the row (${applicationName})`);
}
