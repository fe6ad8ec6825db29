import { createHash } from 'node:crypto';

/**
 * Build provenance (docs/build-provenance.md). The source digest is SHA-256 over one line per
 * shipped file, `<sha256 hex of the file>  <path>\n`, sorted by path (the `sha256sum` format),
 * so anyone can recompute it from a checkout with standard tools.
 */
export type FileDigests = Record<string, string>;

export function sourceDigest(files: FileDigests): string {
  const lines = Object.keys(files)
    .sort()
    .map((path) => `${files[path]}  ${path}\n`)
    .join('');
  return `sha256:${createHash('sha256').update(lines, 'utf8').digest('hex')}`;
}

export interface Divergence {
  missing: number;
  changed: number;
  extra: number;
}

export function divergence(recorded: FileDigests, observed: FileDigests): Divergence {
  let missing = 0;
  let changed = 0;
  for (const [path, digest] of Object.entries(recorded)) {
    if (!(path in observed)) missing++;
    else if (observed[path] !== digest) changed++;
  }
  const extra = Object.keys(observed).filter((path) => !(path in recorded)).length;
  return { missing, changed, extra };
}
