/**
 * Issue 53, point 5: a start that cannot succeed says so at once, in words that name what is wrong
 * and what to do: a busy port (in both serving modes), and each way a PostgreSQL database can
 * refuse a start. Every case spawns the real CLI.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { startRefusingServer } from '../helpers/pg-refusing-server.ts';
import { freePort, killAll, logLines, type OpenrailProcess, SERVING_BANNER, serveOn, spawnOpenrail } from '../helpers/process.ts';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'openrail-start-failure-'));
  dirs.push(d);
  return d;
};
after(async () => {
  await killAll();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/**
 * Waits for the refused start to exit. The 20 s bound only guards against a hang: it is no timing.
 * That the refusal comes before any other start work is shown by what the start left undone: no
 * database file, no owner token, no worker forked.
 */
async function refused(proc: OpenrailProcess): Promise<string> {
  assert.deepEqual(await proc.exited(20_000), { code: 1, signal: null }, `stdout:\n${proc.stdout()}\nstderr:\n${proc.stderr()}`);
  assert.equal(proc.stdout().includes(SERVING_BANNER), false);
  assert.equal(/owner token/i.test(proc.stdout()), false, 'nothing of a start was done: no owner token reveal');
  assert.deepEqual(
    logLines(proc.stdout()).filter((l) => l.msg === 'worker exited'),
    [],
    'no worker was forked',
  );
  assert.equal(/^\s+at /m.test(proc.stderr()), false, `no stack trace on stderr:\n${proc.stderr()}`);
  return proc.stderr();
}

const busy = (port: number) =>
  new RegExp(
    `^openrail: cannot start: port ${port} on 127\\.0\\.0\\.1 is in use \\(another openrail or another program listens there\\): stop it, or set PORT to a free port\\n$`,
  );

describe('a start on a busy port fails at once, naming the port and what to do', () => {
  for (const workers of ['1', '2']) {
    test(`held by another program, --workers ${workers}`, async () => {
      const holder: Server = createServer();
      const port = await freePort();
      await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
      try {
        const dir = tempDir();
        const dbFile = join(dir, 'db.sqlite');
        const proc = spawnOpenrail(['serve', '--workers', workers], {
          HOST: '127.0.0.1',
          PORT: String(port),
          OPENRAIL_DATA_DIR: join(dir, 'data'),
          DATABASE_URL: `sqlite:${dbFile}`,
        });
        assert.match(await refused(proc), busy(port));
        assert.equal(existsSync(dbFile), false, 'refused before the database was opened');
        assert.equal(existsSync(join(dir, 'data')), false, 'refused before a master key was generated');
      } finally {
        await new Promise((resolve) => holder.close(resolve));
      }
    });
  }

  test('held by another openrail: a second start, alone or with workers, is refused and the first serves on', async () => {
    const dir = tempDir();
    const port = await freePort();
    const { proc: first, origin } = await serveOn(
      {
        HOST: '127.0.0.1',
        OPENRAIL_DATA_DIR: join(dir, 'data'),
        DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`,
        OPENRAIL_DEMO: 'off',
      },
      port,
    );
    for (const workers of ['1', '2']) {
      const secondDb = join(dir, `second-${workers}.sqlite`);
      const second = spawnOpenrail(['serve', '--workers', workers], {
        HOST: '127.0.0.1',
        PORT: String(port),
        OPENRAIL_DATA_DIR: join(dir, `data-${workers}`),
        DATABASE_URL: `sqlite:${secondDb}`,
      });
      assert.match(await refused(second), busy(port));
      assert.equal(existsSync(secondDb), false);
    }
    assert.equal((await fetch(`${origin}/readyz`)).status, 200);
    first.kill('SIGTERM');
    assert.deepEqual(await first.exited(15_000), { code: 0, signal: null });
  });
});

/** A refused PostgreSQL start: exit 1, one line on stderr, never the password. */
async function refusedOnPostgres(url: string, password: string): Promise<string> {
  const dir = tempDir();
  const proc = spawnOpenrail(['serve', '--workers', '2'], {
    HOST: '127.0.0.1',
    PORT: String(await freePort()),
    OPENRAIL_DATA_DIR: join(dir, 'data'),
    DATABASE_URL: url,
  });
  const stderr = await refused(proc);
  assert.equal(`${proc.stdout()}${stderr}`.includes(password), false, 'the password is never printed');
  assert.equal(stderr.split('\n').length, 2, `one line on stderr:\n${stderr}`);
  return stderr;
}

describe('a PostgreSQL start failure names host, port and database, which problem it is, and what to do', () => {
  const password = `pw-${randomBytes(6).toString('hex')}`;

  test('unreachable: nothing listens on the port', async () => {
    const port = await freePort();
    const stderr = await refusedOnPostgres(`postgres://openrail:${password}@127.0.0.1:${port}/openrail_test`, password);
    assert.equal(
      stderr,
      `openrail: cannot start: PostgreSQL at 127.0.0.1:${port}, database "openrail_test": unreachable ` +
        '(connection refused: nothing listens there): check that PostgreSQL runs there and that DATABASE_URL names its host and port\n',
    );
  });

  // A real PostgreSQL cannot be held starting up: this server answers every connection as one does then.
  test('not yet accepting connections: a server starting up (57P03)', async () => {
    const server = await startRefusingServer('57P03', 'the database system is starting up');
    try {
      const stderr = await refusedOnPostgres(`postgres://openrail:${password}@127.0.0.1:${server.port}/openrail_test`, password);
      assert.equal(
        stderr,
        `openrail: cannot start: PostgreSQL at 127.0.0.1:${server.port}, database "openrail_test": not yet accepting connections ` +
          '(the database system is starting up): run the command again once PostgreSQL accepts connections\n',
      );
    } finally {
      await server.stop();
    }
  });

  const real = process.env.TEST_DATABASE_URL;
  const skip = real ? false : 'TEST_DATABASE_URL is not set';

  test('authentication refused: a wrong password', { skip }, async () => {
    const url = new URL(real ?? '');
    url.password = password;
    const stderr = await refusedOnPostgres(url.toString(), password);
    const database = url.pathname.slice(1);
    assert.equal(
      stderr,
      `openrail: cannot start: PostgreSQL at ${url.hostname}:${url.port || 5432}, database "${database}": authentication refused ` +
        `for user "${decodeURIComponent(url.username)}" (the password was refused): check the user and password in DATABASE_URL, ` +
        'and that pg_hba.conf admits this client\n',
    );
  });

  test('database missing: a database that does not exist', { skip }, async () => {
    const url = new URL(real ?? '');
    const missing = `openrail_missing_${randomBytes(4).toString('hex')}`;
    url.pathname = `/${missing}`;
    const given = decodeURIComponent(url.password);
    const stderr = await refusedOnPostgres(url.toString(), given);
    const host = `${url.hostname}:${url.port || 5432}`;
    assert.match(
      stderr,
      new RegExp(
        `^openrail: cannot start: PostgreSQL at ${host.replace(/\./g, '\\.')}, database "${missing}": database missing: `,
      ),
    );
    assert.match(stderr, new RegExp(`create it \\(createdb .* ${missing}\\) or name an existing one in DATABASE_URL\\n$`));
  });
});
