// Builds the bundle the command runs (npm's `prepare`, or `npm run build`): src/cli/main.ts and
// everything it imports, bundled by esbuild into build/ as ES modules, one chunk per dynamic
// import so that what a process never needs is never loaded; packages stay in node_modules.
// bin/openrail.js runs the bundle only while every source file it was built from is as it was
// (size and modification time, recorded last in build/sources.json), and the TypeScript sources
// through tsx otherwise (docs/decisions/0028-run-the-bundle-built-from-the-sources.md).
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, version } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'build');
const stamp = join(out, 'sources.json');

// The stamp goes first and comes back last: a build cut short leaves none, and is not run.
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { main: 'src/cli/main.ts' },
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  packages: 'external',
  chunkNames: 'chunks/[name]-[hash]',
  metafile: true,
  logLevel: 'warning',
});
// V8 keeps each module's source text while the process lives, at one byte a character only where
// every character is within Latin-1: one ’ in a page's template doubles a 1.5 MB chunk. esbuild
// escapes string literals but writes templates and comments as they are, so what is left above
// U+00FF becomes a \uXXXX escape, the same character in a string, a template (our tags read the
// cooked text, never .raw), a regular expression and a comment (issue 54, docs/scaling.md "Memory").
for (const file of Object.keys(result.metafile.outputs)) {
  if (!file.endsWith('.js')) continue;
  const text = readFileSync(join(root, file), 'utf8');
  const escaped = text.replace(/[\u0100-\uffff]/g, (c, at: number) => {
    if (text[at - 1] === '\\') throw new Error(`${file}: an escaped ${c} at ${at} would not survive escaping`);
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
  if (escaped !== text) writeFileSync(join(root, file), escaped);
}
const inputs: Record<string, [size: number, mtimeMs: number]> = {};
// esbuild reads tsconfig.json too; package.json names the package the bundle finds its root by.
const read = ['tsconfig.json', 'package.json'].filter((file) => existsSync(join(root, file)));
for (const file of [...Object.keys(result.metafile.inputs), ...read].sort()) {
  const { size, mtimeMs } = statSync(join(root, file));
  inputs[relative(root, join(root, file))] = [size, mtimeMs];
}
writeFileSync(stamp, `${JSON.stringify({ esbuild: version, builtAt: new Date().toISOString(), inputs })}\n`);
console.log(`openrail: built build/ from ${Object.keys(inputs).length} source files (esbuild ${version})`);
