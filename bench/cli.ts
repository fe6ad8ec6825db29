// `npm run bench -- cli [--runs <n>]`: how long the command line takes of its own, before any
// network: `openrail --version`, `openrail wallet --help`, and `openrail wallet list` on a wallet
// with no credential, each as a person runs it (a new Node process through bin/openrail.js).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { otherLoad } from './lib/machine.ts';
import { startRun, writeResults } from './lib/results.ts';
import { REPO_ROOT } from './lib/server.ts';
import { fixed, percentile, table } from './lib/stats.ts';

const COMMANDS: ReadonlyArray<{ name: string; args: (wallet: string) => string[] }> = [
  { name: 'openrail --version', args: () => ['--version'] },
  { name: 'openrail wallet --help', args: () => ['wallet', '--help'] },
  { name: 'openrail wallet list', args: (wallet) => ['wallet', 'list', '--wallet', wallet] },
];

export async function cliBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { runs: { type: 'string', default: '10' } } });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1 || runs > 200) throw new Error('--runs must be a whole number from 1 to 200');
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const run = startRun('cli', log);
  const before = await otherLoad();
  const bin = join(REPO_ROOT, 'bin', 'openrail.js');
  const home = mkdtempSync(join(tmpdir(), 'openrail-bench-cli-'));
  const wallet = join(home, 'wallet.json');
  try {
    execFileSync(process.execPath, [bin, 'wallet', 'init', '--wallet', wallet], { stdio: 'ignore' });
    const rows = COMMANDS.map(({ name, args }) => {
      const times: number[] = [];
      // One run first, unmeasured: Node's compile cache and the file system's are warm for every measured one.
      execFileSync(process.execPath, [bin, ...args(wallet)], { stdio: 'ignore' });
      for (let i = 0; i < runs; i++) {
        const started = process.hrtime.bigint();
        execFileSync(process.execPath, [bin, ...args(wallet)], { stdio: 'ignore' });
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      const sorted = Float64Array.from(times).sort();
      return { command: name, runs, p50Ms: percentile(sorted, 50), maxMs: sorted[sorted.length - 1] ?? 0 };
    });
    const bare = (() => {
      const started = process.hrtime.bigint();
      execFileSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
      return Number(process.hrtime.bigint() - started) / 1e6;
    })();
    log(
      table(
        ['command', 'runs', 'p50 ms', 'max ms'],
        rows.map((r) => [r.command, r.runs, fixed(r.p50Ms, 0), fixed(r.maxMs, 0)]),
      ),
    );
    log(`(a bare node process takes ${fixed(bare, 0)} ms here)`);
    log(`results: ${writeResults(run, before, { bareNodeMs: bare, rows })}`);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
