import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './server.ts';
import { fixed, table } from './stats.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileEntry {
  name: string;
  where: string;
  selfMs: number;
  selfPct: number;
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  idlePct: number;
  topFunctions: ProfileEntry[];
  byArea: ProfileEntry[];
  /** Busy time (idle left out) by GROUPS, in their order; selfPct is of the busy time. */
  byGroup: ProfileEntry[];
  /** The windows the samples were cut to, when there were any. */
  windows?: number;
}

/**
 * Where a millisecond of server CPU goes, by what the code is for: the first rule a frame (its
 * script's URL, or its name for V8's own) meets. Node's crypto and the JOSE, X.509 and COSE code
 * on top of it; Node's HTTP, sockets and streams, Fastify with its router, validators and
 * serialisers, and our routes; the SQL drivers, Kysely and our stores; JSON, buffers and the
 * SD-JWT disclosures' encoding; the log line; the collector; and everything else.
 */
export const GROUPS = [
  'cryptography',
  'HTTP and schemas',
  'SQL',
  'serialisation',
  'logging',
  'garbage collection',
  'the rest',
] as const;
type Group = (typeof GROUPS)[number];

const RULES: ReadonlyArray<[Group, RegExp]> = [
  [
    'cryptography',
    /^node:internal\/crypto|\/node_modules\/(jose|@peculiar|asn1js|pkijs|@noble|@animo-id\/mdoc)\/|\/src\/(core\/jose|adapters\/crypto|core\/mdoc\/cose)/,
  ],
  [
    'HTTP and schemas',
    /^node:(_http|http|net|internal\/(http|streams|stream_base|net|url))|\/node_modules\/(fastify|@fastify|find-my-way|avvio|ajv|ajv-formats|fast-json-stringify|fast-uri|light-my-request|cookie|@sinclair)\/|\/src\/(http|web)\//,
  ],
  // bench/lib/sql-time.mjs (--sql-time) wraps every statement: its frames run the statement.
  [
    'SQL',
    /\/node_modules\/(kysely|better-sqlite3|pg|pg-protocol|pg-types|pg-pool)\/|\/src\/adapters\/sql\/|\/bench\/lib\/sql-time\.mjs/,
  ],
  ['serialisation', /^node:buffer|\/node_modules\/(cbor-x|cbor-extract)\/|\/src\/core\/sd-jwt\//],
  ['logging', /\/node_modules\/(pino|sonic-boom|thread-stream|pino-std-serializers|on-exit-leak-free)\/|\/src\/app\/logger/],
];
/** V8's and the binding layer's own frames, which carry no URL, by name. */
const NATIVE: Record<string, Group> = {
  Hash: 'cryptography',
  Hmac: 'cryptography',
  writev: 'HTTP and schemas',
  writeString: 'HTTP and schemas',
  writeBuffer: 'HTTP and schemas',
  writeUtf8String: 'HTTP and schemas',
  parse: 'serialisation',
  stringify: 'serialisation',
  '(garbage collector)': 'garbage collection',
};

/** The group a rule places `url` in, if any. */
function ruled(url: string): Group | undefined {
  for (const [group, rule] of RULES) if (rule.test(url)) return group;
  return undefined;
}

/**
 * A write's binding frame carries no URL and serves a socket or a file alike: it belongs to the
 * nearest caller a rule places (Node's stream code for a response, the logger for a log line
 * written through node:fs).
 */
const WRITES = new Set(['writev', 'writeString', 'writeBuffer', 'writeUtf8String']);

function groupOf(url: string, name: string, id: number, parents: ReadonlyMap<number, ProfileNode>): Group {
  if (url) return ruled(url) ?? 'the rest';
  if (WRITES.has(name)) {
    for (let caller = parents.get(id); caller; caller = parents.get(caller.id)) {
      const { url: callerUrl, lineNumber } = caller.callFrame;
      const group = callerUrl ? ruled(sourceUrl(callerUrl, lineNumber)) : undefined;
      if (group) return group;
    }
  }
  return NATIVE[name] ?? 'the rest';
}

const BUILD_URL = `file://${join(REPO_ROOT, 'build')}/`;
const bundles = new Map<string, Array<string | undefined>>();

/**
 * A frame of the bundle (build/, decision 0028) named by the source it came from: esbuild writes
 * `// src/<path>.ts` above each module's code, so a line belongs to the last such comment above
 * it. Any other frame keeps its URL.
 */
function sourceUrl(url: string, lineNumber: number): string {
  if (!url.startsWith(BUILD_URL)) return url;
  let sources = bundles.get(url);
  if (!sources) {
    let current: string | undefined;
    sources = readFileSync(new URL(url), 'utf8')
      .split('\n')
      .map((line) => {
        current = /^\/\/ (src\/\S+\.ts)$/.exec(line)?.[1] ?? current;
        return current;
      });
    bundles.set(url, sources);
  }
  const source = sources[lineNumber];
  return source ? `file://${join(REPO_ROOT, source)}` : url;
}

/** Where a frame's code lives: the repo's src/ path, a package, node's internals or V8. */
function area(url: string): string {
  if (!url) return '(native / V8)';
  if (url.startsWith('node:')) return url.split('/')[0] ?? url;
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm !== -1) {
    const rest = path.slice(nm + '/node_modules/'.length).split('/');
    return `pkg ${rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  if (path.startsWith(REPO_ROOT)) return path.slice(REPO_ROOT.length + 1).replace(/\/[^/]+$/, '/');
  return path;
}

function shortUrl(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm !== -1) return path.slice(nm + '/node_modules/'.length);
  if (path.startsWith(REPO_ROOT)) return path.slice(REPO_ROOT.length + 1);
  return path;
}

/**
 * Self time per function and per area of the busiest .cpuprofile in `dir`. node --cpu-prof writes
 * one per thread: the main thread, and here also the thread of tsx's module loader hooks.
 */
export function summariseProfile(
  dir: string,
  top = 25,
  windows?: ReadonlyArray<readonly [number, number]>,
): { main?: ProfileSummary; threads: Array<{ file: string; busyMs: number }> } {
  const summaries = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort()
    .map((f) => summariseFile(join(dir, f), top, windows));
  const busy = (s: ProfileSummary) => s.totalMs * (1 - s.idlePct / 100);
  const main = [...summaries].sort((a, b) => busy(b) - busy(a))[0];
  return { ...(main ? { main } : {}), threads: summaries.map((s) => ({ file: s.file, busyMs: busy(s) })) };
}

/**
 * With `windows` (microseconds on the monotonic clock, which V8 stamps samples with and the bench
 * reads with process.hrtime), only the samples inside one of them count: the measured levels,
 * not the start, the warm-ups or the set-up between them.
 */
function summariseFile(file: string, top: number, windows?: ReadonlyArray<readonly [number, number]>): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parents = new Map<number, ProfileNode>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parents.set(child, n);
  const selfUs = new Map<number, number>();
  const inside = (t: number) => !windows || windows.some(([from, to]) => t >= from && t <= to);
  // timeDeltas[i] is the time since the previous sample: it belongs to sample i-1's frame.
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    if (!inside(at)) continue;
    const id = profile.samples[i] as number;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    selfUs.set(id, (selfUs.get(id) ?? 0) + Math.max(0, dt));
  }
  const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0) || 1;
  const fns = new Map<string, { name: string; where: string; us: number }>();
  const areas = new Map<string, number>();
  const groups = new Map<Group, number>(GROUPS.map((g) => [g, 0]));
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, lineNumber } = node.callFrame;
    const url = sourceUrl(node.callFrame.url, lineNumber);
    const name = functionName || '(anonymous)';
    if (name === '(idle)') idleUs += us;
    // A bundle's line number says nothing of the source's: a mapped frame names its file alone.
    const where = url ? `${shortUrl(url)}${url === node.callFrame.url ? `:${lineNumber + 1}` : ''}` : '';
    const key = `${name}@${where}`;
    const entry = fns.get(key) ?? { name, where, us: 0 };
    entry.us += us;
    fns.set(key, entry);
    const a = url ? area(url) : name.startsWith('(') ? name : '(native / V8)';
    areas.set(a, (areas.get(a) ?? 0) + us);
    if (name !== '(idle)') {
      const g = groupOf(url, name, id, parents);
      groups.set(g, (groups.get(g) ?? 0) + us);
    }
  }
  const busyUs = totalUs - idleUs || 1;
  const toEntry = (name: string, where: string, us: number): ProfileEntry => ({
    name,
    where,
    selfMs: us / 1000,
    selfPct: (100 * us) / totalUs,
  });
  return {
    file,
    totalMs: totalUs / 1000,
    idlePct: (100 * idleUs) / totalUs,
    topFunctions: [...fns.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((f) => toEntry(f.name, f.where, f.us)),
    byArea: [...areas.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([a, us]) => toEntry(a, '', us)),
    byGroup: [...groups.entries()].map(([g, us]) => ({ name: g, where: '', selfMs: us / 1000, selfPct: (100 * us) / busyUs })),
    ...(windows ? { windows: windows.length } : {}),
  };
}

/** The groups' time per operation (`operations` made in the profiled windows), in ms, with their share. */
export const groupTable = (p: ProfileSummary, operations: number) =>
  table(
    ['where', 'ms per op', 'share'],
    [
      ...p.byGroup.map((g) => [g.name, fixed(g.selfMs / Math.max(1, operations), 3), `${fixed(g.selfPct, 1)}%`]),
      ['total (main thread, busy)', fixed(p.byGroup.reduce((a, g) => a + g.selfMs, 0) / Math.max(1, operations), 3), '100%'],
    ],
  );

/** "<n> s sampled, <n>% idle: <file>", the line a bench titles a profile summary with. */
export const profileHeadline = (p: ProfileSummary) =>
  `${fixed(p.totalMs / 1000, 1)} s sampled, ${fixed(p.idlePct, 1)}% idle: ${p.file}`;

export const areaTable = (p: ProfileSummary, rows: number) =>
  table(
    ['area', 'self ms', 'self %'],
    p.byArea.slice(0, rows).map((e) => [e.name, fixed(e.selfMs, 0), fixed(e.selfPct, 1)]),
  );

export const functionTable = (p: ProfileSummary) =>
  table(
    ['function', 'where', 'self ms', 'self %'],
    p.topFunctions.map((e) => [e.name, e.where, fixed(e.selfMs, 0), fixed(e.selfPct, 1)]),
  );
