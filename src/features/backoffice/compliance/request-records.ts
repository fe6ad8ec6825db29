import { type Actor, actorLabel } from '../../../core/actor.ts';
import { ServiceError } from '../../../core/errors.ts';
import type { Ids } from '../../../core/ids.ts';
import type { ComplianceRequestRecord, RequestKind } from '../../../ports/compliance-store.ts';

/** What access and erasure requests share (docs/backoffice/compliance.md): their record as filed, its dates, its refusal. */

/** A request may say it was received this long before it was filed, at most. */
const RECEIVED_AT_MOST_MS = 366 * 24 * 3_600_000;
/** A clock a little ahead of ours is not a request from the future. */
const CLOCK_SKEW_MS = 5 * 60_000;

export interface RequestInput {
  source: string;
  receivedAt?: string | undefined;
}

/** One calendar month after `ms` (UTC), the last day of a shorter month when the day does not exist. */
export function oneMonthAfter(ms: number): number {
  const d = new Date(ms);
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  target.setUTCHours(d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
  return target.getTime();
}

/** A new request of a kind, received, filed by `actor` now (the subject is the caller's to set). */
export function blankRequest(
  ids: Ids,
  kind: RequestKind,
  now: number,
  receivedAt: number,
  actor: Actor,
  source: string,
): ComplianceRequestRecord {
  return {
    id: ids.mint(kind === 'access' ? 'accessRequest' : 'erasureRequest'),
    kind,
    state: 'received',
    subjectKind: 'account',
    accountId: null,
    identifier: null,
    source,
    identityCheck: null,
    receivedAt,
    dueAt: oneMonthAfter(receivedAt),
    filedBy: actorLabel(actor),
    filedAt: now,
    decidedBy: null,
    decidedAt: null,
    outcome: null,
    ground: null,
    note: null,
    approvalId: null,
    receiptId: null,
    statement: null,
  };
}

/** When the request was received: `now`, or the time it gives, within a year before and a little after. */
export function receivedAtOf(given: string | undefined, now: number): number {
  if (given === undefined) return now;
  const at = Date.parse(given);
  if (!Number.isFinite(at) || at > now + CLOCK_SKEW_MS || at < now - RECEIVED_AT_MOST_MS) {
    throw new ServiceError('invalid_request', 'receivedAt is in the future or more than a year ago.');
  }
  return at;
}

export const stateRefusal = () =>
  new ServiceError('request_state', 'The request was answered or refused already, or an export of it is pending.');
