import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { migrationProvider } from '../../src/adapters/sql/migrations/index.ts';
import { type TestDatabase, testDatabases } from '../helpers/databases.ts';
import { freePort, killAll, logLines, type OpenrailProcess, spawnOpenrail } from '../helpers/process.ts';

/** Every migration the code ships, in the order they apply. */
const MIGRATION_NAMES = migrationProvider.getMigrations().then((m) => Object.keys(m).sort());

const BANNER = 'openrail is serving at';
const TOKEN_PATTERN = /oro_[A-Za-z0-9_-]+/g;

interface Sent {
  method: string;
  path: string;
  status: number;
}

/** Real HTTP against a spawned process, remembering every request so the log can be audited. */
function client(port: number) {
  const sent: Sent[] = [];
  const call = async (method: string, path: string, init: { token?: string; body?: unknown } = {}) => {
    const headers: Record<string, string> = {};
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers,
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    const text = await res.text();
    sent.push({ method, path, status: res.status });
    return { status: res.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
  };
  return { sent, call };
}

/** Every line of stdout and stderr that contains `needle`. */
const linesWith = (p: OpenrailProcess, needle: string) =>
  `${p.stdout()}\n${p.stderr()}`.split('\n').filter((line) => line.includes(needle));

/** A request line names the operation by its route template, never by the path it was called with. */
const requestLines = (p: OpenrailProcess) =>
  logLines(p.stdout())
    .filter((l) => l.msg === 'request')
    .map((l) => `${String(l.method)} ${String(l.route)} ${String(l.status)}`)
    .sort();

/** The route template of a path these suites call. */
const template = (path: string) => path.replace(/^\/t\/[^/]+\//, '/t/:tenant/');

/** Waits until the structured log shows `count` request lines (pino may write after the response). */
async function untilLogged(p: OpenrailProcess, count: number, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (requestLines(p).length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

function readSqlite<T>(file: string, query: string): T[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(query).all() as T[];
  } finally {
    db.close();
  }
}

/** Starts `openrail serve`, waits for the banner and for the first request (so startup output is complete). */
async function start(env: Record<string, string>, port: number) {
  const proc = spawnOpenrail(['serve'], { HOST: '127.0.0.1', PORT: String(port), ...env });
  await proc.waitForStdout(BANNER);
  const http = client(port);
  assert.equal((await http.call('GET', '/readyz')).status, 200);
  await untilLogged(proc, 1);
  return { proc, http };
}

async function stop(proc: OpenrailProcess): Promise<void> {
  proc.kill('SIGTERM');
  const exit = await proc.exited(10_000);
  assert.deepEqual(exit, { code: 0, signal: null }, `stderr:\n${proc.stderr()}`);
}

describe('openrail serve on SQLite: first and second start', () => {
  let dir: string;
  let dataDir: string;
  let dbFile: string;
  let port: number;
  let first: OpenrailProcess;
  let http: ReturnType<typeof client>;
  let token: string;
  let env: Record<string, string>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'openrail-serve-'));
    dataDir = join(dir, 'data');
    dbFile = join(dir, 'db.sqlite');
    port = await freePort();
    env = { OPENRAIL_DATA_DIR: dataDir, DATABASE_URL: `sqlite:${dbFile}` };
    ({ proc: first, http } = await start(env, port));
  });
  after(async () => {
    await killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  test('prints the URL and, on the first start, the owner token exactly once', () => {
    const out = first.stdout();
    assert.ok(out.includes(`${BANNER} http://localhost:${port} (listening on 127.0.0.1:${port})`), out);
    const tokens = `${out}\n${first.stderr()}`.match(TOKEN_PATTERN) ?? [];
    assert.equal(tokens.length, 1, `expected one owner token in the output:\n${out}`);
    token = tokens[0] ?? '';
    assert.ok(token.length >= 40, token);
    assert.equal(first.stderr().includes(token), false);
  });

  test('the printed token creates a tenant over real HTTP; no token or a wrong one is refused', async () => {
    assert.equal((await http.call('POST', '/api/tenants', { body: { name: 'Nobody' } })).status, 401);
    assert.equal((await http.call('POST', '/api/tenants', { token: `${token}x`, body: { name: 'Nobody' } })).status, 401);
    const res = await http.call('POST', '/api/tenants', { token, body: { name: 'Harbour Works' } });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.json(), {
      slug: 'harbour-works',
      name: 'Harbour Works',
      did: `did:web:localhost%3A${port}:t:harbour-works`,
    });
    const doc = await http.call('GET', '/t/harbour-works/did.json');
    assert.equal(doc.status, 200);
    assert.equal(doc.json().id, `did:web:localhost%3A${port}:t:harbour-works`);
  });

  test('migrations ran and the demo tenant was seeded', async () => {
    const demo = await http.call('GET', '/t/demo-transit/did.json');
    assert.equal(demo.status, 200, demo.text);
    assert.equal(demo.json().id, `did:web:localhost%3A${port}:t:demo-transit`);

    const migrations = readSqlite<{ name: string }>(dbFile, 'select name from kysely_migration order by name');
    assert.deepEqual(
      migrations.map((m) => m.name),
      await MIGRATION_NAMES,
    );
    const tenants = readSqlite<{ slug: string; name: string }>(dbFile, 'select slug, name from tenants order by slug');
    const byslug = new Map(tenants.map((t) => [t.slug, t.name]));
    assert.ok(byslug.has('root'));
    assert.ok(byslug.has('harbour-works'));
    assert.ok(byslug.get('demo-transit')?.endsWith(' (Demo)'), JSON.stringify(tenants));
    // The default data folder is not used when DATABASE_URL names a file.
    assert.equal(existsSync(join(dataDir, 'openrail.sqlite')), false);
  });

  // `stop` gives the drain ten seconds before it counts as hung: a bound, not a measurement.
  test('SIGTERM drains and exits with code 0', async () => {
    await untilLogged(first, http.sent.length);
    await stop(first);
  });

  test('the log has exactly one request line per request and never the owner token', () => {
    assert.ok(http.sent.length >= 6);
    assert.deepEqual(requestLines(first), http.sent.map((s) => `${s.method} ${template(s.path)} ${s.status}`).sort());

    const withToken = linesWith(first, token);
    assert.deepEqual(withToken, [`  ${token}`], 'only the banner line may carry the owner token');
    assert.deepEqual(linesWith(first, `Bearer ${token}`), []);
    // A token with a suffix was sent too: its prefix must not be logged either (covered above), nor the header value.
    assert.deepEqual(
      logLines(first.stdout()).filter((l) => JSON.stringify(l).includes('oro_')),
      [],
    );
  });

  test('the generated master key is written 0600, announced once in the log, and never printed', () => {
    const keyFile = join(dataDir, 'master.key');
    assert.ok(existsSync(keyFile));
    const key = readFileSync(keyFile, 'utf8').trim();
    const warnings = logLines(first.stdout()).filter((l) => l.level === 40 && String(l.msg).includes('OPENRAIL_MASTER_KEY'));
    assert.equal(warnings.length, 1);
    assert.deepEqual(linesWith(first, key), []);
  });

  test('a second start on the same data prints no owner token; the first token still works', async () => {
    const { proc: second, http: http2 } = await start(env, port);
    const created = await http2.call('POST', '/api/tenants', { token, body: { name: 'Second Start' } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json().slug, 'second-start');
    await untilLogged(second, http2.sent.length);
    await stop(second);
    const out = `${second.stdout()}\n${second.stderr()}`;
    assert.ok(second.stdout().includes(`${BANNER} http://localhost:${port}`));
    assert.equal(out.match(TOKEN_PATTERN), null, out);
    assert.equal(out.includes('Owner token (shown once'), false);
    // Instead, how to get in again (docs/authentication.md, "Owner token").
    assert.match(second.stdout(), new RegExp(`Operators sign in at http://localhost:${port}/admin;`));
    assert.match(second.stdout(), /start again with OPENRAIL_OWNER_TOKEN set to a new secret of 32 or more characters/);
    assert.deepEqual(
      logLines(second.stdout()).filter((l) => String(l.msg).includes('OPENRAIL_MASTER_KEY')),
      [],
      'the master key file is reused without a new warning',
    );
    assert.deepEqual(requestLines(second), http2.sent.map((s) => `${s.method} ${template(s.path)} ${s.status}`).sort());
    const slugs = readSqlite<{ slug: string }>(dbFile, "select slug from tenants where slug like 'demo-%'");
    assert.equal(slugs.length, 1, 'the demo tenant is seeded once');
  });
});

describe('openrail serve with OPENRAIL_DEMO=off', () => {
  let dir: string;
  after(async () => {
    await killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a fresh data folder gets no demo- tenant', async () => {
    dir = mkdtempSync(join(tmpdir(), 'openrail-serve-'));
    const dbFile = join(dir, 'db.sqlite');
    const port = await freePort();
    const { proc, http } = await start(
      { OPENRAIL_DATA_DIR: join(dir, 'data'), DATABASE_URL: `sqlite:${dbFile}`, OPENRAIL_DEMO: 'off' },
      port,
    );
    const demo = await http.call('GET', '/t/demo-transit/did.json');
    assert.equal(demo.status, 404);
    assert.equal(demo.json().error, 'unknown_tenant');
    assert.equal((await http.call('GET', '/.well-known/did.json')).status, 200);
    await stop(proc);
    assert.deepEqual(readSqlite(dbFile, "select slug from tenants where slug like 'demo-%'"), []);
    assert.deepEqual(readSqlite(dbFile, "select slug from tenants where slug = 'root'"), [{ slug: 'root' }]);
  });
});

describe('openrail serve --workers', () => {
  const dirs: string[] = [];
  after(async () => {
    await killAll();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test('two workers answer on one port; the primary serves nothing itself; SIGTERM stops them all', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openrail-workers-'));
    dirs.push(dir);
    const port = await freePort();
    const proc = spawnOpenrail(['serve', '--workers', '2'], {
      HOST: '127.0.0.1',
      PORT: String(port),
      OPENRAIL_DATA_DIR: join(dir, 'data'),
      DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`,
      OPENRAIL_DEMO: 'off',
    });
    await proc.waitForStdout(BANNER, 60_000);
    assert.match(proc.stdout(), /in 2 worker processes/);
    // Each request on a connection of its own: the cluster hands connections to the workers in turn.
    const once = () =>
      new Promise<number>((resolve, reject) =>
        http
          .get({ host: '127.0.0.1', port, path: '/readyz', agent: false }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          })
          .on('error', reject),
      );
    for (let i = 0; i < 8; i++) assert.equal(await once(), 200);
    const deadline = Date.now() + 5_000;
    const pids = () =>
      new Set(
        logLines(proc.stdout())
          .filter((l) => l.msg === 'request')
          .map((l) => l.pid),
      );
    while (pids().size < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(pids().size, 2, `requests were answered by ${[...pids()].join(', ')}`);
    assert.equal(pids().has(proc.child.pid), false, 'the primary answers no request');

    // A worker that dies is replaced, and the port keeps answering meanwhile.
    const workersOf = () =>
      readdirSync('/proc')
        .filter((d) => /^\d+$/.test(d))
        .filter((d) => {
          try {
            const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
            return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === proc.child.pid;
          } catch {
            return false;
          }
        })
        .map(Number);
    const before = workersOf();
    assert.equal(before.length, 2, `workers: ${before.join(', ')}`);
    process.kill(before[0] as number, 'SIGKILL');
    const replaced = Date.now() + 20_000;
    while (!(workersOf().length === 2 && !workersOf().includes(before[0] as number)) && Date.now() < replaced) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const after = workersOf();
    assert.equal(after.length, 2, `workers after the kill: ${after.join(', ')}`);
    assert.equal(after.includes(before[0] as number), false);
    for (let i = 0; i < 4; i++) assert.equal(await once(), 200);
    proc.kill('SIGTERM');
    assert.deepEqual(await proc.exited(15_000), { code: 0, signal: null }, proc.stderr());
    await assert.rejects(once(), 'nothing listens any more');
  });

  test('a --workers that is not a whole number from 1 to 256 exits with code 2 and the usage', async () => {
    for (const value of ['0', 'two', '1.5', '257']) {
      const proc = spawnOpenrail(['serve', '--workers', value], { PORT: '0' });
      assert.deepEqual(await proc.exited(20_000), { code: 2, signal: null });
      assert.match(proc.stderr(), /--workers takes a whole number 1-256/);
      assert.match(proc.stderr(), /usage: openrail serve/);
    }
  });
});

describe('openrail serve refuses a bad start', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'openrail-serve-'));
    dirs.push(d);
    return d;
  };
  after(async () => {
    await killAll();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test('PORT=abc exits with code 1, names PORT on stderr, and touches nothing', async () => {
    const dir = tempDir();
    const dataDir = join(dir, 'data');
    const dbFile = join(dir, 'db.sqlite');
    const proc = spawnOpenrail(['serve'], { PORT: 'abc', OPENRAIL_DATA_DIR: dataDir, DATABASE_URL: `sqlite:${dbFile}` });
    const exit = await proc.exited(20_000);
    assert.deepEqual(exit, { code: 1, signal: null });
    assert.match(proc.stderr(), /PORT/);
    assert.equal(proc.stdout().includes(BANNER), false);
    assert.equal(proc.stdout().match(TOKEN_PATTERN), null);
    assert.equal(existsSync(dbFile), false, 'no database was opened');
    assert.equal(existsSync(dataDir), false, 'no data folder (nor master key) was created');
  });

  test('a second start with a different OPENRAIL_MASTER_KEY exits non-zero naming OPENRAIL_MASTER_KEY', async () => {
    const dir = tempDir();
    const keyA = Buffer.alloc(32, 0x11).toString('base64url');
    const keyB = Buffer.alloc(32, 0x22).toString('base64url');
    const base = { OPENRAIL_DATA_DIR: join(dir, 'data'), DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}` };
    const port = await freePort();

    const a = await start({ ...base, OPENRAIL_MASTER_KEY: keyA }, port);
    await stop(a.proc);
    // A key given in the environment is used as is: nothing is generated into the data folder.
    assert.equal(existsSync(join(dir, 'data', 'master.key')), false);

    const b = spawnOpenrail(['serve'], { ...base, PORT: String(port), HOST: '127.0.0.1', OPENRAIL_MASTER_KEY: keyB });
    const exit = await b.exited(20_000);
    assert.notEqual(exit.code, 0, `stdout:\n${b.stdout()}`);
    assert.notEqual(exit.code, null, `killed by ${exit.signal}`);
    assert.match(`${b.stdout()}\n${b.stderr()}`, /OPENRAIL_MASTER_KEY/);
    assert.equal(b.stdout().includes(BANNER), false);
    assert.equal(`${b.stdout()}\n${b.stderr()}`.match(TOKEN_PATTERN), null, 'a refused start reveals no token');
    for (const p of [a.proc, b]) {
      for (const key of [keyA, keyB]) assert.deepEqual(linesWith(p, key), [], 'the master key is never printed');
    }

    // The refused start changed nothing: the right key still opens the database.
    const again = await start({ ...base, OPENRAIL_MASTER_KEY: keyA }, port);
    await stop(again.proc);
  });
});

const postgres = testDatabases().find((f) => f.name === 'postgres');

describe('openrail serve on PostgreSQL', { skip: postgres ? false : 'TEST_DATABASE_URL is not set' }, () => {
  let db: TestDatabase;
  let other: TestDatabase | undefined;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'openrail-serve-'));
    if (postgres) db = await postgres.create();
  });
  after(async () => {
    await killAll();
    rmSync(dir, { recursive: true, force: true });
    await db?.drop();
    await other?.drop();
  });

  const tablesIn = async (schema: string) => {
    const c = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await c.connect();
    try {
      const r = await c.query<{ name: string }>(
        'select table_name as name from information_schema.tables where table_schema = $1',
        [schema],
      );
      return r.rows.map((row) => row.name).sort();
    } finally {
      await c.end();
    }
  };

  test('first start: migrates the schema, prints one token, and creates a tenant over HTTP', async () => {
    const port = await freePort();
    const { proc, http } = await start({ OPENRAIL_DATA_DIR: join(dir, 'data'), DATABASE_URL: db.url }, port);
    const tokens = proc.stdout().match(TOKEN_PATTERN) ?? [];
    assert.equal(tokens.length, 1, proc.stdout());
    const token = tokens[0] ?? '';
    const res = await http.call('POST', '/api/tenants', { token, body: { name: 'Harbour Works' } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json().slug, 'harbour-works');
    assert.equal((await http.call('GET', '/t/harbour-works/did.json')).status, 200);
    assert.equal((await http.call('GET', '/t/demo-transit/did.json')).status, 200);
    await untilLogged(proc, http.sent.length);
    await stop(proc);

    assert.deepEqual(requestLines(proc), http.sent.map((s) => `${s.method} ${template(s.path)} ${s.status}`).sort());
    assert.deepEqual(linesWith(proc, token), [`  ${token}`]);

    const c = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await c.connect();
    try {
      const schema = db.schema ?? '';
      const tenants = await c.query<{ slug: string; name: string }>(`select slug, name from "${schema}".tenants order by slug`);
      const names = new Map(tenants.rows.map((r) => [r.slug, r.name]));
      assert.equal(names.get('harbour-works'), 'Harbour Works');
      assert.ok(names.get('demo-transit')?.endsWith(' (Demo)'));
      const migrations = await c.query<{ name: string }>(`select name from "${schema}".kysely_migration`);
      assert.deepEqual(migrations.rows.map((r) => r.name).sort(), await MIGRATION_NAMES);
    } finally {
      await c.end();
    }
  });

  test('a second deployment in another schema of the same database migrates and serves its own schema', async () => {
    // Precondition: the first deployment's schema holds openrail's tables (and Kysely's).
    assert.ok((await tablesIn(db.schema ?? '')).includes('kysely_migration'), 'the first test migrated its schema');
    other = await (postgres as NonNullable<typeof postgres>).create();
    const port = await freePort();
    const proc = spawnOpenrail(['serve'], {
      HOST: '127.0.0.1',
      PORT: String(port),
      OPENRAIL_DATA_DIR: join(dir, 'data-2'),
      DATABASE_URL: other.url,
    });
    try {
      await proc.waitForStdout(BANNER);
      const token = (proc.stdout().match(TOKEN_PATTERN) ?? [])[0] ?? '';
      const res = await client(port).call('POST', '/api/tenants', { token, body: { name: 'Other Deployment' } });
      assert.equal(res.status, 201, res.text);
      await stop(proc);
    } finally {
      proc.kill('SIGKILL');
    }
    const tables = await tablesIn(other.schema ?? '');
    for (const t of ['kysely_migration', 'kysely_migration_lock', 'settings', 'tenants', 'signing_keys']) {
      assert.ok(tables.includes(t), `${t} missing from ${other.schema}: ${tables.join(', ')}`);
    }
  });
});
