/**
 * The back office's read models (docs/backoffice/views.md): read-only queries over the tables the
 * features already keep, for the session and credentials groups. Nothing here writes, and nothing
 * here reads a claim value: offers' subjects are never selected (they are erased once collected).
 *
 * Every `tenant` parameter narrows to one tenant; null reads every tenant. Times are milliseconds.
 */

import type { CredentialRow } from './issuance-views.ts';
import type { OfferRow } from './offers-views.ts';

export type { CredentialRow, OfferRow };

/**
 * The timeline's sources, in the order entries of the same millisecond are shown; a source's rank
 * (its index here) is part of the timeline's cursor.
 */
export const TIMELINE_SOURCES = [
  'audit',
  'event',
  'offer',
  'credential',
  'revocation',
  'item',
  'membership',
  'deposit',
  'channel',
] as const;
export type TimelineSource = (typeof TIMELINE_SOURCES)[number];

/** One thing that happened to a subject. `detail` holds identifiers and states only. */
export interface TimelineEntry {
  at: number;
  source: TimelineSource;
  what: string;
  tenant: string | null;
  ref: string;
  actor: string | null;
  detail: Record<string, unknown>;
  /** The entry's order key within its source (an audit seq, or a row id), for the cursor. */
  key: string | number;
}

/** Where a timeline page starts: after this entry, in the order (at, source, id). */
export interface TimelineCursor {
  at: number;
  rank: number;
  id: string | number;
}

export type Subject = { kind: 'account'; accountId: string } | { kind: 'credential'; id: string } | { kind: 'offer'; id: string };
