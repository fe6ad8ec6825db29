import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { WebAssetFiles } from '../../ports/web-asset-files.ts';
import { PACKAGE_ROOT } from './package-root.ts';

/** The web kit's assets folder (src/web/assets/). */
export const ASSETS_DIR = join(PACKAGE_ROOT, 'src', 'web', 'assets');

/** The assets folder at `dir` (this installation's unless a test gives another), and npm packages as installed here. */
export function webAssetFilesAt(dir: string = ASSETS_DIR): WebAssetFiles {
  const require = createRequire(import.meta.url);
  return {
    folder: dir,
    assets: () =>
      readdirSync(dir)
        .sort()
        .map((name) => ({ name, bytes: readFileSync(join(dir, name)) })),
    packageFile: (packageName, file) => readFileSync(join(dirname(require.resolve(`${packageName}/package.json`)), file)),
  };
}
