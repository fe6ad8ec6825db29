/**
 * The README's tours, read from the README itself (so it cannot drift), run as a newcomer pastes
 * them: every `sh` block from "A tour: issue, hold, present, revoke" up to "Documentation", in
 * order, as one bash script (and one zsh script, where zsh is installed), in a scratch copy of the
 * repository's tracked files made into a git repository, against a live `openrail serve` started
 * there on a fresh SQLite database. The only lines changed are the two the README tells the reader
 * to fill in: `B=` (the URL) and `TOKEN=` (the owner token). Afterwards `git status` in the copy
 * shows nothing, and npm test's lint passes there: everything the tours write lands in ignored paths.
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
import { freePort, type OpenrailProcess, REPO_ROOT, spawnOpenrail } from './helpers/process.ts';

const OWNER = 'readme-tour-owner-token-0123456789abcdefghij';
const TOURS_START = '## A tour: issue, hold, present, revoke';
const TOURS_END = '## Documentation';

/** The tours' shell blocks, in README order. */
export function tourBlocks(readme: string): string[] {
  const start = readme.indexOf(TOURS_START);
  const end = readme.indexOf(TOURS_END);
  assert.ok(start >= 0 && end > start, 'the README has its tours between these headings');
  return [...readme.slice(start, end).matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
}

/** The script as the reader runs it: their URL and owner token in the two lines that ask for them. */
function asPasted(blocks: string[], origin: string): string {
  const script = blocks.join('\n');
  const fill = (name: string, value: string) => {
    const line = new RegExp(`^${name}=.*$`, 'm');
    assert.equal(script.match(new RegExp(`^${name}=`, 'gm'))?.length, 1, `the tours set ${name} in one line`);
    return (text: string) => text.replace(line, `${name}=${value}`);
  };
  return fill('TOKEN', `'${OWNER}'`)(fill('B', origin)(script));
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
 * The tours need bash, curl and jq, and run in zsh too where it is installed. Locally a missing
 * tool skips the suite, saying so; in CI (`CI=true`, where .ci/run installs them all) it is an error.
 */
const needed = process.env.CI === 'true' ? ['bash', 'curl', 'jq', 'zsh'] : ['bash', 'curl', 'jq'];
const missing = needed.filter((tool) => !onPath(tool));
if (missing.length > 0 && process.env.CI === 'true') throw new Error(`the README tours need ${missing.join(', ')}`);
const skip = missing.length > 0 ? `install ${missing.join(', ')} to run the README tours` : false;
const shells = ['bash', ...(onPath('zsh') ? ['zsh'] : [])];

// The shells run side by side: most of a run is waiting (for the wallet, npx, the backup drill).
describe('the README tours, pasted into a shell against a live openrail serve', { concurrency: true, skip }, () => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

  test('the tours are there, and each one names what the reader fills in only once', () => {
    const blocks = tourBlocks(readme);
    assert.ok(blocks.length >= 8, `${blocks.length} blocks`);
    asPasted(blocks, 'http://localhost:3000');
  });

  for (const shell of shells) {
    describe(shell, () => {
      let dir: string;
      let server: OpenrailProcess;
      let origin: string;

      before(async () => {
        dir = scratchClone();
        const port = await freePort();
        origin = `http://localhost:${port}`;
        server = spawnOpenrail(
          ['serve', '--workers', '1'],
          { PORT: String(port), PUBLIC_URL: origin, OPENRAIL_OWNER_TOKEN: OWNER, LOG_LEVEL: 'warn' },
          15 * 60_000,
          dir,
        );
        await server.waitForStdout('openrail is serving', 60_000);
      });
      after(async () => {
        server?.kill();
        await server?.exited(30_000).catch(() => server.kill('SIGKILL'));
        if (dir) rmSync(dir, { recursive: true, force: true });
      });

      test('every tour runs top to bottom and does what it says; the copy stays clean', async () => {
        const script = asPasted(tourBlocks(readme), origin);
        writeFileSync(join(dir, 'data', 'tours.sh'), script);
        const { code, out } = await run(shell, script, dir);
        assert.equal(code, 0, out);
        const says = [
          // the first tour
          /"typeId": "resident-card"/,
          /"error":"invalid_claim_spec"/,
          /collected c1: .*\/types\/resident-card/,
          /the verifier accepted the presentation/,
          /"district": "north"/,
          /refused the presentation: credential_revoked/,
          /vectors passed at level/,
          // ISO mdoc: the demonstration pass in two formats
          /"transit-pass":\["dc\+sd-jwt"\],"transit-pass\.mdoc":\["mso_mdoc","localhost\.demo-transit\.transit-pass"\]/,
          /^collected c1: localhost\.demo-transit\.transit-pass \(mso_mdoc\)$/m,
          /asks c1 \(localhost\.demo-transit\.transit-pass, mso_mdoc\) for: given_name, fare_zone$/m,
          /^\{"ok":true,"format":"mso_mdoc","claims":\{"given_name":"Grace","fare_zone":"inner"\}\}$/m,
          // the holder plane
          /enrolled in city-of-ghent as member/,
          /accepted: Water, October/,
          /shared with city-of-ghent \(channel active\): amount/,
          /voted Yes on prop_/,
          /refused, as it should be: one member, one vote/,
          // the account portal and the partner programme
          /approved the sign-in asked by/,
          /^303 http:\/\/localhost:\d+\/account$/m,
          /"format": "openrail-account-export\/2"/,
          /^approved$/m,
          /"scopes": \[\s*"issuance"\s*\]/,
          // integration, back office, compliance, operations
          /ratelimit-policy: "standard";q=600;w=60/i,
          /^ok: \d+ entries/m,
          /^same_operator$/m,
          /"approved"/,
          /"state": "completed"/,
          /bkp_\S+\.sqlite: OK/,
          /"previousKid": "/,
        ];
        for (const expected of says) assert.match(out, expected, `the tours' output says ${expected}`);
        // No answer the tours did not mean to provoke is a refusal.
        const refusals = [...out.matchAll(/"error":\s*"([a-z_]+)"/g)].map((m) => m[1]);
        assert.deepEqual(refusals, ['invalid_claim_spec'], out);
        // The one null the tours show on purpose: the outcome before the wallet answers.
        assert.match(out, /\{"outcome":null,"reason":"pending"\}/, 'the poll before the wallet answers');
        assert.doesNotMatch(
          out.replace('{"outcome":null,"reason":"pending"}', ''),
          /\bnull\b/,
          'no id or value the tours capture came back null',
        );

        const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: dir, encoding: 'utf8' });
        assert.equal(status, '', 'everything the tours wrote is in an ignored path');
        // npm test's lint reads what git tracks, so what the tours left behind cannot fail it.
        const lint = await new Promise<{ code: number; out: string }>((resolve) =>
          execFile(
            join(REPO_ROOT, 'node_modules', '.bin', 'biome'),
            ['check', '.'],
            { cwd: dir, encoding: 'utf8' },
            (err, stdout, stderr) => resolve({ code: err ? 1 : 0, out: `${stdout}${stderr}` }),
          ),
        );
        assert.equal(lint.code, 0, lint.out);
        assert.doesNotMatch(server.stderr(), /"level":(50|60)/, 'the service logged no error');
      });
    });
  }
});
