// `npm run mutation -- <target> [<target> …]`: mutation testing of the trust-critical code
// (bench/README.md, "Mutation"). Each target's files (or regions of files) are mutated one change
// at a time by Stryker, each SQL condition of its regions is removed in turn
// (sql-conditions.ts), and the target's few test files are run against each mutant; a mutant no
// test fails on has survived. Prints a table per file, writes
// bench/results/mutation-<target>-<time>.json, and exits 1 when a file scores under the bar.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { LogLevel } from '@stryker-mutator/api/core';
import { Stryker } from '@stryker-mutator/core';
import { startRun, writeResults } from '../lib/results.ts';
import { REPO_ROOT } from '../lib/server.ts';
import { type FileScore, type Mutant, scoreFiles } from './score.ts';
import { conditionMutants, findRegions, runConditionMutants, testArgs } from './sql-conditions.ts';
import { TARGETS } from './targets.ts';

/** The bar every mutated file is held to (issue 25): a lower score fails the run. */
export const BAR = 0.9;
/** Mutants run at once, each in a sandbox of its own (OPENRAIL_MUTATION_CONCURRENCY; default 2). */
const CONCURRENCY = Math.max(1, Number(process.env.OPENRAIL_MUTATION_CONCURRENCY ?? 2) || 2);
const TIMEOUT_MS = 120_000;

const log = (line: string) => process.stdout.write(`${line}\n`);

async function runTarget(name: string, sqlOnly: boolean, strykerOnly: boolean): Promise<FileScore[]> {
  const target = TARGETS[name];
  if (!target) throw new Error(`--: no target "${name}" (targets: ${Object.keys(TARGETS).join(', ')})`);
  const run = startRun(`mutation-${name}`, log);
  log(`${name}: ${target.about}`);
  if (target.postgres && !process.env.TEST_DATABASE_URL) {
    throw new Error(`${name}: its tests race on PostgreSQL; set TEST_DATABASE_URL (bench/README.md, "Mutation")`);
  }
  // What does not depend on the engine is tested on SQLite alone: each mutant runs in half the time.
  if (!target.postgres) delete process.env.TEST_DATABASE_URL;
  const tempDirName = join('.stryker-tmp', name);
  const ranges = (target.regions ?? []).flatMap((r) => findRegions(REPO_ROOT, r));
  const mutate = target.mutate ?? ranges.map((r) => `${r.file}:${r.start}-${r.end}`);
  const command = `node ${testArgs(target.tests)
    .map((a) => (a.includes(' ') ? `"${a}"` : a))
    .join(' ')}`;
  const stryker = new Stryker({
    // Node's test runner has no Stryker plugin: the command runner runs the target's tests once
    // per mutant (in one process, testArgs), the active mutant named in __STRYKER_ACTIVE_MUTANT__,
    // which the process and its children inherit. Without per-test coverage every test file runs
    // for every mutant, hence few files.
    testRunner: 'command',
    commandRunner: { command },
    coverageAnalysis: 'off',
    mutate,
    concurrency: CONCURRENCY,
    timeoutMS: 20_000,
    reporters: ['progress'],
    tempDirName,
    // Only what the tests load is copied into the sandbox; results, artifacts and data stay out.
    ignorePatterns: ['bench/results', 'test/artifacts', 'data', '.stryker-tmp'],
    // LogLevel is a const enum, out of reach under verbatimModuleSyntax: its value, typed as it.
    logLevel: 'warn' as LogLevel,
    // Stryker rewrites tsconfig.json's paths with TypeScript's JavaScript API, which the native
    // TypeScript 7 this project checks with does not have; nothing here needs the rewrite (no
    // `extends` or references), so it is pointed at a file that is not there and skipped.
    tsconfigFile: 'no-tsconfig-rewrite.json',
  });
  const results = sqlOnly ? [] : ((await stryker.runMutationTest()) as unknown as Mutant[]);
  rmSync(join(REPO_ROOT, tempDirName), { recursive: true, force: true });
  const conditions = strykerOnly ? [] : conditionMutants(REPO_ROOT, ranges);
  if (conditions.length > 0) {
    log(`${name}: ${conditions.length} SQL conditions, each removed in turn`);
    const sandboxRoot = join(REPO_ROOT, '.stryker-tmp', `${name}-conditions`);
    const options = { concurrency: CONCURRENCY, timeoutMs: TIMEOUT_MS, log };
    results.push(...(await runConditionMutants(REPO_ROOT, sandboxRoot, conditions, target.tests, options)));
  }
  const files = scoreFiles(REPO_ROOT, results, target.equivalent ?? {});
  printTable(files);
  const path = writeResults(run, undefined, {
    target: name,
    about: target.about,
    tests: target.tests,
    mutants: sqlOnly
      ? 'SQL conditions only (--sql-only)'
      : strykerOnly
        ? "Stryker's mutants only (--stryker-only)"
        : 'Stryker and SQL conditions',
    bar: BAR,
    files,
  });
  log(`results: ${path}`);
  return files;
}

function printTable(files: FileScore[]): void {
  const rows = files.map((f) => [
    f.file,
    f.mutants,
    f.killed,
    f.timedOut,
    f.survived,
    f.leftOut,
    `${(f.score * 100).toFixed(1)}%`,
    `${(f.floor * 100).toFixed(1)}%`,
  ]);
  const head = ['file', 'mutants', 'killed', 'of which timed out', 'survived', 'left out', 'score', 'without timeouts'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells: unknown[]) => cells.map((c, i) => String(c).padEnd(widths[i] ?? 0)).join('  ');
  log(line(head));
  log(line(widths.map((w) => '-'.repeat(w))));
  for (const r of rows) log(line(r));
  for (const f of files) for (const s of f.survivors) log(`  survived: ${s}`);
}

const args = process.argv.slice(2);
// --sql-only: the SQL-condition pass alone, without Stryker (a quick check of a spends change);
// --stryker-only: Stryker's mutants alone (the spends target's two passes each take about an hour).
const sqlOnly = args.includes('--sql-only');
const strykerOnly = args.includes('--stryker-only');
if (sqlOnly && strykerOnly) {
  process.stderr.write('--sql-only and --stryker-only leave nothing to run; give one\n');
  process.exit(2);
}
const names = args.filter((a) => a !== '--sql-only' && a !== '--stryker-only');
if (names.length === 0 || names.some((n) => !(n in TARGETS))) {
  process.stderr.write(
    `usage: npm run mutation -- <${Object.keys(TARGETS).join('|')}> [more targets] [--sql-only | --stryker-only]\n`,
  );
  process.exit(2);
}
let underBar = false;
for (const name of names) {
  const files = await runTarget(name, sqlOnly, strykerOnly);
  if (files.some((f) => f.score < BAR)) underBar = true;
}
process.exit(underBar ? 1 : 0);
