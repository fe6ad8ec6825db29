import { type TProperties, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { operatorOf } from '../auth/operator-bearer.ts';
import { type PageParams, PageQuery, pageParams } from '../list.ts';
import { internalOperatorRoute, type TenantScope } from '../route.ts';
import { Slug } from '../schemas/common.ts';

export {
  Cursor,
  cursorOf,
  decodeCursor,
  encodeCursor,
  Instant,
  ListPage,
  PAGE_DEFAULT,
  PAGE_MAX,
  page,
  windowOf,
} from '../list.ts';

/**
 * The back-office kit (docs/backoffice.md, "Conventions"): what every operation under
 * /api/admin/* shares, so that each group declares only its own paths, roles and bodies.
 */

/** The fields every back-office route has: operator plane, internal, unpublished body. */
export const adminRoute = (doc: string) =>
  internalOperatorRoute(`A back-office operation of our console; ${doc} states its bodies.`);

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

/** An actor label as the audit log writes it (docs/audit.md, "Actors"): `operator:ana`, `owner-token`. */
export const ActorLabel = Type.String({
  pattern: '^[a-z-]{1,20}(:[A-Za-z0-9._-]{1,100})?$',
  description: 'An exact actor label: operator:ana, owner-token.',
});

/**
 * The query of every back-office list: the list convention's query (http/list.ts: `limit`,
 * `cursor`, `since`, `until`) with `tenant` as its first filter, then the list's own.
 */
export const ListQuery = <T extends TProperties>(filters: T = {} as T) => PageQuery({ tenant: Type.Optional(Slug), ...filters });

export interface ListParams extends PageParams {
  /** The tenant shown; null for every tenant. */
  tenant: string | null;
}

/** The common part of a back-office list's query, read and checked, with the tenant it shows. */
export function listParams(request: FastifyRequest): ListParams {
  return { ...pageParams(request.query), tenant: listTenant(request) };
}

/** A time as the back office answers it. */
export const iso = (ms: number) => new Date(ms).toISOString();
export const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));
