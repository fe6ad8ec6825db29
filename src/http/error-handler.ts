import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CATALOGUE, type ErrorCode, ServiceError } from '../core/errors.ts';
import type { RouteDef } from './route.ts';

/**
 * One error handler for the whole service. The service envelope is `{error, message}`; OAuth and
 * OID4VC endpoints answer `{error, error_description}` (RFC 6749 §5.2). 5xx bodies are generic
 * and the cause goes to the log only.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | ServiceError, request, reply) => {
    const refusal = toServiceError(err);
    if (refusal.status >= 500) request.log.error({ err }, 'request failed');
    send(request, reply, refusal);
  });
  app.setNotFoundHandler((request, reply) => {
    send(request, reply, new ServiceError('not_found', `No operation at ${request.method} ${request.url.split('?')[0]}.`));
  });
}

function send(request: FastifyRequest, reply: FastifyReply, e: ServiceError): void {
  const route = (request.routeOptions.config as { route?: RouteDef } | undefined)?.route;
  const oauth = route?.errorShape === 'oauth';
  reply
    .code(e.status)
    .headers(e.headers)
    .type('application/json; charset=utf-8')
    .send(oauth ? { error: oauthCode(e, route), error_description: e.message } : { error: e.code, message: e.message });
}

/**
 * OAuth endpoints speak the codes of their RFCs: a 401 names the code its WWW-Authenticate
 * challenge names (RFC 6750 §3.1), and an unparseable body is the route's malformed-request code.
 */
function oauthCode(e: ServiceError, route: RouteDef | undefined): string {
  if (e.code === 'malformed_json') return route?.malformedBodyCode ?? 'invalid_request';
  if (e.code !== 'unauthorized') return e.code;
  return /error="([a-z_]+)"/.exec(e.headers['www-authenticate'] ?? '')?.[1] ?? 'invalid_token';
}

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'malformed_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'malformed_json',
};

function toServiceError(err: FastifyError | ServiceError): ServiceError {
  if (err instanceof ServiceError) return err;
  if (err.validation) {
    const first = err.validation[0];
    const where = `${err.validationContext ?? 'request'}${first?.instancePath ?? ''}`;
    const property = (first?.params as { additionalProperty?: string; missingProperty?: string } | undefined) ?? {};
    const detail = property.additionalProperty
      ? `has unknown property "${property.additionalProperty}"`
      : (first?.message ?? 'is invalid');
    return new ServiceError('invalid_request', `${where} ${detail}.`);
  }
  const mapped = err.code ? FASTIFY_CODES[err.code] : undefined;
  if (mapped) return new ServiceError(mapped, ERROR_CATALOGUE[mapped].description);
  if (err instanceof SyntaxError && err.statusCode === 400) return new ServiceError('malformed_json');
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return new ServiceError('invalid_request', err.message);
  }
  return new ServiceError('internal_error', 'The service failed to answer this request.', { cause: err });
}
