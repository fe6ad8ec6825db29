import type { RequestLike } from '@openid4vc/oauth2';
import { type ErrorCode, ServiceError } from '../../core/errors.ts';
import { oauth2 } from './oauth-library.ts';

/**
 * The library's refusal as ours: its RFC 6749 / RFC 9449 code and description. Any other error
 * the library raises on what a caller sent (a schema it does not fit, a JWT it cannot parse) is
 * `fallback`, with a fixed message (the library's would quote the input). Anything else is a
 * fault of ours and goes on as it is.
 */
export function refusalOf(err: unknown, fallback: ErrorCode = 'invalid_request'): ServiceError {
  if (err instanceof ServiceError) return err;
  if (err instanceof oauth2().Oauth2ServerErrorResponseError) {
    const code = KNOWN_CODES[err.errorResponse.error] ?? fallback;
    return new ServiceError(code, String(err.errorResponse.error_description ?? err.message).slice(0, 500));
  }
  if (err instanceof oauth2().Oauth2Error || (err instanceof Error && err.constructor.name === 'ValidationError')) {
    return new ServiceError(fallback, 'A JWT or parameter of the request does not have the form the standard gives it.');
  }
  throw err;
}

const KNOWN_CODES: Record<string, ErrorCode> = {
  invalid_client: 'invalid_client',
  invalid_dpop_proof: 'invalid_dpop_proof',
  invalid_grant: 'invalid_grant',
  invalid_request: 'invalid_request',
  use_dpop_nonce: 'use_dpop_nonce',
};

export interface RequestSeen {
  method: string;
  /** The absolute URL as the public sees it (what a DPoP proof's htu names). */
  url: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** Each request seen, as the library reads it (requestLike). */
const made = new WeakMap<RequestSeen, RequestLike>();

/**
 * The request as the library reads it: a Fetch Headers of its headers (a header sent twice is
 * kept joined, as Fetch does). Made once per request seen: the token endpoint hands it to the
 * library's DPoP check and its token request checks alike, which only read it.
 */
export function requestLike(seen: RequestSeen): RequestLike {
  let like = made.get(seen);
  if (like) return like;
  const headers = new Headers();
  for (const [name, value] of Object.entries(seen.headers)) {
    if (value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  like = { method: seen.method as RequestLike['method'], url: seen.url, headers };
  made.set(seen, like);
  return like;
}

/** A header's value when it is sent once; undefined when absent or repeated. */
export function single(seen: RequestSeen, name: string): string | undefined {
  const value = seen.headers[name];
  return typeof value === 'string' ? value : undefined;
}
