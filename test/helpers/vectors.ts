import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Published test vectors vendored under test/fixtures/vectors (its README names their sources). */
const VECTORS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'vectors');

export function readVectors<T>(file: string): T {
  return JSON.parse(readFileSync(join(VECTORS_DIR, file), 'utf8')) as T;
}
