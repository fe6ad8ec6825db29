/**
 * Checks an export of openrail's audit log on its own, without the service or its code
 * (docs/backoffice/audit.md, "Verifying an export"):
 *
 *   node --import tsx scripts/verify-audit-export.ts <file> [--from-hash <hex>]
 *
 * The file holds the entries of GET /api/admin/audit pages (best taken with `order=asc`), as one
 * JSON array, a JSON object with an `entries` array, or JSON Lines (one entry per line). Entries
 * are sorted by `seq`; each must follow the one before without a gap, link to its hash
 * (`prevHash`), and carry the hash of its own fields:
 *
 *   hash = hex(SHA-256(JCS({seq, at, actor, action, tenant, target, detail, prevHash})))
 *
 * where `at` is in milliseconds since the epoch (the export's RFC 3339 time read back, or the
 * number itself) and JCS is RFC 8785 canonical JSON. The first entry links to 64 zeros when it is
 * seq 1, or to the hash given with `--from-hash` (the hash of the entry before the run).
 *
 * Exit 0 and `ok: N entries, seq A..B, head <hash>`; exit 1 and `broken at seq N: why` for the
 * first entry that does not hold; exit 2 for a file that cannot be read.
 *
 * Written to be read alone: no import from the service, only node:crypto and node:fs.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const GENESIS = '0'.repeat(64);
const HEX64 = /^[0-9a-f]{64}$/;

/**
 * RFC 8785 for JSON values as JSON.parse gives them (strings, finite numbers, booleans, null,
 * arrays, objects): members sorted by the UTF-16 code units of their keys, no whitespace, strings
 * and numbers as ECMAScript's JSON.stringify writes them (RFC 8785 §3.2.2.2, §3.2.2.3).
 */
function canonical(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('a number that JSON cannot hold');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    // Array.prototype.sort compares UTF-16 code units, as RFC 8785 §3.2.3 asks.
    const keys = Object.keys(record).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(record[k])}`).join(',')}}`;
  }
  throw new Error(`a value JSON cannot hold: ${typeof value}`);
}

interface Entry {
  seq: number;
  at: number;
  actor: string;
  action: string;
  tenant: string | null;
  target: string | null;
  detail: Record<string, unknown>;
  prevHash: string;
  hash: string;
}

class Unreadable extends Error {}

function fail(message: string): never {
  throw new Unreadable(message);
}

/** One entry of the export, its fields checked for shape; `at` read back to milliseconds. */
function entryOf(raw: unknown, where: string): Entry {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) fail(`${where}: not an object`);
  const e = raw as Record<string, unknown>;
  const seq = e.seq;
  if (!Number.isSafeInteger(seq) || (seq as number) < 1) fail(`${where}: seq is not a positive integer`);
  const at = typeof e.at === 'string' ? Date.parse(e.at) : e.at;
  if (!Number.isSafeInteger(at)) fail(`${where} (seq ${seq}): at is not a time`);
  for (const field of ['actor', 'action', 'prevHash', 'hash']) {
    if (typeof e[field] !== 'string') fail(`${where} (seq ${seq}): ${field} is not a string`);
  }
  for (const field of ['tenant', 'target']) {
    if (e[field] !== null && typeof e[field] !== 'string') fail(`${where} (seq ${seq}): ${field} is not a string or null`);
  }
  if (e.detail === null || typeof e.detail !== 'object' || Array.isArray(e.detail)) {
    fail(`${where} (seq ${seq}): detail is not an object`);
  }
  return {
    seq: seq as number,
    at: at as number,
    actor: e.actor as string,
    action: e.action as string,
    tenant: e.tenant as string | null,
    target: e.target as string | null,
    detail: e.detail as Record<string, unknown>,
    prevHash: e.prevHash as string,
    hash: e.hash as string,
  };
}

/** A JSON array, an object with `entries`, or JSON Lines. */
function readEntries(text: string): Entry[] {
  const trimmed = text.trim();
  if (trimmed === '') fail('the file is empty');
  let whole: unknown;
  try {
    whole = JSON.parse(trimmed);
  } catch {
    whole = undefined;
  }
  if (Array.isArray(whole)) return whole.map((e, i) => entryOf(e, `entry ${i + 1}`));
  if (whole !== null && typeof whole === 'object' && Array.isArray((whole as { entries?: unknown }).entries)) {
    return (whole as { entries: unknown[] }).entries.map((e, i) => entryOf(e, `entry ${i + 1}`));
  }
  if (whole !== undefined && trimmed.split('\n').length === 1) return [entryOf(whole, 'line 1')];
  return text.split('\n').flatMap((line, i) => {
    if (line.trim() === '') return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      fail(`line ${i + 1}: not JSON`);
    }
    return [entryOf(parsed, `line ${i + 1}`)];
  });
}

const hashOf = (e: Entry) =>
  createHash('sha256')
    .update(
      canonical({
        seq: e.seq,
        at: e.at,
        actor: e.actor,
        action: e.action,
        tenant: e.tenant,
        target: e.target,
        detail: e.detail,
        prevHash: e.prevHash,
      }),
      'utf8',
    )
    .digest('hex');

/** The first entry that does not hold, and why; undefined when the run holds. */
function firstBreak(entries: readonly Entry[], fromHash: string | undefined): { seq: number; why: string } | undefined {
  const first = entries[0] as Entry;
  let previous = fromHash;
  if (previous === undefined) {
    if (first.seq !== 1) {
      return {
        seq: first.seq,
        why: `the run starts at seq ${first.seq}, not 1: pass --from-hash with the hash of seq ${first.seq - 1}`,
      };
    }
    previous = GENESIS;
  }
  let expected = first.seq;
  for (const e of entries) {
    if (e.seq < expected) return { seq: e.seq, why: 'the seq appears twice' };
    if (e.seq > expected) return { seq: expected, why: `missing (the next entry is seq ${e.seq})` };
    if (e.prevHash !== previous)
      return { seq: e.seq, why: `prevHash ${e.prevHash} is not the hash of the entry before (${previous})` };
    const computed = hashOf(e);
    if (computed !== e.hash) return { seq: e.seq, why: `its fields hash to ${computed}, not to the hash it carries (${e.hash})` };
    previous = e.hash;
    expected = e.seq + 1;
  }
  return undefined;
}

function main(argv: string[]): number {
  let file: string | undefined;
  let fromHash: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--from-hash') {
      fromHash = argv[++i]?.toLowerCase();
      if (fromHash === undefined || !HEX64.test(fromHash)) {
        process.stderr.write('--from-hash takes 64 hex digits\n');
        return 2;
      }
    } else if (file === undefined && !arg.startsWith('--')) {
      file = arg;
    } else {
      process.stderr.write(`unexpected argument: ${arg}\n`);
      return 2;
    }
  }
  if (file === undefined) {
    process.stderr.write('usage: node --import tsx scripts/verify-audit-export.ts <file> [--from-hash <hex>]\n');
    return 2;
  }
  let entries: Entry[];
  try {
    entries = readEntries(readFileSync(file, 'utf8'));
  } catch (err) {
    process.stderr.write(`cannot read ${file}: ${err instanceof Unreadable ? err.message : String(err)}\n`);
    return 2;
  }
  if (entries.length === 0) {
    process.stderr.write(`cannot read ${file}: no entries\n`);
    return 2;
  }
  entries.sort((a, b) => a.seq - b.seq);
  const broken = firstBreak(entries, fromHash);
  if (broken) {
    process.stdout.write(`broken at seq ${broken.seq}: ${broken.why}\n`);
    return 1;
  }
  const first = entries[0] as Entry;
  const last = entries.at(-1) as Entry;
  process.stdout.write(`ok: ${entries.length} entries, seq ${first.seq}..${last.seq}, head ${last.hash}\n`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
