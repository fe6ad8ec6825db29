import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, testDatabases } from '../../../../test/helpers/databases.ts';
import { freePort, spawnOpenrail } from '../../../../test/helpers/process.ts';
import { OWNER_TOKEN, owner, PUBLIC_URL, startRail, type TestRail } from '../../../../test/helpers/rail.ts';
import type { Clock } from '../../../core/clock.ts';
import { DRILLS, LEFTOVERS_AFTER_MS } from './backups.ts';

/**
 * A backup killed half way (issue 48, point 15): the copy is written under a temporary name, its
 * owner's only from its first byte, and renamed when whole; whatever a crash leaves (a temporary
 * file, a whole copy no manifest names, a sidecar without its manifest) is listed nowhere, and the
 * drill job removes it once it is older than LEFTOVERS_AFTER_MS (docs/operations.md, "Backups and
 * restore drills").
 */

const HOUR = 60 * 60 * 1000;

/** A pg_dump that writes a little of the file it is given, says it started, and then waits to be killed. */
function slowPgDump(): { bin: string; started: string } {
  const bin = mkdtempSync(join(tmpdir(), 'openrail-slow-pgdump-'));
  const started = join(bin, 'started');
  writeFileSync(
    join(bin, 'pg_dump'),
    `#!/bin/sh
for a; do case "$a" in --file=*) f="\${a#--file=}";; esac; done
printf 'PGDMP half a dump' > "$f"
echo "$$ $f" > '${started}'
exec sleep 120
`,
    { mode: 0o700 },
  );
  return { bin, started };
}

async function until<T>(what: string, probe: () => T | undefined, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const modeOf = (path: string) => statSync(path).mode & 0o777;

for (const factory of testDatabases()) {
  describe(`a backup killed half way (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let backupDir: string;
    let now = Date.now();
    const clock: Clock = { now: () => now };
    const env = () => ({ OPENRAIL_DEMO: 'off', OPENRAIL_BACKUP_DIR: backupDir });
    const ext = factory.name === 'sqlite' ? 'sqlite' : 'pgdump';

    const listed = async (on: TestRail = rail) => {
      const res = await on.app.inject({ method: 'GET', url: '/api/admin/ops/backups', headers: owner });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json().backups as { backupId: string; file: string }[]).map((b) => b.file);
    };
    const files = () =>
      readdirSync(backupDir)
        .filter((f) => f !== 'scratch')
        .sort();
    /** Runs the drill job once, as its schedule would (the test drives the job runner by hand). */
    const drillJob = async (on: TestRail = rail) => {
      now += DRILLS.everyMs;
      await on.jobs.tick();
    };

    before(async () => {
      db = await factory.create();
      backupDir = mkdtempSync(join(tmpdir(), 'openrail-leftovers-'));
      rail = await startRail(db, env(), clock, { runJobs: false });
    });
    after(async () => {
      await rail.stop();
      await db.drop();
      rmSync(backupDir, { recursive: true, force: true });
    });

    test('a whole backup leaves its three files, its owner’s only, and nothing temporary', async () => {
      const res = await rail.app.inject({ method: 'POST', url: '/api/admin/ops/backup', headers: owner, payload: {} });
      assert.equal(res.statusCode, 200, res.body);
      const { backupId, file } = res.json();
      assert.deepEqual(files(), [file, `${backupId}.manifest.json`, `${backupId}.sha256`].sort());
      for (const f of files()) assert.equal(modeOf(join(backupDir, f)), 0o600, f);
      await drillJob();
    });

    test('what a crash leaves is listed nowhere, and the drill job removes it once older than the bound; a backup in progress and files not ours stay', async () => {
      const before = files();
      const kept = await listed();
      const crash = (name: string, content = 'half a copy', ageMs = 2 * HOUR) => {
        const path = join(backupDir, name);
        writeFileSync(path, content);
        chmodSync(path, 0o644);
        const at = (now - ageMs) / 1000;
        utimesSync(path, at, at);
        return name;
      };
      const leftovers = [
        // Killed while the copy was written: the temporary file, and SQLite's journal of it.
        crash(`bkp_AAAAAAAAAAAAAAAAAAAAAA.${ext}.partial`),
        crash(`bkp_AAAAAAAAAAAAAAAAAAAAAA.${ext}.partial-journal`),
        // Killed after the copy was renamed, before its manifest was written: a whole copy no manifest names.
        crash(`bkp_BBBBBBBBBBBBBBBBBBBBBB.${ext}`),
        crash('bkp_BBBBBBBBBBBBBBBBBBBBBB.sha256', `${'0'.repeat(64)}  bkp_BBBBBBBBBBBBBBBBBBBBBB.${ext}\n`),
        // Killed while the manifest was written.
        crash('bkp_CCCCCCCCCCCCCCCCCCCCCC.manifest.json.partial', '{"format": "openrail-'),
      ];
      // A backup still being written (another process's, a minute ago), and what is not a backup's.
      const stays = [
        crash(`bkp_DDDDDDDDDDDDDDDDDDDDDD.${ext}.partial`, 'being written', 60 * 1000),
        crash('notes.txt', 'the operator’s own', 30 * 24 * HOUR),
        crash(`restored-by-hand.${ext}`, 'not a backup id', 30 * 24 * HOUR),
      ];
      assert.deepEqual(await listed(), kept, 'no leftover is listed');

      await drillJob();
      assert.deepEqual(files(), [...before, ...stays].sort(), 'the leftovers are gone, nothing else');
      for (const name of leftovers) assert.equal(existsSync(join(backupDir, name)), false, name);
      assert.deepEqual(await listed(), kept);

      // Once the one in progress is as old as the bound without a write, it is a leftover too.
      now += LEFTOVERS_AFTER_MS;
      await drillJob();
      assert.deepEqual(files(), [...before, 'notes.txt', `restored-by-hand.${ext}`].sort());
      rmSync(join(backupDir, 'notes.txt'));
      rmSync(join(backupDir, `restored-by-hand.${ext}`));
    });

    test('a backup whose pg_dump is killed half way answers 409, and leaves no file and no row', async (t) => {
      if (factory.name !== 'postgres') return t.skip('pg_dump is PostgreSQL’s');
      const before = files();
      const kept = await listed();
      const slow = slowPgDump();
      const path = process.env.PATH;
      process.env.PATH = `${slow.bin}:${path}`;
      let pgDump: number | undefined;
      try {
        const answer = rail.app.inject({ method: 'POST', url: '/api/admin/ops/backup', headers: owner, payload: {} });
        const [pid, written] = (
          await until('pg_dump to start', () => (existsSync(slow.started) ? readFileSync(slow.started, 'utf8') : undefined))
        )
          .trim()
          .split(' ') as [string, string];
        pgDump = Number(pid);
        // Half way: the copy is under its temporary name, its owner's only from its first byte.
        const halfWay = { name: written.slice(backupDir.length + 1), mode: modeOf(written), files: files() };
        process.kill(pgDump, 'SIGKILL');
        pgDump = undefined;
        const res = await answer;
        assert.match(halfWay.name, /^bkp_[A-Za-z0-9_-]+\.pgdump\.partial$/);
        assert.equal(halfWay.mode, 0o600);
        assert.deepEqual(halfWay.files, [...before, halfWay.name].sort());
        assert.equal(res.statusCode, 409, res.body);
        assert.equal(res.json().error, 'backup_unavailable');
      } finally {
        if (pgDump) process.kill(pgDump, 'SIGKILL');
        process.env.PATH = path;
        rmSync(slow.bin, { recursive: true, force: true });
      }
      assert.deepEqual(files(), before);
      assert.deepEqual(await listed(), kept);
    });

    test('the service killed (SIGKILL) while pg_dump writes leaves one temporary file, 0600 and listed nowhere, which the drill job removes', async (t) => {
      if (factory.name !== 'postgres')
        return t.skip('an SQLite backup is one step in the process; its leftovers are simulated above');
      const before = files();
      const kept = await listed();
      const slow = slowPgDump();
      const port = await freePort();
      const service = spawnOpenrail(['serve', '--workers', '1'], {
        HOST: '127.0.0.1',
        PORT: String(port),
        PUBLIC_URL,
        DATABASE_URL: db.url,
        OPENRAIL_DATA_DIR: mkdtempSync(join(tmpdir(), 'openrail-killed-')),
        OPENRAIL_BACKUP_DIR: backupDir,
        OPENRAIL_OWNER_TOKEN: OWNER_TOKEN,
        OPENRAIL_MASTER_KEY: Buffer.alloc(32, 7).toString('base64url'),
        OPENRAIL_DEMO: 'off',
        PATH: `${slow.bin}:${process.env.PATH}`,
      });
      let pgDump: number | undefined;
      try {
        await service.waitForStdout('openrail is serving at');
        fetch(`http://127.0.0.1:${port}/api/admin/ops/backup`, {
          method: 'POST',
          headers: { ...owner, 'content-type': 'application/json' },
          body: '{}',
        }).catch(() => undefined);
        const [pid, written] = (
          await until('pg_dump to start', () => (existsSync(slow.started) ? readFileSync(slow.started, 'utf8') : undefined))
        )
          .trim()
          .split(' ') as [string, string];
        pgDump = Number(pid);
        service.kill('SIGKILL');
        await service.exited();
        const left = files().filter((f) => !before.includes(f));
        assert.deepEqual(left, [written.slice(backupDir.length + 1)], 'one temporary file, nothing under a backup’s name');
        assert.match(left[0] ?? '', /^bkp_[A-Za-z0-9_-]+\.pgdump\.partial$/);
        assert.equal(modeOf(written), 0o600);
        // Written just now, on this suite's clock.
        utimesSync(written, now / 1000, now / 1000);
      } finally {
        service.kill('SIGKILL');
        if (pgDump) process.kill(pgDump, 'SIGKILL');
        rmSync(slow.bin, { recursive: true, force: true });
      }
      assert.deepEqual(await listed(), kept, 'the killed backup is listed nowhere');
      await drillJob();
      assert.equal(files().length, before.length + 1, 'younger than the bound, it may still be written');
      now += LEFTOVERS_AFTER_MS;
      await drillJob();
      assert.deepEqual(files(), before, 'the drill job removed it');
    });
  });
}
