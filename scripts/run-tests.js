// Runs every *.test.ts under src/ (tests beside their module) and test/ (suites across modules)
// with node's test runner (Node 20 has no --test glob of its own).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function find(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((entry) => {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) return find(path);
      return path.endsWith('.test.ts') ? [path] : [];
    });
}

const files = process.argv.length > 2 ? process.argv.slice(2) : [...find('src'), ...find('test')];
// Two test files run at a time unless OPENRAIL_TEST_CONCURRENCY says otherwise: most of a file's
// time is spent waiting on PostgreSQL, sockets, child processes or Chromium, so two share the
// machine's two cores well (one at a time took 38 minutes in CI). Suites must therefore never
// depend on what another suite does meanwhile: each has its own SQLite file or PostgreSQL schema,
// its own ports, and reads only its own schema's tables (test/helpers/databases.ts tablesOf).
const concurrency = Number.parseInt(process.env.OPENRAIL_TEST_CONCURRENCY ?? '', 10) || 2;
const args = ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files];
const result = spawnSync(process.execPath, args, {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
