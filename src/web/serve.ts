/**
 * Fastify adapters for the web kit: answering with a rendered page (its body and its own CSP) and
 * with a static file (conditional GET by ETag). Route registration stays with the route table.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { StaticAsset } from './assets.ts';
import type { RenderedPage } from './layout.ts';

/**
 * Sends a page with the policy it was rendered with; `no-store` for a page of one person's data.
 * (nosniff, and `no-referrer` for every other answer, are set by http/register-routes.ts.)
 *
 * A page's referrer policy is `same-origin`, not `no-referrer`: under `no-referrer` a browser sends
 * `Origin: null` with every form POST (Fetch standard, "serializing a request origin"), and the
 * web kit's same-origin check (forms.ts) rightly refuses that. `same-origin` still sends no Referer
 * to any other site.
 */
export function sendPage(reply: FastifyReply, page: RenderedPage, cache: 'no-cache' | 'no-store' = 'no-cache'): FastifyReply {
  return reply
    .type('text/html; charset=utf-8')
    .header('content-security-policy', page.csp)
    .header('referrer-policy', 'same-origin')
    .header('cache-control', cache)
    .send(page.html);
}

/** True when an If-None-Match header names `etag` (or is `*`). */
export function notModified(ifNoneMatch: string | string[] | undefined, etag: string): boolean {
  if (typeof ifNoneMatch !== 'string') return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

/** Sends a static file, or 304 when the client already has this version. */
export function sendStaticFile(request: FastifyRequest, reply: FastifyReply, asset: StaticAsset): FastifyReply {
  reply
    .header('cache-control', asset.cacheControl)
    .header('etag', asset.etag)
    .header('cross-origin-resource-policy', asset.crossOrigin ? 'cross-origin' : 'same-origin');
  if (notModified(request.headers['if-none-match'], asset.etag)) return reply.code(304).send();
  return reply.type(asset.contentType).send(asset.body);
}
