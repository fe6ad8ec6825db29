import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PATTERN_MEANINGS } from '../core/display-text.ts';
import { ERROR_CATALOGUE, type ErrorCode, ServiceError } from '../core/errors.ts';
import { renderErrorPage } from '../web/error-page.ts';
import { routeOf } from './register-routes.ts';
import { requestTarget } from './request-target.ts';
import type { RouteDef } from './route.ts';

/**
 * One catalogue, three renderers (docs/errors.md): the service envelope `{error, message}` on
 * the API, RFC 6749 `{error, error_description}` on OAuth and OID4VC endpoints, and an HTML page
 * on browser routes. 5xx bodies are generic and the cause goes to the log only.
 */
export function installErrorHandling(
  app: FastifyInstance,
  siteName: string,
  /** The methods the route table serves at a path (empty for a path it does not serve). */
  methodsAt: (path: string) => string[] = () => [],
): void {
  const send = (request: FastifyRequest, reply: FastifyReply, e: ServiceError) => {
    const route = routeOf(request);
    reply.code(e.status).headers(e.headers);
    if (route?.surface === 'page' || (!route && wantsHtml(request))) {
      const page = renderErrorPage(e, siteName);
      return reply.type('text/html; charset=utf-8').header('content-security-policy', page.csp).send(page.html);
    }
    reply.type('application/json; charset=utf-8');
    if (route?.surface === 'oauth') return reply.send({ error: oauthCode(e, route), error_description: e.message });
    return reply.send({ error: e.code, message: e.message });
  };
  app.setErrorHandler(async (err: FastifyError | ServiceError, request, reply) => {
    const refusal = toServiceError(err);
    // A failure is an error for the log; a deliberate 5xx refusal (an unconfigured feature) is not.
    if (refusal.code === 'internal_error') request.log.error({ err }, 'request failed');
    else if (refusal.status >= 500) request.log.warn({ code: refusal.code }, 'request refused');
    const route = routeOf(request);
    if (route?.onRefusal && refusal.status < 500) {
      try {
        // A route that answered sent the reply (awaiting a reply waits for it to end and yields
        // undefined, so the reply itself says so); one that did not leaves the refusal to its
        // surface's renderer, below. Answering twice would log a warning and a stack per request.
        const answered = await route.onRefusal(request, reply, refusal);
        if (answered !== undefined || reply.sent) return reply;
      } catch (again) {
        return send(request, reply, toServiceError(again as FastifyError));
      }
    }
    return send(request, reply, refusal);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = requestTarget(request.url).path;
    const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path;
    // RFC 9110 §15.5.6: a served path with another method is 405, naming the methods it takes.
    const allowed = methodsAt(path);
    if (allowed.length > 0) {
      const allow = allowed.join(', ');
      const refusal = new ServiceError('method_not_allowed', `${shown} takes ${allow}, not ${request.method}.`, {
        headers: { allow },
      });
      return send(request, reply, refusal);
    }
    send(request, reply, new ServiceError('not_found', `No operation at ${request.method} ${shown}.`));
  });
}

/**
 * Fastify's own refusals of a request it could not route (`frameworkErrors`): bad percent-encoding
 * and over-long path parameters, rendered from the catalogue like every other refusal.
 */
export function frameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const code: ErrorCode = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'uri_too_long' : 'bad_url';
  // No route, so no onResponse hook: the request line is written here (without the path).
  request.log.info({ method: request.method, route: 'unroutable', status: ERROR_CATALOGUE[code].status, code }, 'request');
  reply
    .code(ERROR_CATALOGUE[code].status)
    .type('application/json; charset=utf-8')
    .headers({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' })
    .send({ error: code, message: ERROR_CATALOGUE[code].description });
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (an oversized header section, a
 * malformed request line): answered in the service envelope and the connection closed.
 */
export function clientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  const code: ErrorCode =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? 'header_too_large'
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'request_timeout'
        : 'malformed_request';
  const { status, description } = ERROR_CATALOGUE[code];
  const body = JSON.stringify({ error: code, message: description });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
}

const wantsHtml = (request: FastifyRequest) =>
  request.method === 'GET' && /^text\/html\b/.test(request.headers.accept ?? '') && !request.headers.authorization;

/**
 * OAuth endpoints speak the codes of their RFCs: a 401 names the code its WWW-Authenticate
 * challenge names (RFC 6750 §3.1), and an unparseable body is the route's malformed-request code.
 */
function oauthCode(e: ServiceError, route: RouteDef): string {
  if (e.code === 'malformed_json') return route.malformedBodyCode ?? 'invalid_request';
  if (e.code !== 'unauthorized') return e.code;
  return /error="([a-z_]+)"/.exec(e.headers['www-authenticate'] ?? '')?.[1] ?? 'invalid_token';
}

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'malformed_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'malformed_json',
};

/**
 * A schema's first complaint as `400 invalid_request`, in the words every validation uses: where
 * (`body/name`), then an unknown property, a pattern's meaning, or Ajv's message.
 */
export function validationRefusal(context: string, errors: readonly SchemaComplaint[] | null | undefined): ServiceError {
  const first = errors?.[0];
  const where = `${context}${first?.instancePath ?? ''}`;
  const params = (first?.params as { additionalProperty?: string; pattern?: string } | undefined) ?? {};
  const meaning = params.pattern === undefined ? undefined : PATTERN_MEANINGS[params.pattern];
  const detail = params.additionalProperty
    ? `has unknown property "${params.additionalProperty}"`
    : (choices(first, errors ?? []) ?? meaning ?? first?.message ?? 'is invalid');
  return new ServiceError('invalid_request', `${where} ${detail}.`);
}

/** One complaint of Ajv (`verbose`: with the value it was about, `data`). */
export interface SchemaComplaint {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: unknown;
  data?: unknown;
}

/**
 * A value outside a list of choices (an enum, or a union of literals, which Ajv reports as one
 * `const` complaint per choice): the value and every allowed one, so the caller need not guess.
 */
function choices(first: SchemaComplaint | undefined, errors: readonly SchemaComplaint[]): string | undefined {
  if (first?.keyword !== 'const' && first?.keyword !== 'enum') return undefined;
  const allowed = errors
    .filter((e) => e.instancePath === first.instancePath && (e.keyword === 'const' || e.keyword === 'enum'))
    .flatMap((e) => {
      const p = e.params as { allowedValue?: unknown; allowedValues?: unknown[] } | undefined;
      return e.keyword === 'const' ? [p?.allowedValue] : (p?.allowedValues ?? []);
    });
  const shown = (value: unknown) => {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > 60 ? `${text.slice(0, 60)}…` : text;
  };
  const value = 'data' in first ? `is ${shown(first.data)}, ` : '';
  return `${value}not one of ${[...new Set(allowed.map(shown))].join(', ')}`;
}

function toServiceError(err: FastifyError | ServiceError): ServiceError {
  if (err instanceof ServiceError) return err;
  if (err.validation) return validationRefusal(err.validationContext ?? 'request', err.validation);
  const mapped = err.code ? FASTIFY_CODES[err.code] : undefined;
  if (mapped) return new ServiceError(mapped, ERROR_CATALOGUE[mapped].description);
  if (err instanceof SyntaxError && err.statusCode === 400) return new ServiceError('malformed_json');
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    // A 4xx of Fastify's own that the catalogue has no entry for: its message may quote the
    // request, so the catalogue's words are answered instead.
    return new ServiceError('invalid_request', ERROR_CATALOGUE.invalid_request.description);
  }
  return new ServiceError('internal_error', 'The service failed to answer this request.', { cause: err });
}

/**
 * What of a failure reaches the log: its class, code, message and stack, and nothing else. Other
 * own properties of an error (a URL's `input`, a request's `config`) can carry the query string
 * and with it a token.
 */
export function loggable(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return thrownValue(err);
  const cause = err.cause instanceof Error ? { cause: loggable(err.cause) } : {};
  const code = (err as { code?: unknown }).code;
  return {
    type: err.name,
    ...(typeof code === 'string' ? { code } : {}),
    message: err.message.slice(0, 500),
    stack: err.stack?.split('\n').slice(1, 12).join('\n'),
    ...cause,
  };
}

/**
 * A thrown value that is not an Error (a library rejecting with a plain object or a string): its
 * kind, its class, and a `message` and `code` when it carries them as strings, so the log still
 * says what failed; never its other properties, which may hold what the request sent.
 */
function thrownValue(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') return { type: 'string', message: value.slice(0, 500) };
  if (value === null || typeof value !== 'object') return { type: typeof value };
  const { message, code } = value as { message?: unknown; code?: unknown };
  return {
    type: value.constructor?.name ?? 'object',
    ...(typeof code === 'string' ? { code: code.slice(0, 100) } : {}),
    ...(typeof message === 'string' ? { message: message.slice(0, 500) } : {}),
  };
}
