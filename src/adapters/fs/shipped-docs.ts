import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ShippedDocs } from '../../ports/shipped-docs.ts';

/** The docs/ folder of the package this process runs. */
export const DOCS_ROOT = fileURLToPath(new URL('../../../docs/', import.meta.url));

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
