import { type AuditEntry, firstBrokenEntry, GENESIS_HASH } from '../../../core/audit-chain.ts';
import { ServiceError } from '../../../core/errors.ts';
import type { IssuerUrls } from '../../../core/issuer-urls.ts';
import { windowOf } from '../../../http/admin/kit.ts';
import type { KernelViews } from '../../../ports/kernel-views.ts';
import { activityItem, typesOfKinds } from './activity.ts';

/**
 * Reading the audit log and the activity feed (docs/backoffice/audit.md), and verifying the audit
 * chain (docs/audit.md, "Reading the log").
 */

/** Entries read per query while the chain is verified: the walk never holds more. */
export const VERIFY_BATCH = 500;

/** What verifying the chain reads (the kernel's views, of this database or a restored copy's). */
export type AuditLogReader = Pick<KernelViews, 'auditHead' | 'auditEntries'>;

export interface ChainVerification {
  /** Every entry up to the head holds, and the head names the last one. */
  verified: boolean;
  /** Entries checked and found intact, from seq 1 (up to the first broken one). */
  checked: number;
  /** The seq the head row names: the last entry the walk covers. */
  lastSeq: number;
  /** The first entry that is missing, edited or mislinked; or the head's seq when only the head disagrees. */
  firstBroken: number | null;
  /**
   * `missing`: no entry has this seq; `hash`: the entry's hash does not cover its fields; `link`:
   * its prevHash is not the hash of the entry before; `head`: the head row does not name the last
   * entry's hash.
   */
  reason: 'missing' | 'hash' | 'link' | 'head' | null;
}

type Break = { seq: number; index: number; reason: 'missing' | 'hash' | 'link' };

/** Where a batch read from `from` breaks, given the hash its first entry must link to. */
function locateBreak(rows: readonly AuditEntry[], from: number, previous: string): Break | undefined {
  if (rows[0]?.seq !== from) return { seq: from, index: 0, reason: 'missing' };
  const seq = firstBrokenEntry(rows, previous);
  if (seq === undefined) return undefined;
  const index = rows.findIndex((r) => r.seq === seq);
  const entry = rows[index] as AuditEntry;
  if (entry.seq !== from + index) return { seq: from + index, index, reason: 'missing' };
  const link = index === 0 ? previous : (rows[index - 1] as AuditEntry).hash;
  return { seq, index, reason: entry.prevHash === link ? 'hash' : 'link' };
}

/**
 * Walks the whole chain from seq 1 up to the head read when the walk starts, `batch` entries at a
 * time, checking each hash and link with `firstBrokenEntry`; then checks that the head names the
 * last entry's hash. Entries appended while it walks lie past that head and are left for the next
 * walk.
 */
export async function verifyAuditChain(log: AuditLogReader, batch = VERIFY_BATCH): Promise<ChainVerification> {
  const head = await log.auditHead();
  let previous = GENESIS_HASH;
  let from = 1;
  let checked = 0;
  while (from <= head.seq) {
    const rows = (await log.auditEntries(from, batch)).filter((e) => e.seq <= head.seq);
    const broken = locateBreak(rows, from, previous);
    if (broken) {
      return {
        verified: false,
        checked: checked + broken.index,
        lastSeq: head.seq,
        firstBroken: broken.seq,
        reason: broken.reason,
      };
    }
    const last = rows.at(-1) as AuditEntry;
    checked += rows.length;
    previous = last.hash;
    from = last.seq + 1;
  }
  if (previous !== head.hash) return { verified: false, checked, lastSeq: head.seq, firstBroken: head.seq, reason: 'head' };
  return { verified: true, checked, lastSeq: head.seq, firstBroken: null, reason: null };
}

export interface AuditFilters {
  actor?: string;
  action?: string;
  order: 'asc' | 'desc';
}

/** A cursor names its direction, so one taken oldest first cannot page a list newest first. */
export const ORDER_MARK = { asc: 'a', desc: 'd' } as const;

/** A cursor of the log or the feed: the last row's seq (with the log's direction), or `400 invalid_request`. */
export function cursorSeq(after: readonly (string | number)[], mark?: string): number {
  const [seq, m] = after;
  if (Number.isSafeInteger(seq) && (seq as number) >= 0 && after.length === (mark ? 2 : 1) && m === mark) return seq as number;
  throw new ServiceError('invalid_request', 'cursor is not a cursor this list answered.');
}

/** since must come before until. */
export function checkWindow(since: number | undefined, until: number | undefined): void {
  if (since !== undefined && until !== undefined && since >= until) {
    throw new ServiceError('invalid_request', 'since must be before until.');
  }
}

type Window = { tenant: string | null; since?: number; until?: number; after?: number; limit: number };

export class AuditReader {
  constructor(
    private readonly log: Pick<KernelViews, 'auditPage' | 'auditEntry' | 'activity'> & AuditLogReader,
    private readonly urls: IssuerUrls,
  ) {}

  /** Entries in the list's order after the entry `after`. */
  entries(filters: AuditFilters, { tenant, since, until, after, limit }: Window): Promise<AuditEntry[]> {
    checkWindow(since, until);
    return this.log.auditPage({
      tenant,
      ...(filters.actor === undefined ? {} : { actor: filters.actor }),
      ...(filters.action === undefined ? {} : { action: filters.action }),
      ...windowOf({ since, until }),
      order: filters.order,
      ...(after === undefined ? {} : { afterSeq: after }),
      limit,
    });
  }

  /**
   * One entry. Shown to a caller limited to `tenant` only when it is that tenant's: any other
   * entry, one of no tenant included, answers as a missing one does.
   */
  async entry(seq: number, tenant: string | null): Promise<AuditEntry> {
    const entry = await this.log.auditEntry(seq);
    if (!entry || (tenant !== null && entry.tenant !== tenant)) {
      throw new ServiceError('unknown_audit_entry', `No audit entry you may see has seq ${seq}.`);
    }
    return entry;
  }

  verify(batch = VERIFY_BATCH): Promise<ChainVerification> {
    return verifyAuditChain(this.log, batch);
  }

  /** The activity feed, newest first, before the outbox seq `after`. */
  async activity(kinds: readonly string[] | undefined, { tenant, since, until, after, limit }: Window) {
    checkWindow(since, until);
    const rows = await this.log.activity({
      tenant,
      ...(tenant === null ? {} : { vctPrefix: `${this.urls.issuer(tenant)}/types/` }),
      ...(kinds === undefined ? {} : { types: typesOfKinds(kinds) }),
      ...windowOf({ since, until }),
      ...(after === undefined ? {} : { beforeSeq: after }),
      limit,
    });
    return rows.map((row) => activityItem(row, this.urls));
  }
}
