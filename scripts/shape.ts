// `npm run shape`: the shape of the source tree in numbers (bench/README.md, "The shape, round
// three"). Per back-office route group: its operations, and the lines of feature code, ports and
// SQL behind each; the tables named by more than one module's adapters; the source files over 400
// lines; repeated runs per 1,000 lines (the `duplicates` command, where the machine has it).
// `--json <file>` writes the same figures as JSON. It reads files and starts the service once on a
// scratch SQLite file to read its route table; it changes nothing.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { TABLE_OWNERS } from '../src/adapters/sql/owners.ts';
import { startOpenrail } from '../src/app/start.ts';
import { MODULES } from '../src/compose.ts';
import { loadConfig } from '../src/config/config.ts';
import { adapterTables, sourceFiles } from '../test/helpers/table-references.ts';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const { values } = parseArgs({ options: { json: { type: 'string' } } });
const lines = (file: string) => readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1;
const SOURCES = sourceFiles(ROOT, 'src');

/** The files of src/ a file imports, relative to the root. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/^(?:import|export)\s[^'"]*?from\s+'(\.{1,2}\/[^']+)'/gm)].map((m) =>
    relative(ROOT, resolve(dirname(join(ROOT, file)), m[1] ?? '')),
  );
}
const IMPORTS = new Map(SOURCES.map((f) => [f, importsOf(f)]));

/** The route groups of the whole service with their operations (aliases apart), read from a started service. */
async function groupOperations(): Promise<Map<string, number>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'openrail-shape-'));
  try {
    const config = loadConfig({
      OPENRAIL_DATA_DIR: dataDir,
      OPENRAIL_DEMO: 'off',
      OPENRAIL_MASTER_KEY: Buffer.alloc(32, 1).toString('base64url'),
      OPENRAIL_OWNER_TOKEN: 'shape-script-owner-token-0000000000000000',
    });
    const service = await startOpenrail(config, MODULES, { runJobs: false, warn: () => {} });
    try {
      return new Map(service.routes.map((g) => [g.name, g.routes.length]));
    } finally {
      await service.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The file that names a route group (its `name: '...'`), or undefined. */
const homeOf = (group: string) =>
  SOURCES.find((f) => f.startsWith('src/features/') && readFileSync(join(ROOT, f), 'utf8').includes(`name: '${group}'`));

/** The file that names a group, and the files of its folder it reaches from there (its feature code). */
function featureFilesOf(group: string): string[] {
  const home = homeOf(group);
  if (!home) return [];
  const folder = dirname(home);
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file) || !file.startsWith(`${folder}/`) || file.endsWith('/module.ts')) return;
    seen.add(file);
    for (const target of IMPORTS.get(file) ?? []) visit(target);
  };
  visit(home);
  return [...seen];
}

interface GroupShape {
  group: string;
  operations: number;
  feature: number;
  ports: number;
  sql: number;
}

/**
 * Lines per back-office group. A feature file several groups use is divided among them by their
 * operations; a port, or a SQL adapter behind it, among everything that reads it: the back-office
 * groups by their operations, and every other module (its folder under src/features/) by the
 * operations of its own route groups (at least one). An owner's views serve its own module and
 * the back office alike, so the back office is charged its share of them, not the whole.
 */
function groupShapes(operations: Map<string, number>): GroupShape[] {
  const groups = [...operations.keys()].filter((g) => /^(admin|console)-/.test(g)).sort();
  const features = new Map(groups.map((g) => [g, featureFilesOf(g)]));
  const backoffice = new Set(groups.flatMap((g) => features.get(g) ?? []));
  // Every other reader of ports: a module's folder, weighed by the operations of the groups it serves.
  const moduleOf = (f: string) => /^src\/features\/([^/]+)\//.exec(f)?.[1];
  const moduleWeight = new Map<string, number>();
  for (const [group, count] of operations) {
    const m = moduleOf(homeOf(group) ?? '');
    if (m && !/^(admin|console)-/.test(group)) moduleWeight.set(m, (moduleWeight.get(m) ?? 0) + count);
  }
  const portsIn = (files: string[]) =>
    new Set(files.flatMap((f) => (IMPORTS.get(f) ?? []).filter((t) => t.startsWith('src/ports/'))));
  const readers = new Map<string, number>(groups.map((g) => [g, operations.get(g) || 1]));
  const readerPorts = new Map<string, Set<string>>(groups.map((g) => [g, portsIn(features.get(g) ?? [])]));
  const others = new Map<string, string[]>();
  for (const f of SOURCES) {
    const m = moduleOf(f);
    if (m && !backoffice.has(f) && !f.endsWith('.test.ts')) others.set(`module:${m}`, [...(others.get(`module:${m}`) ?? []), f]);
  }
  for (const [reader, files] of others) {
    readers.set(reader, moduleWeight.get(reader.slice('module:'.length)) || 1);
    readerPorts.set(reader, portsIn(files));
  }
  const adaptersOf = (ports: Set<string>) =>
    SOURCES.filter((f) => f.startsWith('src/adapters/sql/') && (IMPORTS.get(f) ?? []).some((t) => ports.has(t)));
  const readerAdapters = new Map([...readerPorts].map(([r, ports]) => [r, adaptersOf(ports)]));
  /** A group's share of files: each file's lines times the group's weight over the weight of all its readers. */
  const share = (filesOf: (reader: string) => Iterable<string>, among: string[]) => {
    const weightOf = new Map<string, number>();
    for (const r of among) for (const f of filesOf(r)) weightOf.set(f, (weightOf.get(f) ?? 0) + (readers.get(r) ?? 1));
    return (g: string) =>
      [...filesOf(g)].reduce((sum, f) => sum + (lines(f) * (readers.get(g) ?? 1)) / (weightOf.get(f) ?? 1), 0);
  };
  const everyone = [...readers.keys()];
  const feature = share((g) => features.get(g) ?? [], groups);
  const ports = share((r) => readerPorts.get(r) ?? [], everyone);
  const sql = share((r) => readerAdapters.get(r) ?? [], everyone);
  return groups.map((g) => ({
    group: g,
    operations: operations.get(g) ?? 0,
    feature: Math.round(feature(g)),
    ports: Math.round(ports(g)),
    sql: Math.round(sql(g)),
  }));
}

/** Tables named by the adapters of more than one owner's folder (or of the top of adapters/sql). */
function sharedTables(): Array<{ table: string; folders: string[] }> {
  const tables = Object.values(TABLE_OWNERS).flat() as string[];
  const by = new Map<string, Set<string>>();
  for (const a of adapterTables(ROOT, tables)) {
    for (const t of a.tables) by.set(t, (by.get(t) ?? new Set()).add(a.folder ?? '(top)'));
  }
  return [...by]
    .filter(([, folders]) => folders.size > 1)
    .map(([table, folders]) => ({ table, folders: [...folders].sort() }))
    .sort((a, b) => b.folders.length - a.folders.length || a.table.localeCompare(b.table));
}

/** Repeated runs in src/ per 1,000 lines, by the `duplicates` command; null where it is not installed. */
function repeatedRuns(): { pairs: number; lines: number; perThousand: number } | null {
  const run = spawnSync('duplicates', ['--repo', join(ROOT, 'src'), '--seconds', '300', '--most', '1'], { encoding: 'utf8' });
  if (run.error || run.status !== 0) return null;
  const pairs = Number(/^(\d+) pairs/m.exec(run.stdout)?.[1] ?? 0);
  const total = sourceFiles(ROOT, 'src').length === 0 ? 0 : allLines('src');
  return { pairs, lines: total, perThousand: Math.round((pairs / total) * 10_000) / 10 };
}

function allLines(dir: string): number {
  const walk = spawnSync('git', ['ls-files', '--', `${dir}/*.ts`, `${dir}/**/*.ts`], { cwd: ROOT, encoding: 'utf8' });
  return walk.stdout
    .split('\n')
    .filter((f) => f && existsSync(join(ROOT, f)))
    .reduce((sum, f) => sum + lines(f), 0);
}

const pad = (s: string | number, n: number) => String(s).padStart(n);
const operations = await groupOperations();
const shapes = groupShapes(operations);
const shared = sharedTables();
const large = SOURCES.map((f) => ({ file: f, lines: lines(f) }))
  .filter((f) => f.lines > 400)
  .sort((a, b) => b.lines - a.lines);
const runs = repeatedRuns();

console.log(
  'Back-office groups: lines per operation (feature code, ports, SQL; a file several groups use is divided among them by operations)\n',
);
console.log(`${'group'.padEnd(22)} ${pad('ops', 4)} ${pad('feature', 8)} ${pad('ports', 6)} ${pad('sql', 6)} ${pad('all', 6)}`);
for (const s of shapes) {
  const per = (n: number) => (s.operations ? Math.round(n / s.operations) : 0);
  console.log(
    `${s.group.padEnd(22)} ${pad(s.operations, 4)} ${pad(per(s.feature), 8)} ${pad(per(s.ports), 6)} ${pad(per(s.sql), 6)} ${pad(per(s.feature + s.ports + s.sql), 6)}`,
  );
}
console.log(`\nTables named by more than one module's adapters: ${shared.length}`);
for (const t of shared) console.log(`  ${t.table}: ${t.folders.join(', ')}`);
console.log(`\nSource files over 400 lines: ${large.length}`);
for (const f of large) console.log(`  ${f.file} (${f.lines})`);
console.log(
  runs
    ? `\nRepeated runs in src/: ${runs.pairs} pairs in ${runs.lines} lines, ${runs.perThousand} per 1,000 lines`
    : '\nRepeated runs: the `duplicates` command is not on this machine',
);
if (values.json) {
  writeFileSync(
    values.json,
    `${JSON.stringify({ groups: shapes, sharedTables: shared, largeFiles: large, repeatedRuns: runs }, null, 2)}\n`,
  );
}
