import { randomBytes } from 'node:crypto';
import { newP256KeyPair } from '../../adapters/crypto/p256-keys.ts';
import type { Clock } from '../../core/clock.ts';
import { mintConformanceSet } from '../../core/conformance/vector-set.ts';
import { defineRoute, type RouteGroup } from '../../http/route.ts';

/**
 * GET /conformance/vectors (docs/conformance.md): minted on first request with fresh keys and
 * then served unchanged for the life of the process, so a runner and its verifier see one set.
 */
export function conformanceRoutes(clock: Clock): RouteGroup {
  let body: string | undefined;
  return {
    name: 'conformance',
    routes: [
      defineRoute({
        method: 'GET',
        path: '/conformance/vectors',
        auth: 'public',
        stability: 'unpromised',
        cors: true,
        summary: 'The conformance vector set (svc-open-rail-conformance/1) for any SD-JWT VC verifier.',
        responses: {
          200: {
            description: 'The set, in its JCS form; digest covers the vectors member byte for byte.',
            contentType: 'application/json',
          },
        },
        handler: async (_request, reply) => {
          body ??= mintConformanceSet({
            now: Math.floor(clock.now() / 1000),
            random: (n) => randomBytes(n),
            newKey: newP256KeyPair,
          }).body;
          return reply.type('application/json').header('cache-control', 'no-cache').send(body);
        },
      }),
    ],
  };
}
