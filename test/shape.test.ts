/**
 * The shape of the source tree (docs/architecture.md), checked on the import statements
 * themselves so that it holds as modules are added: the pure core and the kits never reach into a
 * feature; no two features need each other, directly or around a cycle; and compose.ts lists
 * modules and nothing else.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

/** The files of src/ a source file imports, relative to src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:import|export)\s[^'"]*?from\s+'(\.{1,2}\/[^']+)'/gm)].map((m) =>
    relative(SRC, resolve(dirname(file), m[1] ?? '')),
  );
}

const FILES = sources(SRC).map((file) => ({ path: relative(SRC, file), imports: importsOf(file) }));
const featureOf = (path: string) => /^features\/([^/]+)\//.exec(path)?.[1];

test('the core, the ports, the adapters and the HTTP and web kits never import a feature', () => {
  for (const { path, imports } of FILES) {
    if (!/^(core|ports|adapters|http|web)\//.test(path)) continue;
    for (const target of imports) assert.ok(!target.startsWith('features/'), `${path} imports ${target}`);
  }
});

test('the pure core imports only the core', () => {
  for (const { path, imports } of FILES.filter((f) => f.path.startsWith('core/'))) {
    for (const target of imports) assert.ok(target.startsWith('core/'), `${path} imports ${target}`);
  }
});

test('features depend on one another without a cycle', () => {
  const edges = new Map<string, Set<string>>();
  for (const { path, imports } of FILES) {
    const from = featureOf(path);
    if (!from) continue;
    for (const target of imports) {
      const to = featureOf(target);
      if (to && to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  const visiting: string[] = [];
  const done = new Set<string>();
  const visit = (feature: string) => {
    if (done.has(feature)) return;
    assert.ok(!visiting.includes(feature), `a cycle: ${[...visiting, feature].join(' -> ')}`);
    visiting.push(feature);
    for (const next of edges.get(feature) ?? []) visit(next);
    visiting.pop();
    done.add(feature);
  };
  for (const feature of edges.keys()) visit(feature);
  assert.ok(edges.size > 3, 'the features were read');
});

test('compose.ts lists modules and nothing else', () => {
  const compose = FILES.find((f) => f.path === 'compose.ts');
  assert.ok(compose);
  for (const target of compose.imports) {
    assert.ok(/^features\/[^/]+\/module\.ts$|^app\/start\.ts$|^config\/config\.ts$/.test(target), `compose.ts imports ${target}`);
  }
});
