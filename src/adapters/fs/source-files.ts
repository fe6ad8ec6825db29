import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { FileDigests } from '../../core/source-digest.ts';
import type { RecordedBuild, ShippedBuild } from '../../ports/shipped-build.ts';

export type { RecordedBuild };

/** What the package ships and runs: the code, its entry point and its locked dependencies. */
export const SHIPPED = ['bin', 'src', 'package.json', 'package-lock.json'];
/** Tests live beside their module in src/ but are neither shipped nor run by the service. */
const NOT_SHIPPED = /\.test\.ts$/;

export const BUILD_INFO_FILE = 'build-info.json';

function walk(root: string, path: string, out: FileDigests): void {
  const full = join(root, path);
  if (!existsSync(full)) return;
  if (statSync(full).isDirectory()) {
    for (const entry of readdirSync(full).sort()) walk(root, join(path, entry), out);
    return;
  }
  const key = relative(root, full).split(sep).join('/');
  if (NOT_SHIPPED.test(key)) return;
  out[key] = createHash('sha256').update(readFileSync(full)).digest('hex');
}

/** Hashes every shipped file under `root` as it is on disk now. */
export function hashShippedFiles(root: string): FileDigests {
  const out: FileDigests = {};
  for (const path of SHIPPED) walk(root, path, out);
  return out;
}

export function readRecordedBuild(root: string): RecordedBuild | undefined {
  const file = join(root, BUILD_INFO_FILE);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as RecordedBuild;
  } catch {
    return undefined;
  }
}

/** The package installed at `root` (Context.shipped: the service's own, APP_ROOT). */
export function shippedBuildAt(root: string): ShippedBuild {
  return {
    version: () => {
      const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: unknown };
      return typeof pkg.version === 'string' ? pkg.version : undefined;
    },
    recorded: () => readRecordedBuild(root),
    observed: () => hashShippedFiles(root),
  };
}
