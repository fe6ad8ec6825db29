import { ServiceError } from '../../core/errors.ts';

/**
 * The page a same-device wallet returns the browser to: an absolute https URL (http only on a
 * loopback host, for development), without a fragment (the response code is appended as one) or
 * credentials; anything else is `invalid_request`.
 */
export function checkReturnPage(uri: string): void {
  let url: URL | undefined;
  try {
    url = new URL(uri);
  } catch {
    url = undefined;
  }
  const loopback = url !== undefined && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url === undefined || !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback))) {
    throw new ServiceError('invalid_request', 'redirectUri must be an absolute https URL (http only on a loopback host).');
  }
  if (uri.includes('#'))
    throw new ServiceError('invalid_request', 'redirectUri must not carry a fragment: the response code is appended as one.');
  if (url.username !== '' || url.password !== '')
    throw new ServiceError('invalid_request', 'redirectUri must not carry credentials.');
}

/**
 * A web origin as a browser writes it (scheme, host, port only when not the default); the route's
 * pattern has admitted its characters, and this parses it (a port past 65535, a malformed
 * international name) and compares: anything else is `invalid_request`, never a 500.
 */
export function checkWebOrigin(origin: string): void {
  let parsed: string | undefined;
  try {
    parsed = new URL(origin).origin;
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || parsed === 'null') throw new ServiceError('invalid_request', 'origin is not a web origin.');
  if (parsed !== origin) throw new ServiceError('invalid_request', `Write origin as a browser does: ${parsed}.`);
}
