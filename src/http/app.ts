import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Authenticator } from './auth/principal.ts';
import { installErrorHandling } from './error-handler.ts';
import { parseForm } from './form.ts';
import { registerRoutes } from './register-routes.ts';
import type { AuthPlane, RouteGroup } from './route.ts';

export interface AppOptions {
  groups: RouteGroup[];
  authenticators: Record<AuthPlane, Authenticator>;
  /** PUBLIC_URL's origin: the audience of holder JWSs and the base of absolute request URLs. */
  publicOrigin: string;
  /** A pino logger, or undefined for none (tests). */
  logger?: FastifyBaseLogger;
}

/** Headers whose values never reach a log line. */
export const REDACTED_HEADERS = ['authorization', 'cookie', 'set-cookie', 'proxy-authorization'];

/**
 * The HTTP application, separate from the process that listens: tests run it in-process with
 * inject() and over a real socket alike.
 */
export function buildApp(options: AppOptions): FastifyInstance {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    // Fastify's own two lines per request are replaced by the single line of the onResponse hook.
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: 'idle',
    ajv: {
      // Values are never coerced (a numeric string stays a string) and unknown fields are refused by
      // schema, never silently dropped.
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false },
    },
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
  installErrorHandling(app);
  // One line per request. The path only: query strings can carry codes and offers.
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      { method: request.method, path: request.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request',
    );
  });
  registerRoutes(app, options.groups, options.authenticators, options.publicOrigin);
  return app;
}
