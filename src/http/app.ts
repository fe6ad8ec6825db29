import type { Span } from '@opentelemetry/api';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { SpanStatusCode, serverSpan } from '../core/tracing.ts';
import { type Meter, noMeter } from '../ports/meter.ts';
import type { AnonymousGate } from './auth/anonymous-gate.ts';
import type { AuthPlane, PlaneName } from './auth/principal.ts';
import { clientError, frameworkError, installErrorHandling } from './error-handler.ts';
import { parseForm } from './form.ts';
import { lazySchemas, schemasOf } from './lazy-schemas.ts';
import { registerRoutes, routeOf } from './register-routes.ts';
import { requestTarget } from './request-target.ts';
import type { RouteGroup } from './route.ts';
import { assertWellFormedBody, assertWellFormedTarget } from './well-formed.ts';

export interface AppOptions {
  groups: RouteGroup[];
  /** Every plane a mounted route names, by name. */
  planes: ReadonlyMap<PlaneName, AuthPlane>;
  /** PUBLIC_URL's origin: the audience of holder JWSs and the base of absolute request URLs. */
  publicOrigin: string;
  /** The deployment's name (OPENRAIL_PLATFORM_NAME), shown on error pages; `openrail` when absent. */
  siteName?: string;
  /** A pino logger, or undefined for none (tests). */
  logger?: FastifyBaseLogger;
  /**
   * Undefined when every write committed so far is durable, else a promise of it (connect.ts,
   * `settled`): no answer leaves before what it reports, or saw, is on disk.
   */
  settled?: () => Promise<void> | undefined;
  /** The anonymous budgets the routes declare (RouteDef.budget). */
  budgets?: AnonymousGate;
  /** OPENRAIL_TRUST_PROXY: the proxies whose X-Forwarded-For names the caller (request.ip). */
  trustProxy?: readonly string[];
  /** Counts each answered request by route template (docs/operations.md, "Metrics"). */
  meter?: Meter;
  /** A server span per request, child of the caller's traceparent (docs/operations.md, "Tracing"). */
  tracing?: boolean;
}

/**
 * The methods the route table serves at a concrete path, for the 405 of a served path asked with
 * another method: `{name}` matches one segment, a trailing `*` the rest. HEAD comes with GET.
 */
export function methodsServedAt(groups: readonly RouteGroup[]): (path: string) => string[] {
  const literal = (text: string) => text.replace(/[.+?^$()|[\]\\]/g, '\\$&');
  const patterns = groups.flatMap((g) =>
    g.routes.flatMap((route) =>
      [route.path, ...(route.aliases ?? [])].map((path) => ({
        method: route.method,
        pattern: new RegExp(
          `^${literal(path)
            .replace(/\{[^}]+\}/g, '[^/]+')
            .replace(/\*$/, '.*')}$`,
        ),
      })),
    ),
  );
  return (path) => {
    const methods = new Set<string>(patterns.filter((p) => p.pattern.test(path)).map((p) => p.method));
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  };
}

/**
 * The HTTP application, separate from the process that listens: tests run it in-process with
 * inject() and over a real socket alike.
 */
export function buildApp(options: AppOptions): FastifyInstance {
  const schemas = lazySchemas();
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    // Fastify's own two lines per request are replaced by the single line of the onResponse hook.
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: 'idle',
    // request.ip is the caller the anonymous budgets count: the peer, or behind a proxy this
    // deployment names, the address that proxy saw (docs/security.md, "Behind a proxy").
    trustProxy: options.trustProxy?.length ? [...options.trustProxy] : false,
    ajv: {
      // Values are never coerced (a numeric string stays a string) and unknown fields are refused by
      // schema, never silently dropped.
      // verbose: a complaint carries the value it is about, so a refusal can name it (error-handler.ts).
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false, verbose: true },
    },
    // Each route's validators and serialisers are compiled by its first request (lazy-schemas.ts).
    schemaController: { compilersFactory: schemas.compilersFactory },
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
  });
  // JSON and HTML forms only: Fastify's default text/plain parser would turn a wrong content type
  // into a schema error instead of 415. Which of the two a route takes is its `accepts`.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseForm(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  installErrorHandling(app, options.siteName ?? 'openrail', methodsServedAt(options.groups));
  // One rule at the edge for every route (docs/security.md): no string that a store would refuse
  // or change reaches a handler, a plane or a query. The request line is checked before any
  // plane reads it, the body once it is parsed; both hooks run before every route's own.
  if (options.tracing) traceRequests(app);
  app.addHook('onRequest', async (request) => assertWellFormedTarget(request.url));
  app.addHook('preValidation', async (request) => assertWellFormedBody(request.body));
  const settled = options.settled;
  if (settled) {
    // Group commit (decision 0016): the commit this answer depends on, and every commit it could
    // have read, reach the disk first. Mostly nothing is pending and the answer goes at once.
    app.addHook('onSend', (_request, _reply, payload, done) => {
      const pending = settled();
      if (!pending) return done(null, payload);
      pending.then(
        () => done(null, payload),
        (err: Error) => done(err),
      );
    });
  }
  // One line per request, naming the operation by its route template, never by the path it was
  // called with: paths carry offer handles and transaction ids, queries carry codes and tokens.
  // An unmatched path is told by its first segment only.
  const meter = options.meter ?? noMeter;
  app.addHook('onResponse', async (request, reply) => {
    const route = routeOf(request);
    request.log.info(
      {
        method: request.method,
        route: route ? request.routeOptions.url : `unmatched ${requestTarget(request.url).path.split('/', 2).join('/')}`,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
    meter.request(
      request.method,
      route ? (request.routeOptions.url ?? 'unmatched') : 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });
  registerRoutes(app, options.groups, options.planes, options.publicOrigin, options.budgets);
  schemasOf.set(app, schemas);
  return app;
}

const serverSpans = new WeakMap<object, Span>();

/**
 * Each request in a server span, first of every hook, so that everything the request does (its
 * statements, outbound calls, mail) is traced under it. The span is named by the route template
 * once it is known, never by the path or the query, which carry handles, codes and tokens.
 */
function traceRequests(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const { span, run } = serverSpan(request.method, request.headers);
    serverSpans.set(request, span);
    run(done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const span = serverSpans.get(request);
    if (span) {
      const route = routeOf(request) ? (request.routeOptions.url ?? 'unmatched') : 'unmatched';
      span.updateName(`${request.method} ${route}`);
      span.setAttributes({ 'http.route': route, 'http.response.status_code': reply.statusCode });
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    done();
  });
}
