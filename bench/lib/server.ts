import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../test/helpers/process.ts';
import { within } from './deadline.ts';
import { request } from './http.ts';

/** The repository root (this file is bench/lib/server.ts). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(REPO_ROOT, 'bin', 'openrail.js');

export const OWNER_TOKEN = 'bench-owner-token-0123456789abcdefghijklmnopqrstuv';
export const MASTER_KEY = Buffer.alloc(32, 11).toString('base64url');

/** Variables a developer's or CI's shell may carry that would change what the server does. */
const SCRUBBED = /^(OPENRAIL_|PORT$|HOST$|PUBLIC_URL$|DATABASE_URL$|NODE_ENV$|LOG_LEVEL$|NODE_OPTIONS$|NODE_TEST_CONTEXT$)/;

export interface ServerOptions {
  databaseUrl: string;
  dataDir: string;
  /** The structured log (one line per request) goes to this file, not through the bench. */
  logFile: string;
  /** Directory for a V8 CPU profile of the server (node --cpu-prof), written when it exits. */
  cpuProfDir?: string;
  /** `openrail serve --workers`: serving processes (default 1, the server's own process). */
  workers?: number;
  /** Listen here (a restart that must keep PUBLIC_URL, and so its DIDs); default a free port. */
  port?: number;
  /** More environment for the server (OPENRAIL_OUTBOUND_ALLOW for a local webhook receiver). */
  env?: Record<string, string>;
  /** More Node flags for the server (a bench instrument preloaded with --import). */
  nodeFlags?: string[];
}

export interface BenchServer {
  pid: number;
  origin: string;
  logFile: string;
  workers: number;
  /**
   * Server CPU time (user + system) so far, in milliseconds, of the server and every process it
   * started (the workers); undefined where /proc is missing.
   */
  cpuMs(): number | undefined;
  /**
   * CPU time so far of the serving process's main thread alone (its JavaScript, and the SQLite and
   * crypto calls it makes), in milliseconds; undefined with workers (the primary's main thread
   * serves nothing) or where /proc is missing. The rest of cpuMs() is V8's collector and compiler
   * threads, libuv's pool (fdatasync) and the WAL checkpointer.
   */
  mainThreadCpuMs(): number | undefined;
  /** SIGTERM, wait for the drain (SIGKILL after 20 s). */
  stop(): Promise<void>;
}

const CLOCK_TICKS_PER_S = 100;

/** Fields of /proc/<pid>/stat after the parenthesised command name (state is the first). */
function statFields(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

const ticks = (f: string[]) => Number(f[11]) + Number(f[12]);

/** utime + stime (fields 14 and 15) of a process and of its children, in milliseconds. */
function treeCpuMs(pid: number): number | undefined {
  const own = statFields(pid);
  if (!own) return undefined;
  let total = ticks(own);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const f = statFields(entry);
    if (f && Number(f[1]) === pid) total += ticks(f);
  }
  return (total * 1000) / CLOCK_TICKS_PER_S;
}

/** Spawns `node bin/openrail.js serve` on a free port and waits until /readyz answers 200. */
export async function startServer(opts: ServerOptions): Promise<BenchServer> {
  const port = opts.port ?? (await freePort());
  const origin = `http://127.0.0.1:${port}`;
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !SCRUBBED.test(k)) base[k] = v;
  const out = openSync(opts.logFile, 'a');
  // BENCH_NODE_FLAGS: V8 or Node flags for the server only (bench/README.md, "Memory"), to compare a setting with the default.
  const nodeFlags = [
    ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []),
    ...(opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`] : []),
    ...(opts.nodeFlags ?? []),
  ];
  const workers = opts.workers ?? 1;
  const child: ChildProcess = spawn(process.execPath, [...nodeFlags, BIN, 'serve', '--workers', String(workers)], {
    cwd: REPO_ROOT,
    env: {
      ...base,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: origin,
      DATABASE_URL: opts.databaseUrl,
      OPENRAIL_DATA_DIR: opts.dataDir,
      OPENRAIL_OWNER_TOKEN: OWNER_TOKEN,
      OPENRAIL_MASTER_KEY: MASTER_KEY,
      OPENRAIL_DEMO: 'off',
      // The bench is one address driving hundreds of anonymous requests a second: the budgets are
      // still counted on every request (their cost is measured), but set far beyond the load.
      OPENRAIL_ANONYMOUS_BUDGET_SCALE: '100000',
      ...opts.env,
    },
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      resolve();
    }),
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not spawn the server');

  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) {
      throw new Error(`server exited (${JSON.stringify(exited)}) before it was ready; log:\n${tail(opts.logFile)}`);
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server not ready after 60 s; log:\n${tail(opts.logFile)}`);
    }
    try {
      if ((await request(`${origin}/readyz`)).status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  return {
    pid,
    origin,
    logFile: opts.logFile,
    workers,
    cpuMs: () => treeCpuMs(pid),
    mainThreadCpuMs: () => {
      if (workers > 1) return undefined;
      const f = statFields(`${pid}/task/${pid}`);
      return f ? (ticks(f) * 1000) / CLOCK_TICKS_PER_S : undefined;
    },
    stop: async () => {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await within(exit, 30_000, `server ${pid} to exit after SIGTERM (and SIGKILL at 20 s)`).finally(() => clearTimeout(timer));
    },
  };
}

function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Log lines at level error or above (pino: 50 error, 60 fatal): 5xx causes and start failures. */
export function serverErrors(logFile: string): { count: number; first?: string } {
  let count = 0;
  let first: string | undefined;
  let text = '';
  try {
    text = readFileSync(logFile, 'utf8');
  } catch {
    return { count };
  }
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    const m = /"level":(\d+)/.exec(line);
    if (m && Number(m[1]) >= 50) {
      count++;
      first ??= line.slice(0, 2000);
    }
  }
  return first === undefined ? { count } : { count, first };
}
