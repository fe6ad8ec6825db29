import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import type { DatabaseLocation } from '../../../config/config.ts';
import { ServiceError } from '../../../core/errors.ts';
import type { BackupEngine, ScratchDatabase } from '../../../ports/backup-engine.ts';
import { fileDigest } from '../../fs/file-digest.ts';
import { type Db, driver, poolOf } from '../connect.ts';
import { postgresStartError } from '../postgres-start-error.ts';
import { contentsOf, restoredContents } from './contents.ts';

/** How long pg_dump or pg_restore may run. */
const TOOL_LIMIT_MS = 30 * 60 * 1000;
/** What of a tool's own error output is kept, for the log and the terminal (libpq never prints a password). */
const STDERR_KEPT = 400;

/**
 * The libpq environment for the server tools, from the database URL: the password travels in
 * the child's environment, never on its command line, where `ps` would show it.
 */
function toolEnv(url: string): NodeJS.ProcessEnv {
  const u = new URL(url);
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, PGCONNECT_TIMEOUT: '10' };
  if (u.hostname) env.PGHOST = decodeURIComponent(u.hostname);
  if (u.port) env.PGPORT = u.port;
  if (u.username) env.PGUSER = decodeURIComponent(u.username);
  if (u.password) env.PGPASSWORD = decodeURIComponent(u.password);
  env.PGDATABASE = decodeURIComponent(u.pathname.slice(1));
  const sslmode = u.searchParams.get('sslmode');
  if (sslmode) env.PGSSLMODE = sslmode;
  return env;
}

/**
 * A server tool that did not finish. Its message names the tool and how it ended, never what it
 * printed, which may name the host, the user or a table: that is in `said`, for the service's log
 * and the terminal of whoever runs `openrail restore`, not for an HTTP answer.
 */
export class ToolFailed extends Error {
  constructor(
    readonly tool: string,
    readonly said: string,
    how: string,
  ) {
    super(`${tool} ${how}`);
  }
}

function runTool(tool: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(tool, args, { env, timeout: TOOL_LIMIT_MS, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (!err) return resolve(String(stdout));
      const code = (err as NodeJS.ErrnoException).code;
      const said = String(stderr).trim().slice(0, STDERR_KEPT);
      reject(new ToolFailed(tool, said, code === 'ENOENT' ? 'is not installed on this host' : `failed (exit ${String(code)})`));
    });
  });
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Drops a drill's scratch database. The connections the drill opened have been closed, but the
 * server may take a moment to end their sessions: the drop waits for that rather than
 * terminating them, and forces it only after a few seconds.
 */
async function dropScratch(pool: pg.Pool, database: string): Promise<void> {
  for (let attempt = 0; attempt < 30; attempt++) {
    try {
      await pool.query(`drop database if exists ${ident(database)}`);
      return;
    } catch (err) {
      // 55006: object_in_use, a session still connected to it.
      if ((err as { code?: string }).code !== '55006') throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await pool.query(`drop database if exists ${ident(database)} with (force)`);
}

/**
 * Backups of a PostgreSQL schema (docs/operations.md, "Backups and restore drills"): a read-only
 * repeatable-read transaction exports its snapshot, the manifest's counts are read in it, and
 * pg_dump writes the schema from that same snapshot (custom format), so the file and the
 * manifest describe one moment. Writers are never blocked. Drills restore into a scratch
 * database the role creates (it needs CREATEDB) and drops after.
 */
export class PostgresBackup implements BackupEngine {
  readonly engine = 'postgres' as const;
  readonly extension = 'pgdump';
  readonly digest = fileDigest;

  constructor(
    private readonly db: Db,
    private readonly url: string,
  ) {}

  private pool() {
    const pool = poolOf(this.db);
    if (!pool) throw new Error('not a PostgreSQL handle');
    return pool;
  }

  async take(file: string) {
    const client = await this.pool().connect();
    try {
      // The transaction stays open, idle, while pg_dump runs (its snapshot is pg_dump's), and its
      // counts read every table: neither may be cut short by the role's timeouts for requests
      // (docs/scaling.md), which pg_dump lifts for its own session.
      await client.query(
        'begin isolation level repeatable read read only; set local idle_in_transaction_session_timeout = 0; set local statement_timeout = 0',
      );
      const { rows } = await client.query<{ snapshot: string; schema: string }>(
        'select pg_export_snapshot() as snapshot, current_schema() as schema',
      );
      const { snapshot, schema } = rows[0] as { snapshot: string; schema: string };
      const contents = await contentsOf('postgres', async (text) => (await client.query(text)).rows);
      await runTool(
        'pg_dump',
        ['--format=custom', `--snapshot=${snapshot}`, `--schema=${schema}`, '--no-owner', '--no-privileges', `--file=${file}`],
        toolEnv(this.url),
      ).catch((err: unknown) => {
        if (!(err instanceof ToolFailed)) throw err;
        const log = err.said ? '; the service’s log has its output' : '';
        throw new ServiceError('backup_unavailable', `${err.message}${log}.`, { cause: new Error(err.said) });
      });
      await client.query('commit');
      return { ...contents, schema };
    } catch (err) {
      await client.query('rollback').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  contents(scratch: ScratchDatabase) {
    return restoredContents(this.engine, scratch);
  }

  async scratch(file: string, name: string): Promise<ScratchDatabase> {
    const database = `openrail_drill_${name
      .replace(/[^a-z0-9]/gi, '')
      .toLowerCase()
      .slice(0, 24)}_${randomBytes(3).toString('hex')}`;
    const pool = this.pool();
    const [{ schema }] = (await pool.query<{ schema: string }>('select current_schema() as schema')).rows as [{ schema: string }];
    try {
      await pool.query(`create database ${ident(database)}`);
    } catch (err) {
      const code = (err as { code?: string }).code;
      throw new Error(
        code === '42501'
          ? 'the database role may not create a scratch database for the drill: grant it CREATEDB'
          : `no scratch database could be created (${code ?? 'error'})`,
      );
    }
    const url = new URL(this.url);
    url.pathname = `/${database}`;
    const drop = () => dropScratch(pool, database);
    try {
      await restoreSchema(file, url.href, schema);
    } catch (err) {
      await drop();
      throw err;
    }
    return { location: { kind: 'postgres', url: url.href }, schema, drop };
  }
}

export async function restorePostgres(file: string, location: DatabaseLocation, schema: string): Promise<void> {
  if (location.kind !== 'postgres') throw new Error('this backup is of a PostgreSQL schema: DATABASE_URL must be postgres://…');
  await restoreSchema(file, location.url, schema);
}

/**
 * pg_restore in one transaction, stopping at the first error, into a database whose `schema`
 * holds no table yet; anything else is refused unchanged. When the schema exists already (a new
 * database's `public` does), the backup's entry creating it is left out of the restore list.
 */
async function restoreSchema(file: string, url: string, schema: string): Promise<void> {
  const target = new (driver().Client)({ connectionString: url });
  // A target that cannot be reached is named as a start names it: where, which problem, what to do.
  await target.connect().catch((err: unknown) => {
    throw postgresStartError(err, url);
  });
  let exists: boolean;
  try {
    const { rows } = await target.query<{ tables: string; schemas: string }>(
      `select (select count(*) from information_schema.tables where table_schema = $1) as tables,
              (select count(*) from pg_namespace where nspname = $1) as schemas`,
      [schema],
    );
    if (Number(rows[0]?.tables) > 0) {
      throw new Error(`schema ${schema} of the target database holds tables: a restore never overwrites a database`);
    }
    exists = Number(rows[0]?.schemas) > 0;
  } finally {
    await target.end();
  }
  const env = toolEnv(url);
  const args = ['--single-transaction', '--exit-on-error', '--no-owner', '--no-privileges', `--dbname=${env.PGDATABASE}`];
  const dir = exists ? await mkdtemp(join(tmpdir(), 'openrail-restore-')) : undefined;
  try {
    if (dir) {
      const creates = new RegExp(`^\\d+; \\d+ \\d+ (SCHEMA - |COMMENT - SCHEMA )${schema.replace(/\W/g, '\\$&')} `);
      const toc = (await runTool('pg_restore', ['--list', file], env)).split('\n').filter((line) => !creates.test(line));
      await writeFile(join(dir, 'toc'), toc.join('\n'));
      args.push(`--use-list=${join(dir, 'toc')}`);
    }
    await runTool('pg_restore', [...args, file], env);
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}
