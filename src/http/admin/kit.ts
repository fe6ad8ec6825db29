import { type TProperties, type TSchema, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { ServiceError } from '../../core/errors.ts';
import { pageOf } from '../../core/page.ts';
import { operatorOf } from '../auth/operator-bearer.ts';
import type { TenantScope } from '../route.ts';
import { Nullable, PageLimit, pageLimit, Slug } from '../schemas/common.ts';

/**
 * The back-office kit (docs/backoffice.md, "Conventions"): what every operation under
 * /api/admin/* shares, so that each group declares only its own paths, roles and bodies.
 */

/** The fields every back-office route has: operator plane, internal, unpublished body. */
export const adminRoute = (doc: string) =>
  ({
    auth: 'operator',
    stability: 'unpromised',
    internal: true,
    undocumented: `A back-office operation of our console; ${doc} states its bodies.`,
  }) as const;

/**
 * The tenant scope of a list: `?tenant=` narrows it; a tenant-scoped credential that names no
 * tenant sees its own, and one naming another tenant is refused (http/route-policy.ts).
 */
export const LIST_SCOPE: TenantScope = { tenantIn: 'query', list: true };

/** The tenant a list shows: the credential's own when it is scoped, else `?tenant=`, else every tenant (null). */
export function listTenant(request: FastifyRequest): string | null {
  const principal = operatorOf(request);
  if (principal.tenant !== null) return principal.tenant;
  const named = (request.query as Record<string, unknown> | undefined)?.tenant;
  return typeof named === 'string' ? named : null;
}

/** An opaque list cursor: base64url, handed back as `nextCursor`. */
export const Cursor = Type.String({ pattern: '^[A-Za-z0-9_-]{1,400}$', description: 'nextCursor of the page before.' });

/** A time in a query: an RFC 3339 date-time, or a date (its midnight UTC). */
export const Instant = Type.String({
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,3})?)?(Z|[+-][0-9]{2}:[0-9]{2}))?$',
  description: 'RFC 3339 date-time, or a date (midnight UTC).',
});

/** An actor label as the audit log writes it (docs/audit.md, "Actors"): `operator:ana`, `owner-token`. */
export const ActorLabel = Type.String({
  pattern: '^[a-z-]{1,20}(:[A-Za-z0-9._-]{1,100})?$',
  description: 'An exact actor label: operator:ana, owner-token.',
});

export const PAGE_DEFAULT = 50;
export const PAGE_MAX = 200;

/**
 * The query of every back-office list: `limit` (1 to 200, default 50), `cursor`, `tenant`,
 * `since` and `until` (the window of the list's own time field: since inclusive, until exclusive),
 * and the list's own filters.
 */
export const ListQuery = <T extends TProperties>(filters: T = {} as T) =>
  Type.Object(
    {
      limit: Type.Optional(PageLimit),
      cursor: Type.Optional(Cursor),
      tenant: Type.Optional(Slug),
      since: Type.Optional(Instant),
      until: Type.Optional(Instant),
      ...filters,
    },
    { additionalProperties: false },
  );

/** A page of a list: its rows under their own name, and the cursor of the next page (null at the end). */
export const ListPage = (key: string, item: TSchema) =>
  Type.Object({ [key]: Type.Array(item), nextCursor: Nullable(Type.String()) });

export interface ListParams {
  limit: number;
  /** The decoded cursor: the values of the last row answered, in the list's order. */
  after: readonly (string | number)[] | undefined;
  /** The tenant shown; null for every tenant. */
  tenant: string | null;
  /** Milliseconds since the epoch. */
  since: number | undefined;
  until: number | undefined;
}

/** The shared part of a list's query, read and checked (limit within bounds, cursor and times well-formed). */
export function listParams(request: FastifyRequest): ListParams {
  const q = request.query as { limit?: string; cursor?: string; since?: string; until?: string };
  return {
    limit: pageLimit(q.limit, PAGE_DEFAULT, PAGE_MAX),
    after: q.cursor === undefined ? undefined : decodeCursor(q.cursor),
    tenant: listTenant(request),
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
export function windowOf(p: Pick<ListParams, 'since' | 'until'>): { since?: number; until?: number } {
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

/** A time as the back office answers it. */
export const iso = (ms: number) => new Date(ms).toISOString();
export const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));
