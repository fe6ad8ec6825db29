/**
 * The shape of the source tree (docs/architecture.md), checked on the import statements
 * themselves so that it holds as modules are added: the pure core and the kits never reach into a
 * feature; no two features need each other, directly or around a cycle; and compose.ts lists
 * modules and nothing else.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');

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

test('in the features and the kits, only a module’s wiring (module.ts) reaches the SQL adapter', () => {
  for (const { path, imports } of FILES) {
    if (!/^(features|http|web|core|wallet)\//.test(path) || path.endsWith('/module.ts')) continue;
    for (const target of imports) assert.ok(!target.startsWith('adapters/sql/'), `${path} imports ${target}`);
  }
});

/**
 * The same rule as the build states it (biome.json, noRestrictedImports), shown failing: the
 * project's lint configuration, run on a scratch tree where a service imports a store and a
 * module.ts imports the same, refuses the service only.
 */
test('the lint rule refuses an adapters/sql import in a feature file, and lets the module wire it', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'openrail-lint-'));
  try {
    cpSync(join(ROOT, 'biome.json'), join(scratch, 'biome.json'));
    // The configuration follows .gitignore (vcs.useIgnoreFile): the scratch tree has one too.
    cpSync(join(ROOT, '.gitignore'), join(scratch, '.gitignore'));
    mkdirSync(join(scratch, 'src', 'adapters', 'sql'), { recursive: true });
    mkdirSync(join(scratch, 'src', 'features', 'probe'), { recursive: true });
    writeFileSync(join(scratch, 'src', 'adapters', 'sql', 'sql-probe-store.ts'), 'export class SqlProbeStore {}\n');
    const importer =
      "import { SqlProbeStore } from '../../adapters/sql/sql-probe-store.ts';\n\nexport const store = SqlProbeStore;\n";
    writeFileSync(join(scratch, 'src', 'features', 'probe', 'probe-service.ts'), importer);
    writeFileSync(join(scratch, 'src', 'features', 'probe', 'module.ts'), importer);
    const biome = join(ROOT, 'node_modules', '.bin', 'biome');
    const run = spawnSync(biome, ['lint', '--only=style/noRestrictedImports', '--max-diagnostics=20', 'src'], {
      cwd: scratch,
      encoding: 'utf8',
    });
    const out = `${run.stdout}${run.stderr}`;
    assert.notEqual(run.status, 0, out);
    assert.match(out, /features\/probe\/probe-service\.ts:1:\d+ lint\/style\/noRestrictedImports/);
    assert.doesNotMatch(out, /features\/probe\/module\.ts:/);
    assert.match(out, /Found 1 error/);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
