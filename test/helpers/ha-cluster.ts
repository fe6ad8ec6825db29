/**
 * The reference topology of docs/high-availability.md (scripts/ha-cluster.sh) for process tests:
 * whether it can run here, the script run as a child, the ports and secrets it chose, and what is
 * still running from its state directory.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './process.ts';

export const HA_SCRIPT = join(REPO_ROOT, 'scripts', 'ha-cluster.sh');

/** What the script runs; Debian's packages put them here. */
const TOOLS = [
  '/usr/bin/etcd',
  '/usr/bin/patroni',
  '/usr/bin/patronictl',
  '/usr/sbin/haproxy',
  '/usr/lib/postgresql/15/bin/postgres',
  '/usr/lib/postgresql/15/bin/psql',
];

/**
 * undefined when the cluster can be brought up here, else why its suites are skipped. In CI
 * (`CI=true`, where .ci/run installs the packages) a missing tool is an error, never a silent skip.
 */
export function haClusterMissing(): string | undefined {
  const missing = TOOLS.filter((tool) => !existsSync(tool));
  if (missing.length === 0) return undefined;
  const why = `${missing.join(', ')} missing: install Debian's patroni, etcd-server, python3-etcd, haproxy and postgresql-15 to run the cluster tests`;
  if (process.env.CI === 'true') throw new Error(why);
  return why;
}

export interface ScriptRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `scripts/ha-cluster.sh <command> <dir>`; never rejects (the caller asserts on `code`). */
export function haCluster(command: 'up' | 'status' | 'down', dir: string, timeoutMs = 180_000): Promise<ScriptRun> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(NODE_TEST_CONTEXT|NODE_OPTIONS|HA_DIR)$/.test(k)) env[k] = v;
  }
  return new Promise((resolve) => {
    execFile(
      'bash',
      [HA_SCRIPT, command, dir],
      { cwd: REPO_ROOT, env, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The KEY=value lines of the state directory's cluster.env. */
export function readClusterEnv(dir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(join(dir, 'cluster.env'), 'utf8').split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return env;
}

/** Every port the script chose (the cluster.env entries ending in _PORT). */
export const clusterPorts = (env: Record<string, string>): Array<[string, number]> =>
  Object.entries(env)
    .filter(([k]) => k.endsWith('_PORT'))
    .map(([k, v]) => [k, Number(v)]);

/** The PIDs the script recorded, and each PostgreSQL node's postmaster (from its postmaster.pid). */
export function recordedPids(dir: string): Map<string, number> {
  const pids = new Map<string, number>();
  const pidDir = join(dir, 'pids');
  for (const file of existsSync(pidDir) ? readdirSync(pidDir) : []) {
    pids.set(file.replace(/\.pid$/, ''), Number(readFileSync(join(pidDir, file), 'utf8').split('\n')[0]));
  }
  for (const node of ['pg1', 'pg2']) {
    const file = join(dir, node, 'data', 'postmaster.pid');
    if (existsSync(file)) pids.set(`${node} postmaster`, Number(readFileSync(file, 'utf8').split('\n')[0]));
  }
  return pids;
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Processes whose command line names a path inside `dir` or whose environment carries the
 * script's marker (HA_CLUSTER_DIR=dir): what the script started, and what those started.
 */
export function processesFrom(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const read = (file: string) => {
      try {
        return readFileSync(join('/proc', entry, file), 'utf8').split('\0');
      } catch {
        return [];
      }
    };
    const cmdline = read('cmdline');
    if (cmdline.some((arg) => arg.includes(`${dir}/`)) || read('environ').includes(`HA_CLUSTER_DIR=${dir}`)) {
      found.push(`${entry} ${cmdline.join(' ').trim()}`);
    }
  }
  return found;
}

/** A member of the Patroni cluster, as its REST API's /cluster lists it. */
export interface PatroniMember {
  name: string;
  role: string;
  state: string;
}

/** The Patroni cluster's members, asked of whichever node's REST API answers. */
export async function patroniMembers(env: Record<string, string>): Promise<PatroniMember[]> {
  for (const node of [1, 2]) {
    try {
      const res = await fetch(`http://127.0.0.1:${env[`PATRONI${node}_REST_PORT`]}/cluster`, {
        signal: AbortSignal.timeout(2_000),
      });
      if (res.ok) return ((await res.json()) as { members: PatroniMember[] }).members;
    } catch {
      // That node's Patroni is not answering just now: ask the other.
    }
  }
  return [];
}

/** Waits until one member leads and the other streams as its synchronous standby; answers the leader's name. */
export async function waitForSyncPair(env: Record<string, string>, limitMs = 90_000): Promise<string> {
  const until = Date.now() + limitMs;
  let seen: PatroniMember[] = [];
  while (Date.now() < until) {
    seen = await patroniMembers(env);
    const leader = seen.find((m) => m.role === 'leader' && m.state === 'running');
    const sync = seen.find((m) => m.role === 'sync_standby' && ['streaming', 'running'].includes(m.state));
    if (leader && sync) return leader.name;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`no leader with a streaming synchronous standby within ${limitMs} ms: ${JSON.stringify(seen)}`);
}

/** Kills the leader's postmaster with SIGKILL (Patroni then fails over); answers the leader's name. */
export async function killPrimaryPostmaster(dir: string, env: Record<string, string>): Promise<string> {
  const leader = (await patroniMembers(env)).find((m) => m.role === 'leader')?.name;
  if (!leader) throw new Error('no leader to kill');
  const pid = Number(readFileSync(join(dir, leader, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  process.kill(pid, 'SIGKILL');
  return leader;
}

/** A planned switchover to the synchronous standby, through patronictl; answers its output. */
export function switchover(dir: string, leader: string): Promise<ScriptRun> {
  const candidate = leader === 'pg1' ? 'pg2' : 'pg1';
  return new Promise((resolve) => {
    execFile(
      'patronictl',
      ['-c', join(dir, leader, 'patroni.yml'), 'switchover', '--leader', leader, '--candidate', candidate, '--force'],
      { env: { ...process.env, HOME: dir }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}
