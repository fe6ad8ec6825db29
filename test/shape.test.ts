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

test('in the features and the kits, only a module’s wiring (module.ts) reaches an adapter', () => {
  for (const { path, imports } of FILES) {
    if (!/^(features|http|web|core|wallet)\//.test(path) || path.endsWith('/module.ts')) continue;
    for (const target of imports) assert.ok(!target.startsWith('adapters/'), `${path} imports ${target}`);
  }
});

/**
 * The kernel's interface (app/module.ts, the Context) does not name its own boot: a restore drill
 * starts a replica through the port the composition root provides (Context.replicas), and no
 * feature imports app/start.ts.
 */
test('neither the kernel’s interface nor a feature imports the boot', () => {
  for (const { path, imports } of FILES) {
    if (path !== 'app/module.ts' && !path.startsWith('features/')) continue;
    assert.ok(!imports.includes('app/start.ts'), `${path} imports app/start.ts`);
  }
});

/**
 * Randomness is passed in (Context.random): the lint refuses node:crypto's generators by name, and
 * what it cannot see by import, Math.random and a namespace's generators, is refused here.
 */
test('features and the kits draw no randomness of their own', () => {
  for (const file of sources(SRC)) {
    const path = relative(SRC, file);
    if (!/^(features|http|web|core)\//.test(path) || path.endsWith('/module.ts')) continue;
    const code = readFileSync(file, 'utf8').replace(/^\s*(?:\/\/|\*).*$/gm, '');
    assert.doesNotMatch(code, /\bMath\.random\s*\(/, path);
    // node:crypto taken whole (`import * as c`, or its default): its generators through that name.
    for (const [, name] of code.matchAll(/^import\s+(?:\*\s+as\s+)?(\w+)\s+from\s+'(?:node:)?crypto'/gm)) {
      assert.doesNotMatch(code, new RegExp(`\\b${name}\\.(?:random\\w*|getRandomValues|webcrypto)\\b`), path);
    }
  }
});

/**
 * Runs the project's lint configuration (biome.json, noRestrictedImports) on a scratch tree holding
 * `files` (path relative to src/ -> text), and answers its output and exit status.
 */
function lintScratch(files: Record<string, string>): { out: string; status: number | null } {
  const scratch = mkdtempSync(join(tmpdir(), 'openrail-lint-'));
  try {
    cpSync(join(ROOT, 'biome.json'), join(scratch, 'biome.json'));
    // The configuration follows .gitignore (vcs.useIgnoreFile): the scratch tree has one too.
    cpSync(join(ROOT, '.gitignore'), join(scratch, '.gitignore'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(scratch, 'src', path)), { recursive: true });
      writeFileSync(join(scratch, 'src', path), text);
    }
    const biome = join(ROOT, 'node_modules', '.bin', 'biome');
    const run = spawnSync(biome, ['lint', '--only=style/noRestrictedImports', '--max-diagnostics=20', 'src'], {
      cwd: scratch,
      encoding: 'utf8',
    });
    return { out: `${run.stdout}${run.stderr}`, status: run.status };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The same rule as the build states it (biome.json, noRestrictedImports), shown failing: on a
 * scratch tree where a service imports a store and a module.ts imports the same, it refuses the
 * service only.
 */
test('the lint rule refuses an adapters/sql import in a feature file, and lets the module wire it', () => {
  const importer =
    "import { SqlProbeStore } from '../../adapters/sql/sql-probe-store.ts';\n\nexport const store = SqlProbeStore;\n";
  const { out, status } = lintScratch({
    'adapters/sql/sql-probe-store.ts': 'export class SqlProbeStore {}\n',
    'features/probe/probe-service.ts': importer,
    'features/probe/module.ts': importer,
  });
  assert.notEqual(status, 0, out);
  assert.match(out, /features\/probe\/probe-service\.ts:1:\d+ lint\/style\/noRestrictedImports/);
  assert.doesNotMatch(out, /features\/probe\/module\.ts:/);
  assert.match(out, /Found 1 error/);
});

/**
 * The rule holds the other adapters as it holds the SQL one (a feature importing the crypto
 * adapter), and refuses node:crypto's randomness by name while its digests stay allowed.
 */
test('the lint rule refuses a crypto adapter and node:crypto randomness in a feature file, and lets the module wire them', () => {
  const importer = "import { probeKeys } from '../../adapters/crypto/probe-keys.ts';\n\nexport const keys = probeKeys;\n";
  const random = "import { createHash, randomBytes } from 'node:crypto';\n\nexport const salt = [createHash, randomBytes];\n";
  const digest =
    "import { createHash, createHmac, timingSafeEqual } from 'node:crypto';\n\nexport const mac = [createHash, createHmac, timingSafeEqual];\n";
  const { out, status } = lintScratch({
    'adapters/crypto/probe-keys.ts': 'export const probeKeys = {};\n',
    'features/probe/probe-service.ts': importer,
    'features/probe/probe-salt.ts': random,
    'features/probe/probe-digest.ts': digest,
    'features/probe/module.ts': `${importer}${random.replace('salt', 'wired')}`,
  });
  assert.notEqual(status, 0, out);
  assert.match(out, /features\/probe\/probe-service\.ts:1:\d+ lint\/style\/noRestrictedImports/);
  assert.match(out, /features\/probe\/probe-salt\.ts:1:\d+ lint\/style\/noRestrictedImports/);
  assert.doesNotMatch(out, /features\/probe\/probe-digest\.ts:/);
  assert.doesNotMatch(out, /features\/probe\/module\.ts:/);
  assert.match(out, /Found 2 errors/);
});

/**
 * Files are a port as the rest of I/O is: the rule refuses node:fs and node:fs/promises (and their
 * bare names) in a feature file and in the web kit, while a module's wiring and a test may use them.
 */
test('the lint rule refuses node:fs in a feature and in the web kit, and lets the module and a test use it', () => {
  const sync = "import { readFileSync } from 'node:fs';\n\nexport const read = readFileSync;\n";
  const promises = "import { readFile } from 'node:fs/promises';\n\nexport const read = readFile;\n";
  const bare = "import { stat } from 'fs/promises';\n\nexport const size = stat;\n";
  const { out, status } = lintScratch({
    'features/probe/probe-docs.ts': sync,
    'features/probe/probe-folder.ts': promises,
    'features/probe/probe-disk.ts': bare,
    'web/probe-assets.ts': sync,
    'features/probe/module.ts': promises,
    'features/probe/probe.test.ts': sync,
  });
  assert.notEqual(status, 0, out);
  for (const file of [
    'features/probe/probe-docs',
    'features/probe/probe-folder',
    'features/probe/probe-disk',
    'web/probe-assets',
  ]) {
    assert.match(out, new RegExp(`${file.replace(/\//g, '\\/')}\\.ts:1:\\d+ lint\\/style\\/noRestrictedImports`), file);
  }
  assert.doesNotMatch(out, /features\/probe\/module\.ts:/);
  assert.doesNotMatch(out, /features\/probe\/probe\.test\.ts:/);
  assert.match(out, /Found 4 errors/);
});
