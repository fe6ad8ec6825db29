import { serialize } from 'cookie';
import type { FastifyReply } from 'fastify';

/**
 * Sets a cookie that carries a browser's ticket or session (docs/web.md, "Cookies"): HttpOnly,
 * SameSite=Lax, Secure everywhere but a plain-http development origin (where a browser would drop
 * it), for `path`, lasting `maxAgeMs` (0 clears it). Cookies set before on the same answer stay.
 */
export function setSessionCookie(
  reply: FastifyReply,
  cookie: { name: string; value: string; path: string; maxAgeMs: number; origin: string },
): void {
  const set = serialize(cookie.name, cookie.value, {
    httpOnly: true,
    secure: cookie.origin.startsWith('https:'),
    sameSite: 'lax',
    path: cookie.path,
    maxAge: Math.floor(cookie.maxAgeMs / 1000),
  });
  // Fastify appends to set-cookie rather than replacing it: passing the earlier ones again would
  // send them twice.
  reply.header('set-cookie', set);
}
