import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';

/**
 * The audit log is a hash chain (docs/audit.md): entry n carries the hash of entry n-1, and its
 * own hash covers every field including that link, so removing, reordering or editing an entry
 * breaks every hash after it. The first entry links to GENESIS_HASH.
 */
export const GENESIS_HASH = '0'.repeat(64);

export interface AuditEntry {
  seq: number;
  /** Milliseconds since the epoch. */
  at: number;
  actor: string;
  action: string;
  tenant: string | null;
  target: string | null;
  detail: Record<string, unknown>;
  prevHash: string;
  hash: string;
}

export type UnhashedEntry = Omit<AuditEntry, 'hash'>;

/** SHA-256 (hex) over the JCS form of every field but the hash itself. */
export function auditHash(entry: UnhashedEntry): string {
  const { seq, at, actor, action, tenant, target, detail, prevHash } = entry;
  return createHash('sha256')
    .update(canonicalJson({ seq, at, actor, action, tenant, target, detail, prevHash }), 'utf8')
    .digest('hex');
}

/**
 * The text `auditHash` hashes, cut around the two fields only the chain's head knows: for every
 * `seq` and hex `prevHash`, `before + prevHash + between + seq + after` is the canonical JSON of
 * the entry. So a statement that holds the head can hash the entry itself (PostgreSQL's sha256,
 * sql-audit-trail.ts) in the round trip that moves the head. JCS sorts the members: action, actor,
 * at and detail come before prevHash, seq between it and target and tenant. A hex hash needs no
 * escaping, and a seq is an integer, written in digits by both.
 */
export function auditHashText(entry: Omit<UnhashedEntry, 'seq' | 'prevHash'>): {
  before: string;
  between: string;
  after: string;
} {
  const { at, actor, action, tenant, target, detail } = entry;
  const leading = canonicalJson({ action, actor, at, detail });
  const trailing = canonicalJson({ target, tenant });
  return {
    before: `${leading.slice(0, -1)},"prevHash":"`,
    between: '","seq":',
    after: trailing === '{}' ? '}' : `,${trailing.slice(1)}`,
  };
}

/**
 * Checks a run of consecutive entries: each hash is right and each links to the one before.
 * `previous` is the hash the first entry must link to (GENESIS_HASH when the run starts at 1).
 * Answers the sequence number of the first broken entry, or undefined when the run holds.
 */
export function firstBrokenEntry(entries: readonly AuditEntry[], previous = GENESIS_HASH): number | undefined {
  let prev = previous;
  let expectedSeq = entries[0]?.seq;
  for (const entry of entries) {
    if (entry.seq !== expectedSeq || entry.prevHash !== prev || auditHash(entry) !== entry.hash) return entry.seq;
    prev = entry.hash;
    expectedSeq = entry.seq + 1;
  }
  return undefined;
}
