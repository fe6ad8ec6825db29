/**
 * The mutants Stryker cannot make: a SQL condition removed. Stryker sees a statement as one
 * string (its only mutant empties it), and a query builder's `.where(...)` as a call it leaves
 * alone, so a spend whose `spent_at is null` is gone would never be tried. Here, inside the regions
 * a target names (a method, or a statement constant, found by the text it starts with), each
 * condition becomes a mutant of its own: a `.where(...)` line of a query builder is removed, and a
 * condition in SQL text (`spent_at is null`, `expires_at > ?`) is made always true by `(… or 1 = 1)`,
 * which keeps its parameters where they were. Each mutant is written into a copy of the
 * repository and the target's tests are run there; a mutant they pass on has survived.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Mutant } from './score.ts';

export interface Region {
  file: string;
  /** The text each region starts with: `async redeem(`, `const spendCode =`. */
  within: readonly string[];
}

/** A line range of a file, from the line a region starts on to the line that closes it (1-based). */
export interface LineRange {
  file: string;
  start: number;
  end: number;
}

const indentOf = (line: string) => line.length - line.trimStart().length;

/**
 * Where each region lies: from the line holding its text to the first later line at the same
 * indentation that closes it (`}` of a method, `);` of a statement), or that line alone when the
 * statement ends on it. A region not found is an error: a renamed method must not leave the
 * target silently empty.
 */
export function findRegions(root: string, region: Region): LineRange[] {
  const lines = readFileSync(join(root, region.file), 'utf8').split('\n');
  return region.within.map((text) => {
    const start = lines.findIndex((l) => l.includes(text));
    if (start === -1) throw new Error(`${region.file}: no line holds "${text}"`);
    const first = lines[start] ?? '';
    if (/;\s*$/.test(first)) return { file: region.file, start: start + 1, end: start + 1 };
    const indent = indentOf(first);
    for (let i = start + 1; i < lines.length; i++) {
      const line = lines[i] ?? '';
      if (line.trim() !== '' && indentOf(line) === indent && /^[})]/.test(line.trimStart())) {
        return { file: region.file, start: start + 1, end: i + 1 };
      }
    }
    throw new Error(`${region.file}: the region of "${text}" does not close`);
  });
}

export interface ConditionMutant {
  file: string;
  line: number;
  /** What the line was, and what it becomes (undefined: the line is removed). */
  original: string;
  replacement: string | undefined;
  description: string;
}

/** A builder's condition on a line of its own: `.where('spent_at', 'is', null)`. */
const WHERE_LINE = /^\s*\.where\((['"]).*\)\s*$/;
/** A condition in SQL text, after `where` or `and`: `column op ?` or `column is [not] null`. */
const SQL_CONDITION = /(?<=\b(?:where|and) )[a-z_]+ (?:is null|is not null|(?:=|!=|<>|>=|<=|>|<) \?)/g;

export function conditionMutants(root: string, ranges: readonly LineRange[]): ConditionMutant[] {
  const mutants: ConditionMutant[] = [];
  const seen = new Set<string>();
  for (const range of ranges) {
    const lines = readFileSync(join(root, range.file), 'utf8').split('\n');
    for (let n = range.start; n <= range.end; n++) {
      const line = lines[n - 1] ?? '';
      const at = `${range.file}:${n}`;
      if (WHERE_LINE.test(line)) {
        if (seen.has(at)) continue;
        seen.add(at);
        mutants.push({ file: range.file, line: n, original: line, replacement: undefined, description: line.trim() });
        continue;
      }
      if (!/['"`]/.test(line)) continue;
      for (const match of line.matchAll(SQL_CONDITION)) {
        const key = `${at}:${match.index}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const index = match.index ?? 0;
        const replacement = `${line.slice(0, index)}(${match[0]} or 1 = 1)${line.slice(index + match[0].length)}`;
        mutants.push({ file: range.file, line: n, original: line, replacement, description: match[0] });
      }
    }
  }
  return mutants;
}

/** What the sandbox needs to run the tests: the sources, tests and configuration, and node_modules linked. */
const COPIED = ['src', 'test', 'package.json', 'tsconfig.json'];

function makeSandbox(root: string, dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const entry of COPIED) {
    if (existsSync(join(root, entry))) cpSync(join(root, entry), join(dir, entry), { recursive: true });
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
}

/**
 * The test files run in one process, imported one after another: `node --test` would start a
 * process per file (and tsx in each), which costs more than most targets' tests themselves. Node's
 * test runner still runs every imported test and exits 1 when one fails.
 */
export function testArgs(tests: readonly string[]): string[] {
  const imports = tests.map((t) => `import './${t}';`).join(' ');
  return ['--import', 'tsx', '--test-reporter=dot', '--input-type=module', '-e', imports];
}

function runTests(dir: string, tests: readonly string[], timeoutMs: number): Promise<'passed' | 'failed' | 'timeout'> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, testArgs(tests), {
      cwd: dir,
      stdio: 'ignore',
      detached: true,
    });
    const timer = setTimeout(() => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {}
      resolve('timeout');
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code === 0 ? 'passed' : 'failed');
    });
  });
}

/**
 * Runs every condition mutant against the tests, `concurrency` sandboxes at a time (each suite
 * makes its own database or schema, so sandboxes do not meet), and answers them as Stryker reports
 * its own: Killed, Survived or Timeout. The tests must pass unmutated first.
 */
export async function runConditionMutants(
  root: string,
  sandboxRoot: string,
  mutants: readonly ConditionMutant[],
  tests: readonly string[],
  options: { concurrency: number; timeoutMs: number; log: (line: string) => void },
): Promise<Mutant[]> {
  const sandboxes = Array.from({ length: Math.max(1, options.concurrency) }, (_, i) => join(sandboxRoot, `conditions-${i}`));
  for (const dir of sandboxes) makeSandbox(root, dir);
  try {
    if ((await runTests(sandboxes[0] as string, tests, options.timeoutMs)) !== 'passed') {
      throw new Error(`the tests do not pass unmutated: ${tests.join(' ')}`);
    }
    const results: Mutant[] = [];
    let next = 0;
    let done = 0;
    const work = async (dir: string) => {
      while (next < mutants.length) {
        const m = mutants[next++] as ConditionMutant;
        const path = join(dir, m.file);
        const source = readFileSync(path, 'utf8');
        const lines = source.split('\n');
        if (m.replacement === undefined) lines.splice(m.line - 1, 1);
        else lines[m.line - 1] = m.replacement;
        writeFileSync(path, lines.join('\n'));
        const outcome = await runTests(dir, tests, options.timeoutMs);
        writeFileSync(path, source);
        const status = outcome === 'failed' ? 'Killed' : outcome === 'timeout' ? 'Timeout' : 'Survived';
        const column = m.original.indexOf(m.description) + 1;
        results.push({
          fileName: join(root, m.file),
          mutatorName: 'SqlCondition',
          replacement: m.replacement === undefined ? `(line removed) ${m.description}` : `(${m.description} or 1 = 1)`,
          status,
          location: {
            start: { line: m.line, column },
            end: { line: m.line, column: column + m.description.length },
          },
        });
        done++;
        options.log(`  condition ${done}/${mutants.length} ${status}: ${m.file}:${m.line} ${m.description}`);
      }
    };
    await Promise.all(sandboxes.map(work));
    return results;
  } finally {
    for (const dir of sandboxes) rmSync(dir, { recursive: true, force: true });
  }
}
