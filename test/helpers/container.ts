/**
 * The container image (Dockerfile, docs/deploy.md) for the container suite: whether it can be
 * built and run here, the commands run as children, and the build itself on the bases
 * scripts/debian-base.sh makes from Debian packages (no image registry is needed).
 *
 * Where podman runs here and how (found on a Debian 12 machine inside a sandbox, podman 4.3):
 * - builds run with `--isolation chroot`: no OCI runtime, no cgroups;
 * - containers run with runc (`--runtime runc`): crun, which podman installs by default, stops
 *   with "cgroups in hybrid mode not supported";
 * - with explicit, modest `--ulimit`s: podman's defaults raise the open files and processes
 *   limits, which the sandbox refuses ("error setting rlimit type 7: operation not permitted").
 */
import { execFile, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './process.ts';

/** What the suite runs; Debian's packages put them here. */
const TOOLS = ['/usr/bin/podman', '/usr/sbin/runc', '/usr/bin/mmdebstrap'];

export const BASE_SCRIPT = join(REPO_ROOT, 'scripts', 'debian-base.sh');
export const BASE_IMAGE = 'localhost/openrail-base';
/** The tag the suite builds: kept, so that the next run reuses its layers. */
export const TEST_TAG = 'localhost/openrail:container-test';
/** Where the base file systems are kept between runs (scripts/debian-base.sh). */
export const BASE_CACHE = process.env.OPENRAIL_BASE_CACHE ?? join(tmpdir(), 'openrail-debian-base');
/** The limits containers run with here (see above). */
export const RUN_LIMITS = ['--runtime', 'runc', '--ulimit', 'nofile=4096:4096', '--ulimit', 'nproc=4096:4096'];

/**
 * undefined when the image can be built and run here, else why the container suite is skipped.
 * In CI (`CI=true`, where .ci/run installs the packages) a missing tool is an error, never a
 * silent skip.
 */
export function containerToolsMissing(): string | undefined {
  const missing = TOOLS.filter((tool) => !existsSync(tool));
  let why: string | undefined;
  if (missing.length > 0)
    why = `${missing.join(', ')} missing: install Debian's podman, runc and mmdebstrap to run the container test`;
  else if (process.getuid?.() !== 0) why = 'the container test runs as root (mmdebstrap, podman import and run)';
  if (why && process.env.CI === 'true') throw new Error(why);
  return why;
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** This process's environment, without what the test runner or a developer's shell sets for openrail. */
function childEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(NODE_TEST_CONTEXT|NODE_OPTIONS)$/.test(k)) env[k] = v;
  }
  return env;
}

/** Runs a command to its end; never rejects (the caller asserts on `code`). */
export function run(command: string, args: string[], timeoutMs = 120_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: REPO_ROOT, env: childEnv(), timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export const podman = (args: string[], timeoutMs?: number) => run('podman', args, timeoutMs);

/** Runs a long command with its output in `log` (a build prints thousands of lines); resolves with the exit code. */
function logged(command: string, args: string[], log: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve) => {
    const out = createWriteStream(log);
    out.once('open', () => {
      const child = spawn(command, args, { cwd: REPO_ROOT, env: childEnv(), stdio: ['ignore', out, out] });
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.once('close', (code) => {
        clearTimeout(timer);
        out.close();
        resolve(code ?? -1);
      });
    });
  });
}

const tail = (file: string, lines = 40) => readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');

export interface BuiltImage {
  /** The image's id: containers run by id, so a build running beside this one cannot swap it. */
  id: string;
  /** Seconds each stage took. */
  baseSeconds: number;
  buildSeconds: number;
}

/**
 * Makes (or takes from the cache) the Debian bases, then builds the Dockerfile on them as
 * docs/deploy.md says, with the commit of this checkout. Throws with the end of the log on failure.
 */
export async function buildImage(commit: string): Promise<BuiltImage> {
  const logs = mkdtempSync(join(tmpdir(), 'openrail-container-'));
  const t0 = Date.now();
  const baseLog = join(logs, 'debian-base.log');
  const base = await logged('bash', [BASE_SCRIPT, BASE_CACHE], baseLog, 900_000);
  if (base !== 0) throw new Error(`scripts/debian-base.sh exited ${base}:\n${tail(baseLog)}`);
  const t1 = Date.now();
  const buildLog = join(logs, 'build.log');
  const iidFile = join(logs, 'image-id');
  const build = await logged(
    'podman',
    [
      'build',
      '--format',
      'docker', // the OCI format has no HEALTHCHECK
      '--isolation',
      'chroot',
      '--pull=never',
      '--build-arg',
      `BASE=${BASE_IMAGE}:runtime`,
      '--build-arg',
      `BUILD_BASE=${BASE_IMAGE}:build`,
      '--build-arg',
      `OPENRAIL_COMMIT=${commit}`,
      '--iidfile',
      iidFile,
      '--tag',
      TEST_TAG,
      '.',
    ],
    buildLog,
    1_200_000,
  );
  if (build !== 0) throw new Error(`podman build exited ${build}:\n${tail(buildLog)}`);
  const t2 = Date.now();
  return {
    id: readFileSync(iidFile, 'utf8')
      .trim()
      .replace(/^sha256:/, ''),
    baseSeconds: Math.round((t1 - t0) / 1000),
    buildSeconds: Math.round((t2 - t1) / 1000),
  };
}

/** GET `url` without throwing: the status and parsed body, or status 0 when nothing answered. */
export async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(5_000) });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: the text
    }
    return { status: res.status, body };
  } catch {
    return { status: 0, body: undefined };
  }
}

/**
 * Waits until `origin`/readyz answers 200, failing early with the container's log when it stops.
 * The first start compiles the whole service (tsx) in every worker: about a minute on a busy
 * two-core machine.
 */
export async function waitReady(origin: string, container: string, ms = 300_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    const ready = await getJson(`${origin}/readyz`);
    if (ready.status === 200) return Math.round((Date.now() - started) / 1000);
    const state = await podman(['inspect', '--format', '{{.State.Running}} {{.State.ExitCode}}', container]);
    if (!state.stdout.startsWith('true')) {
      const logs = await podman(['logs', '--tail', '40', container]);
      throw new Error(`the container stopped (${state.stdout.trim()}) before it was ready:\n${logs.stdout}${logs.stderr}`);
    }
    if (Date.now() - started > ms) {
      const logs = await podman(['logs', '--tail', '40', container]);
      throw new Error(
        `not ready after ${ms} ms (last: ${ready.status} ${JSON.stringify(ready.body)}):\n${logs.stdout}${logs.stderr}`,
      );
    }
    await new Promise((r) => setTimeout(r, 1_000));
  }
}
