import type { Clock } from '../../core/clock.ts';
import {
  CONFORMANCE_SCHEMA,
  CONFORMANCE_SCHEMA_V2,
  CONFORMANCE_SCHEMA_V3,
  type ConformanceSchema,
  type ConformanceSet,
} from '../../core/conformance/vector-set.ts';
import type { VectorInputV3 } from '../../core/conformance/vectors-v3.ts';
import { defineRoute, type RouteGroup } from '../../http/route.ts';

/** Mints a fresh set of `schema` at `now` (Unix seconds) with new keys: the wiring gives adapters/crypto/conformance-mint.ts. */
export type MintSet = (schema: ConformanceSchema, now: number) => Promise<{ set: ConformanceSet<VectorInputV3>; body: string }>;

/**
 * GET /conformance/vectors, /conformance/vectors/2 and /conformance/vectors/3 (docs/conformance.md):
 * each set is minted on its first request with fresh keys and then served unchanged for the life
 * of the process, so a runner and its verifier see one set.
 */
export function conformanceRoutes(clock: Clock, mint: MintSet): RouteGroup {
  const minted = new Map<ConformanceSchema, Promise<string>>();
  const bodyOf = (schema: ConformanceSchema) => {
    let body = minted.get(schema);
    if (!body) {
      body = mint(schema, Math.floor(clock.now() / 1000)).then((m) => m.body);
      // A mint that failed is tried again by the next request rather than remembered.
      body.catch(() => minted.delete(schema));
      minted.set(schema, body);
    }
    return body;
  };
  const setRoute = (path: string, schema: ConformanceSchema, summary: string) =>
    defineRoute({
      method: 'GET',
      path,
      auth: 'public',
      stability: 'unpromised',
      cors: true,
      summary,
      responses: {
        200: {
          description: 'The set, in its JCS form; digest covers the vectors member byte for byte.',
          contentType: 'application/json',
        },
      },
      handler: async (_request, reply) =>
        reply
          .type('application/json')
          .header('cache-control', 'no-cache')
          .send(await bodyOf(schema)),
    });
  return {
    name: 'conformance',
    routes: [
      setRoute(
        '/conformance/vectors',
        CONFORMANCE_SCHEMA,
        `The conformance vector set (${CONFORMANCE_SCHEMA}) for any SD-JWT VC verifier.`,
      ),
      setRoute(
        '/conformance/vectors/2',
        CONFORMANCE_SCHEMA_V2,
        `The conformance vector set with the HAIP and Digital Credentials API cases (${CONFORMANCE_SCHEMA_V2}).`,
      ),
      setRoute(
        '/conformance/vectors/3',
        CONFORMANCE_SCHEMA_V3,
        `The conformance vector set with the ISO mdoc cases beside those of /2 (${CONFORMANCE_SCHEMA_V3}).`,
      ),
    ],
  };
}
