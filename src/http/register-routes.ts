import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { ServiceError } from '../core/errors.ts';
import type { AnonymousGate } from './auth/anonymous-gate.ts';
import type { AuthPlane, PlaneName } from './auth/principal.ts';
import { checkDeprecation, deprecationHeaders } from './deprecation.ts';
import { requestTarget } from './request-target.ts';
import { type RouteDef, type RouteGroup, statusKeyed } from './route.ts';
import { checkDeclaredPolicy, enforceBeforeBody, enforceBodyTenant, enforceNamedTenant } from './route-policy.ts';

/** Fastify writes path parameters as `:name`; the route table uses OpenAPI's `{name}`. */
export const toFastifyPath = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');

/**
 * Registers every operation of the mounted groups, each at its path and at its aliases. For each
 * request, in this order: the route's plane authenticates and the policy checks roles, path
 * tenant and account, and meters a key against its rate class (onRequest); the media type is checked; the body is parsed; the policy checks
 * a tenant the body names (preValidation); the request is validated; the policy checks the body's
 * tenant again, failing closed, and the plane admits the request, spending what is single-use
 * (preHandler); the handler runs. So a caller without valid credentials gets 401, and a caller
 * acting beyond its roles or tenant 403, never a 400 or 415 that describes the operation.
 */
export function registerRoutes(
  app: FastifyInstance,
  groups: RouteGroup[],
  planes: ReadonlyMap<PlaneName, AuthPlane>,
  publicOrigin: string,
  budgets?: AnonymousGate,
): void {
  const crossOrigin = new Map<string, Set<string>>();
  const deprecations = new Map<RouteDef, Record<string, string>>();
  for (const group of groups) {
    for (const route of group.routes) {
      checkDeclaredPolicy(route);
      checkDeprecation(route);
      if (route.deprecated) deprecations.set(route, deprecationHeaders(route.deprecated));
      const plane = planes.get(route.auth);
      if (!plane) throw new Error(`${route.method} ${route.path}: no module provides the ${route.auth} plane`);
      for (const path of [route.path, ...(route.aliases ?? [])]) {
        if (route.cors) crossOrigin.set(path, (crossOrigin.get(path) ?? new Set()).add(route.method));
        app.route({
          method: route.method,
          url: toFastifyPath(path),
          config: { route },
          schema: fastifySchema(route),
          onRequest: async (request, reply) => {
            const target = requestTarget(request.url);
            request.principal = await plane.authenticate({
              authorization: request.headers.authorization,
              method: request.method,
              url: `${publicOrigin}${target.path}${target.query}`,
              headers: request.headers,
              ...(route.audience ? { audience: `${publicOrigin}${route.audience}` } : {}),
              ...(route.bearerCookie ? { bearerCookie: route.bearerCookie } : {}),
              ...(route.credentialOptional ? { credentialOptional: true } : {}),
            });
            enforceBeforeBody(route, request);
            const limits = await plane.meter?.(request.principal as never);
            if (limits) reply.headers(limits);
            checkMediaType(route, request.headers);
          },
          preValidation: async (request) => {
            if (route.bodyOptional && request.body == null) request.body = {};
            enforceNamedTenant(route, request);
            route.beforeValidation?.(request);
          },
          preHandler: async (request, reply) => {
            enforceBodyTenant(route, request);
            if (route.budget) {
              if (!budgets) throw new Error(`${route.method} ${route.path}: an anonymous budget needs the gate`);
              reply.headers(await budgets.spend(route.budget, request.ip, route.budgetSubject?.(request)));
            }
            await plane.admit?.(request.principal as never, { address: request.ip });
          },
          handler: route.handler,
        });
      }
    }
  }
  // A browser asks before a cross-origin POST of JSON, or a GET with Authorization (a result
  // token): the CORS preflight answers for every CORS-open operation at the path, with no body.
  for (const [path, methods] of crossOrigin) {
    app.route({
      method: 'OPTIONS',
      url: toFastifyPath(path),
      handler: async (_request, reply) =>
        reply
          .code(204)
          .header('access-control-allow-origin', '*')
          .header('access-control-allow-methods', [...methods].join(', '))
          .header('access-control-allow-headers', 'authorization, content-type, response-code')
          .header('access-control-max-age', '600')
          .send(),
    });
  }
  app.addHook('onSend', async (request, reply) => {
    const route = routeOf(request);
    if (route?.cors) reply.header('access-control-allow-origin', '*');
    // Versioning 7: every answer of a deprecated operation says so, refusals included, readable
    // by a script on another origin where the operation is CORS-open.
    const deprecation = route && deprecations.get(route);
    if (deprecation) {
      reply.headers(deprecation);
      if (route.cors) reply.header('access-control-expose-headers', Object.keys(deprecation).join(', '));
    }
    // Every answer, errors and 404s included: no sniffing a JSON or JWT body into something else,
    // no Referer carrying a path (which may hold a handle) to another site, and nothing cached
    // unless the operation says it may be. A page sets `same-origin` itself (web/serve.ts), so that
    // its forms carry their Origin.
    reply.header('x-content-type-options', 'nosniff');
    if (!reply.hasHeader('referrer-policy')) reply.header('referrer-policy', 'no-referrer');
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  });
}

/** The route declaration of the operation a request reached; undefined for unmatched paths. */
export const routeOf = (request: { routeOptions: { config: unknown } }): RouteDef | undefined =>
  (request.routeOptions.config as { route?: RouteDef } | undefined)?.route;

const MEDIA_TYPES = { json: 'application/json', form: 'application/x-www-form-urlencoded' } as const;

/** A body must be of the route's media type; a request without a body passes. */
function checkMediaType(route: RouteDef, headers: IncomingHttpHeaders): void {
  const hasBody = Number(headers['content-length'] ?? 0) > 0 || headers['transfer-encoding'] !== undefined;
  if (!hasBody) return;
  const expected = MEDIA_TYPES[route.accepts ?? 'json'];
  const actual = (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (actual !== expected) {
    throw new ServiceError('unsupported_media_type', `This operation accepts ${expected} bodies only.`);
  }
}

function fastifySchema(route: RouteDef) {
  const schemas: Record<number, unknown> = {};
  for (const [status, r] of Object.entries(route.responses)) if (r.schema) schemas[Number(status)] = r.schema;
  const response = statusKeyed(schemas);
  return {
    ...(route.body ? { body: route.body } : {}),
    ...(route.params ? { params: route.params } : {}),
    ...(route.querystring ? { querystring: route.querystring } : {}),
    response,
  };
}
