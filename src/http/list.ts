import { type TArray, type TNull, type TProperties, type TSchema, type TString, type TUnion, Type } from '@sinclair/typebox';
import { ServiceError } from '../core/errors.ts';
import { pageOf } from '../core/page.ts';
import { Nullable, PageLimit, pageLimit } from './schemas/common.ts';

/**
 * The list convention (docs/architecture.md, "Rules that hold everywhere"), the same on every
 * plane: `limit` (1 to PAGE_MAX, default PAGE_DEFAULT), an opaque `cursor` handed back as
 * `nextCursor` (null on the last page), and `since`/`until` over the list's own time field
 * (since inclusive, until exclusive). The back office adds its tenant scope (http/admin/kit.ts).
 */

export const PAGE_DEFAULT = 50;
export const PAGE_MAX = 200;

/** An opaque list cursor: base64url, handed back as `nextCursor`. */
export const Cursor = Type.String({ pattern: '^[A-Za-z0-9_-]{1,400}$', description: 'nextCursor of the page before.' });

/** A time in a query: an RFC 3339 date-time, or a date (its midnight UTC). */
export const Instant = Type.String({
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,3})?)?(Z|[+-][0-9]{2}:[0-9]{2}))?$',
  description: 'RFC 3339 date-time, or a date (midnight UTC).',
});

/** The query fields of every list, for a querystring schema. */
export const PAGE_QUERY = {
  limit: Type.Optional({ ...PageLimit, description: `Items per page, at most ${PAGE_MAX}; default ${PAGE_DEFAULT}.` }),
  cursor: Type.Optional(Cursor),
  since: Type.Optional(Instant),
  until: Type.Optional(Instant),
};

/** A list's querystring: the common fields and the list's own filters, nothing else. */
export const PageQuery = <T extends TProperties>(filters: T = {} as T) =>
  Type.Object({ ...PAGE_QUERY, ...filters }, { additionalProperties: false });

/**
 * A page of a list, the one shape every list answers: its rows under their own name, and the cursor
 * of the next page (null at the end); `fields`, what the page says beside its rows, come first.
 */
export const ListPage = <K extends string, T extends TSchema, F extends TProperties = Record<never, never>>(
  key: K,
  item: T,
  fields?: F,
) =>
  Type.Object({ ...fields, [key]: Type.Array(item), nextCursor: Nullable(Type.String()) } as F & {
    [P in K | 'nextCursor']: P extends 'nextCursor' ? TUnion<[TString, TNull]> : TArray<T>;
  });

export interface PageParams {
  limit: number;
  /** The decoded cursor: the values of the last row answered, in the list's order. */
  after: readonly (string | number)[] | undefined;
  /** Milliseconds since the epoch. */
  since: number | undefined;
  until: number | undefined;
}

/** The common part of a list's query, read and checked (limit within bounds, cursor and times well-formed). */
export function pageParams(query: unknown): PageParams {
  const q = (query ?? {}) as { limit?: string; cursor?: string; since?: string; until?: string };
  return {
    limit: pageLimit(q.limit, PAGE_DEFAULT, PAGE_MAX),
    after: q.cursor === undefined ? undefined : decodeCursor(q.cursor),
    since: q.since === undefined ? undefined : instant(q.since, 'since'),
    until: q.until === undefined ? undefined : instant(q.until, 'until'),
  };
}

export function encodeCursor(values: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(values), 'utf8').toString('base64url');
}

/** A cursor this service made; anything else is `400 invalid_request`. */
export function decodeCursor(cursor: string): (string | number)[] {
  try {
    const values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(values) &&
      values.length > 0 &&
      values.length <= 4 &&
      values.every((v) => (typeof v === 'string' && v.length <= 200) || Number.isSafeInteger(v))
    ) {
      return values as (string | number)[];
    }
  } catch {
    // answered below
  }
  throw new ServiceError('invalid_request', 'cursor is not a cursor this list answered.');
}

/** What a cursor of the list's order holds, value by value. */
type CursorValues<K extends readonly ('number' | 'string')[]> = {
  -readonly [I in keyof K]: K[I] extends 'number' ? number : string;
};

/**
 * The decoded cursor (`ListParams.after`) read as the list's own order, value by value (`kinds`):
 * undefined without one, `400 invalid_request` when it holds anything else (decodeCursor checks
 * only its form; a cursor of another list has the form too).
 */
export function cursorOf<const K extends readonly ('number' | 'string')[]>(
  after: readonly (string | number)[] | undefined,
  kinds: K,
): CursorValues<K> | undefined {
  if (after === undefined) return undefined;
  if (after.length !== kinds.length || after.some((v, i) => typeof v !== kinds[i])) {
    throw new ServiceError('invalid_request', 'cursor is not a cursor this list answered.');
  }
  return after as unknown as CursorValues<K>;
}

function instant(value: string, field: string): number {
  const ms = Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value);
  if (!Number.isFinite(ms)) throw new ServiceError('invalid_request', `${field} is not a valid date-time.`);
  return ms;
}

/** The list's time window as a store's filter takes it: only the bounds the caller gave. */
export function windowOf(p: Pick<PageParams, 'since' | 'until'>): { since?: number; until?: number } {
  return { ...(p.since === undefined ? {} : { since: p.since }), ...(p.until === undefined ? {} : { until: p.until }) };
}

/** core/page.ts's pageOf with the kit's opaque cursor (the last answered row's order values), each row viewed. */
export function page<T, V>(
  rows: readonly T[],
  limit: number,
  orderOf: (row: T) => readonly (string | number)[],
  view: (row: T) => V,
): { rows: V[]; nextCursor: string | null } {
  const shown = pageOf(rows, limit, (last) => encodeCursor(orderOf(last)));
  return { rows: shown.rows.map(view), nextCursor: shown.nextCursor };
}
