#!/usr/bin/env node
// openrail runs the bundle `npm install` built from its TypeScript sources (scripts/build.ts)
// while every source file it was built from is as it was, and the sources themselves through tsx
// otherwise: after an edit, a checkout or a build cut short, what runs is always what is on disk
// (docs/decisions/0028-run-the-bundle-built-from-the-sources.md).
import { readFileSync, statSync } from 'node:fs';

const root = new URL('../', import.meta.url);

/** Whether build/ holds a bundle of exactly the source files on disk (by size and modification time). */
function bundleIsCurrent() {
  try {
    const { inputs } = JSON.parse(readFileSync(new URL('build/sources.json', root), 'utf8'));
    for (const [file, [size, mtimeMs]] of Object.entries(inputs)) {
      const now = statSync(new URL(file, root));
      if (now.size !== size || now.mtimeMs !== mtimeMs) return false;
    }
    return true;
  } catch {
    return false;
  }
}

if (bundleIsCurrent()) {
  await import('../build/main.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
