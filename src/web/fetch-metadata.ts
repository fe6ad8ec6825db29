/**
 * Fetch Metadata for a GET that acts with the browser's cookie (GET /auth/api-token). A browser
 * sends `Sec-Fetch-Site` on every request; a SameSite=Lax cookie rides along on a top-level GET
 * from any site, so the header is what tells our own pages and the address bar from another site.
 *
 * | Sec-Fetch-Site           | verdict                                         |
 * |--------------------------|-------------------------------------------------|
 * | absent                   | accept: not a browser (a script, `curl`)        |
 * | `same-origin`            | accept: a page of this deployment               |
 * | `none`                   | accept: typed in the address bar, a bookmark    |
 * | `cross-site`, `same-site`| refuse: a link, image or script of another site |
 * | anything else, repeated  | refuse                                          |
 *
 * `same-site` is refused too: a sibling host under the same registrable domain is another site to us.
 */
import type { FastifyRequest } from 'fastify';
import { ServiceError } from '../core/errors.ts';

const ADMITTED = new Set(['same-origin', 'none']);

export function crossSiteReason(secFetchSite: string | string[] | undefined): string | undefined {
  if (secFetchSite === undefined) return undefined;
  if (Array.isArray(secFetchSite)) return 'Sec-Fetch-Site is sent more than once';
  return ADMITTED.has(secFetchSite) ? undefined : `Sec-Fetch-Site is ${JSON.stringify(secFetchSite)}`;
}

/** Throws 403 cross_site_request unless the request comes from no browser, our own pages or the address bar. */
export function assertNotCrossSite(request: FastifyRequest): void {
  const reason = crossSiteReason(request.headers['sec-fetch-site']);
  if (reason) {
    throw new ServiceError(
      'cross_site_request',
      `This is answered only to this deployment's own pages, the address bar or a client that is not a browser: ${reason}.`,
    );
  }
}
