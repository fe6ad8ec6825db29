/**
 * Browser form actions (a POST from one of our pages). Such a request carries the browser's
 * cookies or session, so it is accepted only when the browser says it comes from our own origin:
 *
 * | Origin header              | Sec-Fetch-Site | verdict |
 * |----------------------------|----------------|---------|
 * | the public origin          | any            | accept  |
 * | anything else, or "null"   | any            | refuse  |
 * | absent                     | same-origin    | accept  |
 * | absent                     | other, absent  | refuse  |
 *
 * A header sent more than once is refused. After a successful action the answer is a 303 See
 * Other to a page of ours, so reloading the result never posts the form again.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../core/errors.ts';

export type OriginVerdict = { ok: true } | { ok: false; reason: string };

export interface FormRequestHeaders {
  origin?: string | string[] | undefined;
  secFetchSite?: string | string[] | undefined;
}

/** The origin of PUBLIC_URL (scheme://host[:port], lowercase, no default port, no trailing slash). */
export function originOf(publicUrl: string | URL): string {
  const url = new URL(String(publicUrl));
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`not an http(s) origin: ${publicUrl}`);
  return url.origin;
}

export function checkFormOrigin(headers: FormRequestHeaders, publicOrigin: string | URL): OriginVerdict {
  const expected = originOf(publicOrigin);
  const { origin, secFetchSite } = headers;
  if (Array.isArray(origin) || Array.isArray(secFetchSite)) return { ok: false, reason: 'a header is sent more than once' };
  if (origin !== undefined) {
    return origin === expected ? { ok: true } : { ok: false, reason: `the request comes from ${JSON.stringify(origin)}` };
  }
  if (secFetchSite === 'same-origin') return { ok: true };
  return {
    ok: false,
    reason:
      secFetchSite === undefined ? 'the request has neither Origin nor Sec-Fetch-Site' : `Sec-Fetch-Site is ${secFetchSite}`,
  };
}

/**
 * A local path to redirect to: it must start with a single "/" (never "//" or "/\", which browsers
 * read as another host), so a form action can never be turned into an open redirect.
 */
export function seeOtherLocation(location: string): string {
  const control = [...location].some((c) => c <= '\u001f' || c === '\u007f');
  if (!/^\/(?![/\\])/.test(location) || control) {
    throw new Error(`not a local path to redirect to: ${JSON.stringify(location)}`);
  }
  return location;
}

// --- Fastify adapter ---

/** Throws 403 cross_origin_form (rendered by the service's error handler) unless the form comes from our origin. */
export function assertSameOriginForm(request: FastifyRequest, publicOrigin: string | URL): void {
  const verdict = checkFormOrigin(
    { origin: request.headers.origin, secFetchSite: request.headers['sec-fetch-site'] },
    publicOrigin,
  );
  if (!verdict.ok)
    throw new ServiceError('cross_origin_form', `This form is accepted only from the service's own pages: ${verdict.reason}.`);
}

/** Answers a successful form action with 303 See Other to a local path. */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('location', seeOtherLocation(location)).header('cache-control', 'no-store').send();
}
