import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { Forbidden, ServiceError } from '../core/errors.ts';
import type { Authenticator, Principal } from './auth/principal.ts';
import type { AuthPlane, RouteDef, RouteGroup } from './route.ts';

/** Fastify writes path parameters as `:name`; the route table uses OpenAPI's `{name}`. */
export const toFastifyPath = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');

/** Registers every operation of the mounted groups, each at its path and at its aliases. */
export function registerRoutes(
  app: FastifyInstance,
  groups: RouteGroup[],
  authenticators: Record<AuthPlane, Authenticator>,
  publicOrigin: string,
): void {
  for (const group of groups) {
    for (const route of group.routes) {
      for (const path of [route.path, ...(route.aliases ?? [])]) {
        app.route({
          method: route.method,
          url: toFastifyPath(path),
          config: { route },
          schema: fastifySchema(route),
          onRequest: async (request) => checkMediaType(route, request.headers),
          preHandler: async (request) => {
            request.principal = await authenticators[route.auth].authenticate({
              authorization: request.headers.authorization,
              method: request.method,
              url: `${publicOrigin}${request.url}`,
            });
            authorize(route, request.principal);
          },
          handler: route.handler,
        });
      }
    }
  }
  app.addHook('onSend', async (request, reply) => {
    const route = (request.routeOptions.config as { route?: RouteDef }).route;
    if (route?.cors) reply.header('access-control-allow-origin', '*');
  });
}

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

function authorize(route: RouteDef, principal: Principal): void {
  if (!route.roles || principal.plane !== 'operator') return;
  if (!route.roles.some((role) => principal.roles.includes(role))) {
    throw new Forbidden(`This operation needs one of the roles: ${route.roles.join(', ')}.`);
  }
}

function fastifySchema(route: RouteDef) {
  const response: Record<number, unknown> = {};
  for (const [status, r] of Object.entries(route.responses)) if (r.schema) response[Number(status)] = r.schema;
  return {
    ...(route.body ? { body: route.body } : {}),
    ...(route.params ? { params: route.params } : {}),
    ...(route.querystring ? { querystring: route.querystring } : {}),
    response,
  };
}
