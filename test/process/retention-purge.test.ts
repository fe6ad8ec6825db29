/**
 * A retention purge across a SIGKILL (docs/backoffice/compliance.md, "Retention"). A real
 * `openrail serve` is killed while its purge job is deleting forty thousand erasure receipts past
 * their rule; restarted on the same database, the job resumes the run: every old row goes, each
 * counted once, the dry run's count is the run's, and what is still fresh stays.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { openTestDb, testDatabases } from '../helpers/databases.ts';
import { freePort, killAll, killTree, serveOn } from '../helpers/process.ts';

const OWNER = 'purge-owner-token-0123456789abcdefghijklmnopq';
const MASTER_KEY = Buffer.alloc(32, 0x50).toString('base64url');
const headers = { authorization: `Bearer ${OWNER}`, 'content-type': 'application/json' };
const DAY = 86_400_000;
/** Erasure receipts past their rule (1095 days by default) to purge, and fresh ones that must stay. */
const CATEGORY = 'erasure-receipts';
const OLD = 40_000;
const FRESH = 100;

after(killAll);

async function purge(origin: string, dryRun: boolean): Promise<Record<string, unknown>> {
  const res = await fetch(`${origin}/api/admin/compliance/retention/purge-run`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ dryRun }),
  });
  const text = await res.text();
  assert.ok(res.status === 200 || res.status === 202, `${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

const until = async <T>(what: string, read: () => Promise<T | undefined>, ms: number, every = 20): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const found = await read();
    if (found !== undefined) return found;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, every));
  }
};

for (const factory of testDatabases()) {
  describe(`a retention purge survives kill -9 (${factory.name})`, () => {
    test('killed half-way, the restarted service finishes the run: every old row gone and counted once, the fresh kept', {
      timeout: 300_000,
    }, async (t) => {
      const target = await factory.create();
      const dir = mkdtempSync(join(tmpdir(), 'openrail-purge-kill-'));
      const port = await freePort();
      const env = {
        HOST: '127.0.0.1',
        DATABASE_URL: target.url,
        OPENRAIL_OWNER_TOKEN: OWNER,
        OPENRAIL_MASTER_KEY: MASTER_KEY,
        OPENRAIL_DEMO: 'off',
        OPENRAIL_DATA_DIR: dir,
        LOG_LEVEL: 'warn',
      };
      const db = openTestDb(target);
      try {
        let server = await serveOn(env, port);
        const now = Date.now();
        const row = (i: number, completedAt: number) => ({
          id: `era_purge${String(i).padStart(8, '0')}`,
          completed_at: completedAt,
          counts: '{}',
          tenants: 1,
          disk: 'zeroed',
          disk_checked_at: completedAt,
        });
        for (let i = 0; i < OLD; i += 1000) {
          const rows = Array.from({ length: Math.min(1000, OLD - i) }, (_, j) => row(i + j, now - 4 * 365 * DAY));
          await db.insertInto('erasure_receipts').values(rows).execute();
        }
        await db
          .insertInto('erasure_receipts')
          .values(Array.from({ length: FRESH }, (_, j) => row(OLD + j, now - DAY)))
          .execute();

        const dry = (await purge(server.origin, true)) as { counts: Record<string, number> };
        assert.equal(dry.counts[CATEGORY], OLD);
        const started = (await purge(server.origin, false)) as { run: { runId: string } };
        const runId = started.run.runId;
        const progress = async () => {
          const r = await db.selectFrom('purge_runs').select(['state', 'counts']).where('id', '=', runId).executeTakeFirst();
          return r && { state: r.state, deleted: (JSON.parse(r.counts) as Record<string, number>)[CATEGORY] ?? 0 };
        };

        // Kill the process the moment the job has deleted something and is not done.
        await until('the purge to start', async () => ((await progress())?.deleted ?? 0) > 0 || undefined, 90_000, 2);
        killTree(server.proc.child.pid as number);
        await server.proc.exited(30_000);
        const atKill = await progress();
        t.diagnostic(`killed at ${atKill?.deleted} of ${OLD} rows, the run ${atKill?.state}`);
        assert.equal(atKill?.state, 'running', 'the kill landed in the middle of the run');
        const left = async () =>
          Number(
            (
              await sql<{
                n: number | string;
              }>`select count(*) as n from erasure_receipts where completed_at < ${now - 1095 * DAY}`.execute(db)
            ).rows[0]?.n,
          );
        assert.equal((atKill?.deleted ?? 0) + (await left()), OLD, 'every row deleted was counted, in the same transaction');

        // Restarted, the job takes the run up again once the dead process's lease has run out.
        server = await serveOn(env, port);
        const done = await until(
          'the run to finish',
          async () => {
            const p = await progress();
            return p?.state === 'done' ? p : undefined;
          },
          180_000,
          250,
        );
        assert.equal(done.deleted, OLD, 'each old row counted once');
        assert.equal(await left(), 0, 'every old row gone');
        const fresh = await db
          .selectFrom('erasure_receipts')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        assert.equal(Number(fresh.n), FRESH, 'the fresh receipts stay');
        const purged = await db.selectFrom('audit_log').select('detail').where('action', '=', 'retention.purged').execute();
        assert.equal(purged.length, 1, 'the run is audited once');
        assert.equal((JSON.parse(purged[0]?.detail ?? '{}') as { counts: Record<string, number> }).counts[CATEGORY], OLD);
        server.proc.kill('SIGTERM');
        await server.proc.exited(30_000);
      } finally {
        await db.destroy();
        await target.drop();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
