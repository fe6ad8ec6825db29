import type { TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { Forbidden } from '../core/errors.ts';
import { assertOwnAccount, assertPlatformWide, assertTenantScope } from './auth/scope.ts';
import type { RouteDef } from './route.ts';

/**
 * The access policy a route declares (docs/architecture.md, "Route policy"), checked once when
 * the route is registered and enforced on every request, so no handler checks roles, tenant
 * scope or account by hand and no operation can forget to.
 */

const pathParams = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
const bodyFields = (schema: TSchema | undefined) => Object.keys((schema?.properties ?? {}) as Record<string, unknown>);

/** Refuses, at start, a route whose declaration leaves its policy open. */
export function checkDeclaredPolicy(route: RouteDef): void {
  const where = `${route.method} ${route.path}`;
  if (route.audience !== undefined && route.auth !== 'holder')
    throw new Error(`${where}: an audience belongs to holder-plane routes only`);
  if (route.credentialOptional && route.auth !== 'result-token') {
    throw new Error(`${where}: an optional credential belongs to result-token routes only`);
  }
  if (route.bearerCookie !== undefined && (route.auth !== 'operator' || route.surface !== 'page')) {
    throw new Error(`${where}: a bearer cookie belongs to operator-plane pages only`);
  }
  if (route.auth !== 'operator') {
    if (route.roles || route.scope || route.scopes) {
      throw new Error(`${where}: roles, scope and scopes belong to operator-plane routes only`);
    }
    return;
  }
  if (!route.roles || route.roles.length === 0) throw new Error(`${where}: an operator-plane route must declare its roles`);
  const scope = route.scope;
  if (!scope) throw new Error(`${where}: an operator-plane route must declare its tenant scope`);
  // A key is always one tenant's, so an operation it may call must say where its tenant is.
  if (route.scopes && (scope === 'platform' || scope === 'none')) {
    throw new Error(`${where}: an operation keys may call must read its tenant from the request`);
  }
  // Only platform-wide credentials pass a `platform` operation, so a tenant it names is theirs to name.
  if (scope === 'platform') return;
  if (scope === 'none') {
    // A tenant in the request that the policy ignores is how a scoped token acts on another tenant.
    const namesTenant = [...pathParams(route.path), ...bodyFields(route.body), ...bodyFields(route.querystring)].includes(
      'tenant',
    );
    if (namesTenant) throw new Error(`${where}: the request names a tenant, so the scope must say where it is`);
    return;
  }
  const field = scope.field ?? 'tenant';
  const present =
    scope.tenantIn === 'params'
      ? pathParams(route.path).includes(field)
      : bodyFields(scope.tenantIn === 'body' ? route.body : route.querystring).includes(field);
  if (!present) throw new Error(`${where}: the scope reads ${scope.tenantIn}.${field}, which the route does not declare`);
}

/**
 * Before the body is read: roles, the tenant of the path or query, and a holder's own account.
 * A caller that is not admitted learns nothing about the body the operation would take.
 */
export function enforceBeforeBody(route: RouteDef, request: FastifyRequest): void {
  const principal = request.principal;
  if (principal.plane === 'holder') {
    const accountId = (request.params as Record<string, string | undefined>).accountId;
    if (accountId !== undefined) assertOwnAccount(principal, accountId);
    return;
  }
  if (principal.plane !== 'operator') return;
  if (principal.key) {
    const scopes = principal.key.scopes;
    if (!route.scopes?.some((s) => scopes.includes(s))) {
      throw new Forbidden(
        route.scopes
          ? `This key's scopes do not include this operation; it needs one of: ${route.scopes.join(', ')}.`
          : 'A key cannot call this operation.',
      );
    }
  } else {
    // Every operator-plane route declares roles (checkDeclaredPolicy); none would admit no one.
    const roles = route.roles ?? [];
    if (!roles.some((role) => principal.roles.includes(role))) {
      throw new Forbidden(`This operation needs one of the roles: ${roles.join(', ')}.`);
    }
  }
  const scope = route.scope;
  if (scope === 'platform') assertPlatformWide(principal);
  else if (typeof scope === 'object' && scope.tenantIn !== 'body') {
    const source = scope.tenantIn === 'params' ? request.params : request.query;
    const tenant = (source as Record<string, unknown>)[scope.field ?? 'tenant'];
    if (!('list' in scope && tenant === undefined)) enforceTenant(principal, tenant);
  }
}

/**
 * Once the body is parsed, before it is validated: a tenant the body names must be the
 * credential's own, so a scoped credential acting on another tenant learns nothing of what else
 * the body would have needed. A body that names none is left to validation (the schema requires
 * the field) and to the check after it.
 */
export function enforceNamedTenant(route: RouteDef, request: FastifyRequest): void {
  const tenant = bodyTenant(route, request);
  if (typeof tenant === 'string') enforceTenant(request.principal, tenant);
}

/** After validation, whatever the schema says: a scoped credential's body must name its tenant. */
export function enforceBodyTenant(route: RouteDef, request: FastifyRequest): void {
  const tenant = bodyTenant(route, request);
  if (tenant !== NOT_SCOPED) enforceTenant(request.principal, tenant);
}

const NOT_SCOPED = Symbol('not scoped by its body');

/** The tenant field of a body-scoped route's body (undefined when the body has none); else NOT_SCOPED. */
function bodyTenant(route: RouteDef, request: FastifyRequest): unknown {
  // `platform` and `none` are strings, with no tenantIn; enforceTenant passes every other plane.
  const scope = route.scope as { tenantIn?: string; field?: string } | undefined;
  if (scope?.tenantIn !== 'body') return NOT_SCOPED;
  const body = request.body;
  return body !== null && typeof body === 'object' && !Array.isArray(body)
    ? (body as Record<string, unknown>)[scope.field ?? 'tenant']
    : undefined;
}

function enforceTenant(principal: FastifyRequest['principal'], tenant: unknown): void {
  if (principal.plane !== 'operator') return;
  // Only a platform-wide credential may name any tenant, or none. A partner session is never
  // platform-wide: before its partner is linked to a tenant it acts on no tenant at all.
  if (principal.tenant === null && !principal.partner) return;
  // Interface spec, Authentication 5: a scoped token's mutation must name its tenant; none fails closed.
  if (typeof tenant !== 'string') {
    throw new Forbidden(
      principal.tenant === null
        ? "A partner session acts on its partner's tenant only, and this partner has none yet."
        : `This credential is scoped to tenant ${principal.tenant}: name it.`,
    );
  }
  assertTenantScope(principal, tenant);
}
