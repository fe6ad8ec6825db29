import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(REPO_ROOT, 'bin', 'openrail.js');

/** Variables a developer's or CI's shell may carry that would change what the child does. */
const SCRUBBED = /^(OPENRAIL_|PORT$|HOST$|PUBLIC_URL$|DATABASE_URL$|NODE_ENV$|LOG_LEVEL$|NODE_TEST_CONTEXT$|NODE_OPTIONS$)/;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface OpenrailProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when stdout contains `text`; rejects if the process exits first or `ms` pass. */
  waitForStdout(text: string, ms?: number): Promise<void>;
  /** Resolves when the process has exited (or rejects after `ms`). */
  exited(ms?: number): Promise<Exit>;
  /** Sends `signal` if the process is still running. */
  kill(signal?: NodeJS.Signals): void;
}

const live = new Set<OpenrailProcess>();

/** A free TCP port on 127.0.0.1 (released just before it is returned). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Spawns the real CLI (`node bin/openrail.js <args>`) with a clean environment plus `env`.
 * The process is SIGKILLed after `hardTimeoutMs` whatever happens, so none can outlive a suite.
 * That and `waitForStdout`'s wait are guards against a hang, not timings: `openrail serve` with its
 * default workers takes about 11 s to start on a quiet two-core machine (each worker loads and
 * compiles the whole service), and several times that while another test file runs beside it.
 */
/** This process's environment without what would change a child's behaviour. */
function scrubbedEnv(): Record<string, string> {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !SCRUBBED.test(k)) base[k] = v;
  return base;
}

export function spawnOpenrail(
  args: string[],
  env: Record<string, string>,
  hardTimeoutMs = 180_000,
  cwd = REPO_ROOT,
  bin = BIN,
): OpenrailProcess {
  const base = scrubbedEnv();
  const child = spawn(process.execPath, [bin, ...args], {
    cwd,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  let exit: Exit | undefined;
  const exitPromise = new Promise<Exit>((resolve) => {
    // 'close' rather than 'exit': the pipes are drained by then, so stdout() is complete.
    child.once('close', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    });
  });
  const hard = setTimeout(() => child.kill('SIGKILL'), hardTimeoutMs);
  hard.unref();

  const handle: OpenrailProcess = {
    child,
    stdout: () => out,
    stderr: () => err,
    waitForStdout: (text, ms = 90_000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (out.includes(text)) {
            done();
            resolve();
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out after ${ms} ms waiting for "${text}"\nstdout:\n${out}\nstderr:\n${err}`));
        }, ms);
        const onClose = () => {
          done();
          if (out.includes(text)) resolve();
          else reject(new Error(`exited (${JSON.stringify(exit)}) before printing "${text}"\nstdout:\n${out}\nstderr:\n${err}`));
        };
        const done = () => {
          clearTimeout(timer);
          child.stdout?.off('data', check);
          child.off('close', onClose);
        };
        child.stdout?.on('data', check);
        child.once('close', onClose);
        check();
        if (exit) onClose();
      }),
    exited: (ms = 15_000) =>
      new Promise<Exit>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`still running after ${ms} ms`)), ms);
        exitPromise.then((e) => {
          clearTimeout(timer);
          resolve(e);
        });
      }),
    kill: (signal = 'SIGTERM') => {
      if (!exit) child.kill(signal);
    },
  };
  live.add(handle);
  exitPromise.then(() => {
    clearTimeout(hard);
    live.delete(handle);
  });
  return handle;
}

/** SIGKILLs every process spawnOpenrail started that is still running, and waits for each to go. */
export async function killAll(): Promise<void> {
  await Promise.all(
    [...live].map(async (p) => {
      p.kill('SIGKILL');
      await p.exited(5_000).catch(() => undefined);
    }),
  );
}

/** The stdout lines that are JSON objects: the structured log. */
export function logLines(stdout: string): Record<string, unknown>[] {
  return stdout.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      const parsed: unknown = JSON.parse(line);
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? [parsed as Record<string, unknown>] : [];
    } catch {
      return [];
    }
  });
}

/** One `openrail wallet` command as a holder runs it: its own process, in `cwd`, never on a terminal. */
export function runWallet(cwd: string, ...args: string[]): Promise<Exit & { stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, 'wallet', ...args],
      { cwd, encoding: 'utf8', timeout: 60_000, env: scrubbedEnv() },
      (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, signal: null, stdout, stderr }),
    );
  });
}

/** A new wallet in a fresh temporary folder (`openrail wallet init`, which must succeed): the folder and the account it printed. */
export async function newWallet(): Promise<{ home: string; account: string }> {
  const home = mkdtempSync(join(tmpdir(), 'openrail-wallet-'));
  const made = await runWallet(home, 'init');
  assert.equal(made.code, 0, made.stderr);
  return { home, account: /^account (\S+)$/m.exec(made.stdout)?.[1] ?? '' };
}

/** SIGKILL for a process and every process it started (a serve primary and its workers). */
export function killTree(pid: number): void {
  const children = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
  process.kill(pid, 'SIGKILL');
  for (const child of children) {
    try {
      process.kill(child, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** What `openrail serve` prints once it listens. */
export const SERVING_BANNER = 'openrail is serving at';

/**
 * One `openrail serve` process (one worker) on 127.0.0.1:`port`, its PUBLIC_URL that origin,
 * answered once it prints that it is serving.
 */
export async function serveOn(
  env: Record<string, string>,
  port: number,
  bin = BIN,
): Promise<{ proc: OpenrailProcess; origin: string }> {
  const origin = `http://127.0.0.1:${port}`;
  const proc = spawnOpenrail(
    ['serve', '--workers', '1'],
    { ...env, PORT: String(port), PUBLIC_URL: origin },
    600_000,
    REPO_ROOT,
    bin,
  );
  await proc.waitForStdout(SERVING_BANNER, 60_000);
  return { proc, origin };
}
