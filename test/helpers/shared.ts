import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `../shared` beside the repository: the specification, standards texts and published vectors. */
export const SHARED_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared');

export function readVectors<T>(file: string): T {
  return JSON.parse(readFileSync(join(SHARED_DIR, 'vectors', file), 'utf8')) as T;
}
