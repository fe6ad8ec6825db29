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
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
