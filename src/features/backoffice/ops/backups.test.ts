import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { decodeJwt } from 'jose';
import { sql } from 'kysely';
import pg from 'pg';
import { type TestDatabase, testDatabases } from '../../../../test/helpers/databases.ts';
import { billBody } from '../../../../test/helpers/deposits.ts';
import { accountOf, newHolderKey } from '../../../../test/helpers/holder.ts';
import { issueOne, PASS_SUBJECT, registerType } from '../../../../test/helpers/issuance.ts';
import { signedInOperator } from '../../../../test/helpers/operators.ts';
import { verifiedOn } from '../../../../test/helpers/presentation.ts';
import { spawnOpenrail } from '../../../../test/helpers/process.ts';
import { owner, startRail, type TestRail } from '../../../../test/helpers/rail.ts';
import { fileDigest } from '../../../adapters/fs/file-digest.ts';
import type { Clock } from '../../../core/clock.ts';
import { DRILLS } from './backups.ts';

type Drill = {
  drillId: string;
  backupId: string;
  ok: boolean;
  trigger: string;
  checks: { check: string; ok: boolean; detail: string }[];
};

for (const factory of testDatabases()) {
  describe(`backups and restore drills (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let ops: { authorization: string };
    let backupDir: string;
    let env: Record<string, string>;
    let _vct: string;
    let issuedBefore: Awaited<ReturnType<typeof issueOne>>;
    let now = Date.now();
    const clock: Clock = { now: () => now };

    const post = (url: string, payload: unknown, headers: Record<string, string> = ops) =>
      rail.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });
    const get = async (url: string) => {
      const res = await rail.app.inject({ method: 'GET', url, headers: ops });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    const takeBackup = async () => {
      const res = await post('/api/admin/ops/backup', {});
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    /** Runs the drill job once (the test drives the job runner by hand) and answers the newest drill. */
    const drilled = async (backupId: string): Promise<Drill> => {
      now += DRILLS.everyMs;
      await rail.jobs.tick();
      const { drills } = await get(`/api/admin/ops/backup-drills?backupId=${backupId}`);
      assert.equal(drills.length, 1, 'one drill follows the backup');
      assert.equal(drills[0].trigger, 'after-backup');
      return drills[0];
    };
    const failed = (drill: Drill) => drill.checks.filter((c) => !c.ok);
    const verifies = (issued: typeof issuedBefore) => verifiedOn(rail.app, issued);

    before(async () => {
      db = await factory.create();
      backupDir = mkdtempSync(join(tmpdir(), 'openrail-backups-'));
      env = { OPENRAIL_DEMO: 'off', OPENRAIL_BACKUP_DIR: backupDir };
      rail = await startRail(db, env, clock, { runJobs: false });
      assert.equal((await post('/api/tenants', { name: 'Alpha' }, owner)).statusCode, 201);
      await registerType(rail.app, 'alpha', 'pass');
      ops = await signedInOperator(rail.app, 'ops-one', ['ops']);
      issuedBefore = await issueOne(rail.app, 'alpha', 'pass', PASS_SUBJECT);
      _vct = (decodeJwt(issuedBefore.credential.split('~')[0] as string) as { vct: string }).vct;
      const revokedOne = await issueOne(rail.app, 'alpha', 'pass', PASS_SUBJECT);
      const status = (decodeJwt(revokedOne.credential.split('~')[0] as string) as { status: { status_list: unknown } }).status
        .status_list;
      assert.equal(
        (await post('/api/admin/ops/revoke', { tenant: 'alpha', status, reason: 'a revoked one to restore' })).statusCode,
        200,
      );
      // A deposit, so that a tenant's deposit chain is in the backup.
      const product = await post('/api/products', { tenant: 'alpha', kind: 'bill', name: 'Water bill' }, owner);
      assert.equal((await post(`/api/products/${product.json().productId}/approve`, {}, owner)).statusCode, 200);
      const accountId = accountOf(await newHolderKey());
      assert.equal((await post('/api/members/enroll', { tenant: 'alpha', accountId }, owner)).statusCode, 201);
      assert.equal((await post('/api/tenants/alpha/bills', billBody(accountId), owner)).statusCode, 201);
    });
    after(async () => {
      await rail.stop();
      await db.drop();
      rmSync(backupDir, { recursive: true, force: true });
    });

    test('a backup is written with its manifest and checksum, audited, and the drill that follows proves it', async () => {
      const taken = await takeBackup();
      assert.equal(taken.ok, true);
      assert.ok(Number.isInteger(taken.auditSeq));
      assert.equal(taken.engine, factory.name);
      assert.equal(taken.lastDrill, null);
      const manifest = JSON.parse(readFileSync(join(backupDir, `${taken.backupId}.manifest.json`), 'utf8'));
      assert.equal(manifest.sha256, taken.sha256);
      assert.equal((await fileDigest(join(backupDir, taken.file))).sha256, taken.sha256);
      for (const file of [taken.file, `${taken.backupId}.manifest.json`, `${taken.backupId}.sha256`]) {
        assert.equal(statSync(join(backupDir, file)).mode & 0o777, 0o600, `${file} is its owner's only`);
      }
      assert.equal(readFileSync(join(backupDir, `${taken.backupId}.sha256`), 'utf8'), `${taken.sha256}  ${taken.file}\n`);
      assert.equal(manifest.counts.issued_credentials, 2);
      assert.equal(manifest.counts.deposits, 1);
      assert.deepEqual(
        manifest.statusLists.map((l: { tenant: string; revoked: number }) => [l.tenant, l.revoked]),
        [['alpha', 1]],
      );
      const entry = await get(`/api/admin/audit/${taken.auditSeq}`);
      assert.equal(entry.action, 'ops.backup.taken');

      const drill = await drilled(taken.backupId);
      assert.deepEqual(failed(drill), []);
      assert.equal(drill.ok, true);
      assert.equal(drill.trigger, 'after-backup');
      assert.deepEqual(
        drill.checks.map((c) => c.check),
        ['file', 'checksum', 'restore', 'counts', 'audit-chain', 'deposit-chains', 'keys', 'status-lists'],
      );
      const listed = (await get('/api/admin/ops/backups')).backups;
      assert.equal(listed[0].backupId, taken.backupId);
      assert.deepEqual(listed[0].lastDrill, { drillId: drill.drillId, ok: true, finishedAt: listed[0].lastDrill.finishedAt });
      await rail.jobs.tick();
      assert.equal(
        (await get('/api/admin/ops/backup-drills')).drills.length,
        1,
        'a drilled backup is not drilled again until the schedule',
      );
    });

    test('a backup taken under an issuance storm is consistent: its counts are one moment’s', async () => {
      const storm = Array.from({ length: 12 }, () => issueOne(rail.app, 'alpha', 'pass', PASS_SUBJECT));
      const taken = await takeBackup();
      await Promise.all(storm);
      const drill = await drilled(taken.backupId);
      assert.deepEqual(failed(drill), []);
      const issued = taken.counts.issued_credentials;
      assert.ok(issued >= 2 && issued <= 14, `the backup holds ${issued} credentials`);
    });

    test('a backup that cannot be taken is refused, leaving no file and no row', async (t) => {
      if (factory.name !== 'postgres') return t.skip('pg_dump is PostgreSQL’s');
      const before = (await get('/api/admin/ops/backups')).backups.length;
      const files = readdirSync(backupDir).length;
      const path = process.env.PATH;
      process.env.PATH = '/nonexistent';
      let refused: Awaited<ReturnType<typeof post>>;
      try {
        refused = await post('/api/admin/ops/backup', {});
      } finally {
        process.env.PATH = path;
      }
      assert.equal(refused.statusCode, 409, refused.body);
      assert.deepEqual(refused.json(), {
        error: 'backup_unavailable',
        message: 'pg_dump is not installed on this host.',
      });
      assert.equal((await get('/api/admin/ops/backups')).backups.length, before);
      assert.equal(readdirSync(backupDir).length, files);
    });

    test('a drill of a damaged backup fails, naming what broke', async () => {
      const taken = await takeBackup();
      const path = join(backupDir, taken.file);
      const bytes = readFileSync(path);
      const at = Math.floor(bytes.length / 2);
      bytes[at] = (bytes[at] as number) ^ 0xff;
      writeFileSync(path, bytes);
      const drill = await drilled(taken.backupId);
      assert.equal(drill.ok, false);
      assert.deepEqual(
        failed(drill).map((c) => c.check),
        ['checksum'],
      );
      assert.match(failed(drill)[0]?.detail ?? '', /the file changed after it was taken/);

      const missing = await takeBackup();
      rmSync(join(backupDir, missing.file));
      const gone = await drilled(missing.backupId);
      assert.deepEqual(
        failed(gone).map((c) => [c.check, c.detail]),
        [['file', `${missing.file} is not in the backup folder`]],
      );
    });

    test('a drill finds a broken audit chain and a status list that does not match, even with the checksums rewritten', async (t) => {
      if (factory.name !== 'sqlite') return t.skip('the SQLite file is edited in place; the PostgreSQL case follows');
      const taken = await takeBackup();
      const path = join(backupDir, taken.file);
      const edited = new Database(path);
      edited.prepare("update audit_log set action = 'tenant.edited' where seq = 2").run();
      edited.prepare('update issued_credentials set revoked_at = null').run();
      edited.close();
      // Whoever edited the file rewrote its checksum everywhere it is kept.
      const { sha256, bytes } = await fileDigest(path);
      const manifestPath = join(backupDir, `${taken.backupId}.manifest.json`);
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
      writeFileSync(manifestPath, JSON.stringify({ ...manifest, sha256, bytes }));
      const live = new Database((db.location as { file: string }).file);
      live.prepare('update backups set sha256 = ?, bytes = ? where id = ?').run(sha256, bytes, taken.backupId);
      live.close();

      const drill = await drilled(taken.backupId);
      const broken = Object.fromEntries(failed(drill).map((c) => [c.check, c.detail]));
      assert.deepEqual(Object.keys(broken), ['audit-chain', 'status-lists']);
      assert.match(broken['audit-chain'] ?? '', /^broken at seq 2 \(hash\)/);
      assert.match(broken['status-lists'] ?? '', /list 1 of alpha has 0 revoked of \d+, the manifest 1 of \d+/);
    });

    test('a drill names an audit entry edited before the backup was taken', async () => {
      const edit = (action: string) => sql`update audit_log set action = ${action} where seq = 2`.execute(rail.db);
      const { action } = await rail.db.selectFrom('audit_log').select('action').where('seq', '=', 2).executeTakeFirstOrThrow();
      await edit('tenant.edited');
      try {
        const drill = await drilled((await takeBackup()).backupId);
        assert.deepEqual(
          failed(drill).map((c) => c.check),
          ['audit-chain'],
        );
        assert.match(failed(drill)[0]?.detail ?? '', /^broken at seq 2 \(hash\)/);
      } finally {
        await edit(action);
      }
    });

    test('restore: backup, destroy, restore, serve: an old credential still verifies and revokes', async () => {
      const taken = await takeBackup();
      const beforeLoss = await verifies(issuedBefore);
      assert.equal(beforeLoss.ok, true, JSON.stringify(beforeLoss));
      await rail.stop();
      // The database is lost.
      if (db.location.kind === 'sqlite') {
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${db.location.file}${suffix}`, { force: true });
      } else {
        const client = new pg.Client({ connectionString: db.location.url });
        await client.connect();
        await client.query(`drop schema ${db.schema} cascade`);
        await client.end();
      }
      const manifestPath = join(backupDir, `${taken.backupId}.manifest.json`);
      const restore = async (path: string) => {
        const run = spawnOpenrail(['restore', path], { DATABASE_URL: db.url, OPENRAIL_BACKUP_DIR: backupDir });
        return { exit: (await run.exited()).code, out: run.stdout(), err: run.stderr() };
      };
      // A manifest whose checksum is not the file's is refused before anything is written.
      const forged = join(backupDir, 'forged.manifest.json');
      writeFileSync(forged, JSON.stringify({ ...JSON.parse(readFileSync(manifestPath, 'utf8')), sha256: '0'.repeat(64) }));
      const refused = await restore(forged);
      assert.equal(refused.exit, 1, refused.err);
      assert.match(refused.err, /the file is not the backup taken/);
      const restored = await restore(manifestPath);
      assert.equal(restored.exit, 0, restored.err);
      assert.match(restored.out, new RegExp(`restored backup ${taken.backupId}`));
      const again = await restore(manifestPath);
      assert.equal(again.exit, 1);
      assert.match(again.err, /never overwrites/);

      rail = await startRail(db, env, clock, { runJobs: false });
      assert.equal((await verifies(issuedBefore)).ok, true, 'a credential issued before the loss verifies after the restore');
      const status = (decodeJwt(issuedBefore.credential.split('~')[0] as string) as { status: { status_list: unknown } }).status
        .status_list;
      const revoked = await post('/api/admin/ops/revoke', { tenant: 'alpha', status, reason: 'after the restore' });
      assert.equal(revoked.statusCode, 200, revoked.body);
      const outcome = await verifies(issuedBefore);
      assert.equal(outcome.ok, false);
      assert.equal((await get('/api/admin/ops/audit')).verified, true);
    });
  });
}
