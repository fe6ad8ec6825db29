import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, testDatabases } from '../../test/helpers/databases.ts';
import { freePort, spawnOpenrail } from '../../test/helpers/process.ts';
import { owner, startRail, type TestRail } from '../../test/helpers/rail.ts';

/**
 * `openrail restore` takes a manifest and its backup file from the backup folder the deployment
 * names (OPENRAIL_BACKUP_DIR), both of them, after resolving symbolic links; a backup kept anywhere
 * else is restored only with --outside-backup-dir (issue 48, point 15; docs/operations.md,
 * "Restoring a backup"). The checksum is checked either way. The rule is the command line's, before
 * any engine is touched, so SQLite targets show it.
 */
describe('openrail restore: where the backup lies', () => {
  let db: TestDatabase;
  let rail: TestRail;
  let root: string;
  let backupDir: string;
  let elsewhere: string;
  let backupId: string;
  let file: string;
  let targets = 0;

  /** Runs the command into a fresh SQLite target; answers how it ended and whether the target now exists. */
  const restore = async (args: string[]) => {
    const target = join(root, `restored-${++targets}.sqlite`);
    const run = spawnOpenrail(['restore', ...args], { DATABASE_URL: `sqlite:${target}`, OPENRAIL_BACKUP_DIR: backupDir });
    const exit = (await run.exited(60_000)).code;
    return { exit, out: run.stdout(), err: run.stderr(), restored: existsSync(target) };
  };
  const manifestIn = (dir: string) => join(dir, `${backupId}.manifest.json`);

  before(async () => {
    const [sqlite] = testDatabases();
    assert.ok(sqlite);
    db = await sqlite.create();
    root = mkdtempSync(join(tmpdir(), 'openrail-restore-'));
    backupDir = join(root, 'backups');
    elsewhere = join(root, 'usb-stick');
    mkdirSync(elsewhere);
    rail = await startRail(db, { OPENRAIL_DEMO: 'off', OPENRAIL_BACKUP_DIR: backupDir }, undefined, { runJobs: false });
    const taken = await rail.app.inject({ method: 'POST', url: '/api/admin/ops/backup', headers: owner, payload: {} });
    assert.equal(taken.statusCode, 200, taken.body);
    ({ backupId, file } = taken.json());
    // The same backup, copied whole to a folder the deployment does not name.
    copyFileSync(manifestIn(backupDir), manifestIn(elsewhere));
    copyFileSync(join(backupDir, file), join(elsewhere, file));
  });
  after(async () => {
    await rail.stop();
    await db.drop();
    rmSync(root, { recursive: true, force: true });
  });

  test('a manifest and its file in the backup folder are restored', async () => {
    const done = await restore([manifestIn(backupDir)]);
    assert.equal(done.exit, 0, done.err);
    assert.match(done.out, new RegExp(`restored backup ${backupId}`));
    assert.equal(done.restored, true);
  });

  test('a manifest outside the backup folder is refused, naming the folder and the flag, and nothing is written', async () => {
    const refused = await restore([manifestIn(elsewhere)]);
    assert.equal(refused.exit, 1, refused.err);
    assert.match(refused.err, /not in the backup folder/);
    assert.match(refused.err, /OPENRAIL_BACKUP_DIR/);
    assert.match(refused.err, /--outside-backup-dir/);
    assert.equal(refused.restored, false);
  });

  test('a manifest linked into the backup folder from elsewhere is refused', async () => {
    const linked = join(backupDir, 'linked.manifest.json');
    symlinkSync(manifestIn(elsewhere), linked);
    try {
      const refused = await restore([linked]);
      assert.equal(refused.exit, 1, refused.err);
      assert.match(refused.err, /not in the backup folder/);
      assert.equal(refused.restored, false);
    } finally {
      rmSync(linked);
    }
  });

  test('a manifest in the backup folder naming a file that lies elsewhere is refused', async () => {
    // The manifest names a file beside it, but that name is a link to a copy outside the folder.
    const manifest = JSON.parse(readFileSync(manifestIn(backupDir), 'utf8'));
    const other = `${backupId}-other.sqlite`;
    writeFileSync(join(backupDir, 'other.manifest.json'), JSON.stringify({ ...manifest, file: other }));
    symlinkSync(join(elsewhere, file), join(backupDir, other));
    try {
      const refused = await restore([join(backupDir, 'other.manifest.json')]);
      assert.equal(refused.exit, 1, refused.err);
      assert.match(refused.err, /not in the backup folder/);
      assert.equal(refused.restored, false);
      // A path instead of a name is no manifest of ours, flag or not.
      writeFileSync(join(backupDir, 'path.manifest.json'), JSON.stringify({ ...manifest, file: `../usb-stick/${file}` }));
      for (const args of [
        [join(backupDir, 'path.manifest.json')],
        ['--outside-backup-dir', join(backupDir, 'path.manifest.json')],
      ]) {
        const path = await restore(args);
        assert.equal(path.exit, 1, path.err);
        assert.match(path.err, /not an openrail backup manifest/);
        assert.equal(path.restored, false);
      }
      // With the flag, the linked file is taken: its checksum is the manifest's.
      const taken = await restore(['--outside-backup-dir', join(backupDir, 'other.manifest.json')]);
      assert.equal(taken.exit, 0, taken.err);
      assert.equal(taken.restored, true);
    } finally {
      for (const f of ['other.manifest.json', other, 'path.manifest.json']) rmSync(join(backupDir, f), { force: true });
    }
  });

  test('with --outside-backup-dir, a backup kept elsewhere is restored, its checksum still checked', async () => {
    const done = await restore(['--outside-backup-dir', manifestIn(elsewhere)]);
    assert.equal(done.exit, 0, done.err);
    assert.equal(done.restored, true);
    const after = await restore([manifestIn(elsewhere), '--outside-backup-dir']);
    assert.equal(after.exit, 0, 'the flag may come after the manifest');
    // A file changed since it was taken is refused all the same.
    const bytes = readFileSync(join(elsewhere, file));
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0xff;
    writeFileSync(join(elsewhere, file), bytes);
    const changed = await restore(['--outside-backup-dir', manifestIn(elsewhere)]);
    assert.equal(changed.exit, 1);
    assert.match(changed.err, /the file is not the backup taken/);
    assert.equal(changed.restored, false);
  });

  test('an option it does not know is a mistaken command line (exit 2, with the usage)', async () => {
    const mistaken = await restore(['--force', manifestIn(backupDir)]);
    assert.equal(mistaken.exit, 2);
    assert.match(mistaken.err, /usage: openrail restore \[--outside-backup-dir\] <manifest>/);
    assert.equal(mistaken.restored, false);
  });
});

/**
 * A PostgreSQL target that cannot be used is named as a start names it (issue 53, point 5): its
 * host, port and database, which problem it is and what to do, never the driver's words. The
 * backup here is a file whose manifest says PostgreSQL, so the command reaches the target.
 */
describe('openrail restore: a PostgreSQL target it cannot reach', () => {
  test('nothing listens on the port: unreachable, with host, port and database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openrail-restore-pg-'));
    try {
      const file = 'bkp_unreachable.dump';
      writeFileSync(join(dir, file), 'a dump that is never read');
      const sha256 = createHash('sha256')
        .update(readFileSync(join(dir, file)))
        .digest('hex');
      const manifest = join(dir, 'bkp_unreachable.manifest.json');
      writeFileSync(manifest, JSON.stringify({ format: 'openrail-backup/1', engine: 'postgres', file, sha256 }));
      const port = await freePort();
      const run = spawnOpenrail(['restore', manifest], {
        DATABASE_URL: `postgres://openrail:secret-not-printed@127.0.0.1:${port}/openrail_restored`,
        OPENRAIL_BACKUP_DIR: dir,
      });
      assert.equal((await run.exited(60_000)).code, 1);
      assert.equal(
        run.stderr().trim(),
        `openrail restore: PostgreSQL at 127.0.0.1:${port}, database "openrail_restored": unreachable ` +
          '(connection refused: nothing listens there): check that PostgreSQL runs there and that DATABASE_URL names its host and port',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
