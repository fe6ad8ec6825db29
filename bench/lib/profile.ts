import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './server.ts';
import { fixed, table } from './stats.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
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
): { main?: ProfileSummary; threads: Array<{ file: string; busyMs: number }> } {
  const summaries = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort()
    .map((f) => summariseFile(join(dir, f), top));
  const busy = (s: ProfileSummary) => s.totalMs * (1 - s.idlePct / 100);
  const main = [...summaries].sort((a, b) => busy(b) - busy(a))[0];
  return { ...(main ? { main } : {}), threads: summaries.map((s) => ({ file: s.file, busyMs: busy(s) })) };
}

function summariseFile(file: string, top: number): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time since the previous sample: it belongs to sample i-1's frame.
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i] as number;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    selfUs.set(id, (selfUs.get(id) ?? 0) + Math.max(0, dt));
  }
  const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0) || 1;
  const fns = new Map<string, { name: string; where: string; us: number }>();
  const areas = new Map<string, number>();
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const name = functionName || '(anonymous)';
    if (name === '(idle)') idleUs += us;
    const where = url ? `${shortUrl(url)}:${lineNumber + 1}` : '';
    const key = `${name}@${where}`;
    const entry = fns.get(key) ?? { name, where, us: 0 };
    entry.us += us;
    fns.set(key, entry);
    const a = url ? area(url) : name.startsWith('(') ? name : '(native / V8)';
    areas.set(a, (areas.get(a) ?? 0) + us);
  }
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
  };
}

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
