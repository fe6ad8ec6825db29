import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ShippedDocs } from '../../ports/shipped-docs.ts';
import { PACKAGE_ROOT } from './package-root.ts';

/** The docs/ folder of the package this process runs. */
export const DOCS_ROOT = join(PACKAGE_ROOT, 'docs');

/** The documents under `root` (the package's docs/ unless a test gives another). */
export function shippedDocsAt(root: string = DOCS_ROOT): ShippedDocs {
  return {
    list(folder) {
      try {
        return readdirSync(join(root, folder)).filter((f) => f.endsWith('.md'));
      } catch {
        return []; // a deployment shipped without its docs serves none
      }
    },
    read(file) {
      try {
        return readFileSync(join(root, file), 'utf8');
      } catch {
        return undefined;
      }
    },
  };
}
