/**
 * The README's tours, read from the README itself (so it cannot drift), run as a newcomer pastes
 * them: every `sh` block from "Quick start" up to "Documentation" but the one that starts the
 * service, in order, as one bash session (and one zsh session, where zsh is installed), in a
 * scratch copy of the repository's tracked files made into a git repository, against a live
 * `openrail serve` started there on a fresh SQLite database. The only lines changed are the two
 * the README tells the reader to fill in: `B=` (the URL) and `TOKEN=` (the owner token). The
 * session runs with errexit and pipefail, so a request that failed stops it; it is then read tour
 * by tour: each ran to its end and printed its `#>` lines, in order. Afterwards `git status` in the
 * copy shows nothing, and npm test's lint passes there: everything the tours write lands in
 * ignored paths. A second test pastes the first tour into an interactive shell with a refused
 * token and sees `need` stop it, naming the value, while the shell carries on.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { stripVTControlCharacters } from 'node:util';
import { freePort, type OpenrailProcess, REPO_ROOT, spawnOpenrail } from './helpers/process.ts';

const OWNER = 'readme-tour-owner-token-0123456789abcdefghij';
const SESSION_START = '## Quick start';
const SESSION_END = '## Documentation';

export interface Tour {
  title: string;
  blocks: string[];
}

/**
 * The README's session: its `sh` blocks from the quick start to the documentation, grouped by
 * heading, without the one block that starts the service (the test starts it itself).
 */
export function readmeTours(readme: string): Tour[] {
  const start = readme.indexOf(SESSION_START);
  const end = readme.indexOf(SESSION_END);
  assert.ok(start >= 0 && end > start, 'the README has its session between these headings');
  const tours = readme
    .slice(start, end)
    .split(/^(?=## )/m)
    .map((section) => ({
      title: section.slice(3, section.indexOf('\n')).trim(),
      blocks: [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? ''),
    }));
  const starts = tours.flatMap((tour) => tour.blocks.filter((block) => /^npm start\b/m.test(block)));
  assert.equal(starts.length, 1, 'one block starts the service');
  return tours
    .map((tour) => ({ ...tour, blocks: tour.blocks.filter((block) => !starts.includes(block)) }))
    .filter((tour) => tour.blocks.length > 0);
}

/** The script as the reader runs it: their URL and owner token in the two lines that ask for them. */
function asPasted(script: string, origin: string, token = OWNER): string {
  const fill = (name: string, value: string) => {
    const line = new RegExp(`^${name}=.*$`, 'm');
    assert.equal(script.match(new RegExp(`^${name}=`, 'gm'))?.length, 1, `the README sets ${name} in one line`);
    return (text: string) => text.replace(line, `${name}=${value}`);
  };
  return fill('TOKEN', `'${token}'`)(fill('B', origin)(script));
}

/**
 * What a tour's `#>` lines promise, as patterns for whole lines of its output, in order: the
 * README's origin becomes the live one, and `…` (or `...`) stands for anything. A line that is
 * nothing but `…` says more lines follow, and promises nothing itself.
 */
export function samples(tour: Tour, origin: string): RegExp[] {
  const host = new URL(origin).host;
  return tour.blocks
    .flatMap((block) => [...block.matchAll(/^#> ?(.*)$/gm)].map((m) => m[1] ?? ''))
    .filter((line) => !/^\s*(…|\.\.\.)\s*$/.test(line))
    .map((line) => {
      const live = line.replaceAll('http://localhost:3000', origin).replaceAll('localhost%3A3000', encodeURIComponent(host));
      const pattern = live
        .split(/…|\.\.\./)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*');
      return new RegExp(`^${pattern}$`);
    });
}

/** The `#>` lines the output does not show, in order (each matched after the one before). */
function unmet(out: string, patterns: RegExp[]): string[] {
  const lines = out.split('\n').map((line) => line.replace(/\r$/, '').trimEnd());
  let at = 0;
  const missing: string[] = [];
  for (const pattern of patterns) {
    const found = lines.findIndex((line, i) => i >= at && pattern.test(line));
    if (found < 0) missing.push(pattern.source);
    else at = found + 1;
  }
  return missing;
}

const ENDED = (i: number) => `@@ tour ${i} ran to its end`;

/** One session: errexit, pipefail, stderr in line with stdout, and a mark after each tour. */
function session(tours: Tour[], origin: string): string {
  const body = tours.map((tour, i) => `${tour.blocks.join('\n')}\necho '${ENDED(i)}'`).join('\n');
  return `exec 2>&1\nset -o pipefail\n${asPasted(body, origin)}`;
}

function run(shell: string, script: string, cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      shell,
      ['-e', '-c', script],
      { cwd, encoding: 'utf8', timeout: 10 * 60_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, CI: 'true' } },
      (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: `${stdout}\n${stderr}` }),
    );
  });
}

/** A scratch copy of the tracked files (as they are in the working tree), committed, with node_modules linked. */
function scratchClone(): string {
  const dir = mkdtempSync(join(tmpdir(), 'openrail-readme-'));
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: REPO_ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    const from = join(REPO_ROOT, file);
    if (!existsSync(from) || !statSync(from).isFile()) continue;
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(from, join(dir, file));
  }
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=tour', '-c', 'user.email=tour@example.org', ...args], { cwd: dir, stdio: 'pipe' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'scratch copy');
  return dir;
}

const onPath = (tool: string) => (process.env.PATH ?? '').split(':').some((dir) => dir !== '' && existsSync(join(dir, tool)));
/**
 * The tours need bash, curl and jq, and run in zsh too where it is installed; the interactive
 * paste needs util-linux's `script` for a terminal. Locally a missing tool skips the suite, saying
 * so; in CI (`CI=true`, where .ci/run installs them all) it is an error.
 */
const needed = process.env.CI === 'true' ? ['bash', 'curl', 'jq', 'zsh', 'script'] : ['bash', 'curl', 'jq', 'script'];
const missing = needed.filter((tool) => !onPath(tool));
if (missing.length > 0 && process.env.CI === 'true') throw new Error(`the README tours need ${missing.join(', ')}`);
const skip = missing.length > 0 ? `install ${missing.join(', ')} to run the README tours` : false;
const shells = ['bash', ...(onPath('zsh') ? ['zsh'] : [])];

/** A shell on a terminal (util-linux `script`), fed `input` as if typed or pasted. */
function interactive(shell: string, input: string, cwd: string): Promise<string> {
  const command = shell === 'bash' ? 'bash --norc -i' : 'zsh -f -i';
  return new Promise((resolve) => {
    const child = execFile(
      'script',
      ['-qec', command, '/dev/null'],
      { cwd, encoding: 'utf8', timeout: 2 * 60_000, env: { ...process.env, CI: 'true' } },
      // A terminal's output: colours, bracketed-paste marks and carriage returns removed.
      (_err, stdout) => resolve(stripVTControlCharacters(stdout).replace(/\r/g, '')),
    );
    child.stdin?.end(input);
  });
}

/** A scratch copy with `openrail serve` running in it on a fresh SQLite database. */
async function serveScratch(): Promise<{ dir: string; server: OpenrailProcess; origin: string }> {
  const dir = scratchClone();
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const server = spawnOpenrail(
    ['serve', '--workers', '1'],
    { PORT: String(port), PUBLIC_URL: origin, OPENRAIL_OWNER_TOKEN: OWNER, LOG_LEVEL: 'warn' },
    15 * 60_000,
    dir,
  );
  await server.waitForStdout('openrail is serving', 60_000);
  return { dir, server, origin };
}

async function stopScratch(dir: string | undefined, server: OpenrailProcess | undefined): Promise<void> {
  server?.kill();
  await server?.exited(30_000).catch(() => server.kill('SIGKILL'));
  if (dir) rmSync(dir, { recursive: true, force: true });
}

// The shells run side by side: most of a run is waiting (for the wallet, npx, the backup drill).
describe('the README tours, pasted into a shell against a live openrail serve', { concurrency: true, skip }, () => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const tours = skip ? [] : readmeTours(readme);

  test('the session is there, and names what the reader fills in only once', () => {
    assert.ok(tours.length >= 7, `${tours.length} tours`);
    assert.equal(tours[0]?.title, 'Quick start');
    asPasted(tours.flatMap((tour) => tour.blocks).join('\n'), 'http://localhost:3000');
    for (const tour of tours.slice(1)) {
      for (const block of tour.blocks)
        assert.match(block, /^\{\n[\s\S]*\n\}\n$/, `each block of "${tour.title}" is one { … } group`);
      assert.ok(samples(tour, 'http://localhost:3000').length > 0, `"${tour.title}" shows what it prints`);
    }
  });

  let dir: string;
  let server: OpenrailProcess;
  let origin: string;
  before(async () => {
    ({ dir, server, origin } = await serveScratch());
  });
  after(() => stopScratch(dir, server));

  for (const shell of shells) {
    test(`${shell}: a tour whose step failed stops there, naming the value, and the shell carries on`, async () => {
      const [quick, first] = tours;
      assert.ok(quick && first);
      const pasted = asPasted([...quick.blocks, ...first.blocks].join('\n'), origin, 'not-the-owner-token-0123456789abcdefghij');
      const preamble = shell === 'zsh' ? 'setopt interactivecomments\n' : '';
      const out = await interactive(shell, `${preamble}${pasted}\necho "still $((20 + 22))"\nexit\n`, dir);
      assert.match(out, /^curl: \(22\) .* 401/m, 'the refused request says so');
      assert.match(out, /^stopped: \$T is null: the step that sets it failed/m, out);
      assert.doesNotMatch(out, /^city-of-ghent$/m, 'nothing after the failed step ran');
      assert.doesNotMatch(out, /^created a wallet/m, 'nothing after the failed step ran');
      assert.match(out, /^still 42$/m, 'the shell is still there');
    });
  }

  // Each shell runs the whole session in its own scratch copy and server (the tenants they create collide).
  for (const shell of shells) {
    describe(`${shell}: the README from the quick start to the last tour, as one session`, () => {
      let copy: string;
      let own: OpenrailProcess;
      let live: string;
      let result: { code: number; out: string };
      const sections: string[] = [];

      before(async () => {
        ({ dir: copy, server: own, origin: live } = await serveScratch());
        const script = session(tours, live);
        writeFileSync(join(copy, 'data', 'tours.sh'), script);
        result = await run(shell, script, copy);
        let rest = result.out;
        for (const [i] of tours.entries()) {
          const at = rest.indexOf(ENDED(i));
          sections.push(at < 0 ? rest : rest.slice(0, at));
          rest = at < 0 ? '' : rest.slice(at + ENDED(i).length);
        }
      });
      after(() => stopScratch(copy, own));

      for (const [i, tour] of tours.entries()) {
        test(tour.title, () => {
          const out = sections[i] ?? '';
          const before = tours[i - 1];
          if (before && !result.out.includes(ENDED(i - 1)))
            assert.fail(`"${tour.title}" did not run: "${before.title}" stopped first`);
          assert.ok(
            result.out.includes(ENDED(i)),
            `"${tour.title}" stopped before its end (exit ${result.code}):\n${out.slice(-4000)}`,
          );
          assert.deepEqual(unmet(out, samples(tour, live)), [], `"${tour.title}" printed:\n${out}`);
        });
      }

      test('the session ends well, refuses only what it means to, and leaves the copy clean', async () => {
        assert.equal(result.code, 0, result.out.slice(-4000));
        // No answer the tours did not mean to provoke is a refusal.
        const refusals = [...result.out.matchAll(/"error":\s*"([a-z_]+)"/g)].map((m) => m[1]);
        assert.deepEqual(refusals, ['invalid_claim_spec'], result.out);
        // The one null the tours show on purpose: the outcome before the wallet answers.
        assert.doesNotMatch(
          result.out.replace('{"outcome":null,"reason":"pending"}', ''),
          /\bnull\b/,
          'no id or value the tours capture came back null',
        );
        const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: copy, encoding: 'utf8' });
        assert.equal(status, '', 'everything the tours wrote is in an ignored path');
        // npm test's lint reads what git tracks, so what the tours left behind cannot fail it.
        const lint = await new Promise<{ code: number; out: string }>((resolve) =>
          execFile(
            join(REPO_ROOT, 'node_modules', '.bin', 'biome'),
            ['check', '.'],
            { cwd: copy, encoding: 'utf8' },
            (err, stdout, stderr) => resolve({ code: err ? 1 : 0, out: `${stdout}${stderr}` }),
          ),
        );
        assert.equal(lint.code, 0, lint.out);
        assert.doesNotMatch(own.stderr(), /"level":(50|60)/, 'the service logged no error');
      });
    });
  }
});
