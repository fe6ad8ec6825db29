import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of the package this process runs: the nearest one above this module whose
 * package.json is openrail's. Found by walking up rather than by a fixed number of `..`, so the
 * answer is the same whether the sources run through tsx or the bundle built from them does
 * (build/, scripts/build.ts): every path to a shipped file (the web assets, docs/, package.json)
 * starts here.
 */
export const PACKAGE_ROOT = packageRootAbove(dirname(fileURLToPath(import.meta.url)));

function packageRootAbove(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    try {
      if ((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name === 'openrail') return dir;
    } catch {
      // no package.json here, or not JSON: keep walking
    }
    if (dirname(dir) === dir) throw new Error(`no openrail package.json above ${start}`);
  }
}
