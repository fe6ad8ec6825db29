import { ServiceError, Unauthorized } from '../../core/errors.ts';
import { constantTimeEqual } from '../../core/secrets.ts';
import { type AuthPlane, parseAuthorization } from '../../http/auth/principal.ts';

declare module '../../http/auth/principal.ts' {
  interface Principals {
    metrics: { plane: 'metrics' };
  }
}

const CHALLENGE = 'Bearer realm="openrail metrics"';

/**
 * The scraper's plane (docs/operations.md, "Metrics"): the one bearer OPENRAIL_METRICS_TOKEN names,
 * compared in constant time. No operator bearer, owner token or cookie is accepted here, and this
 * bearer is accepted nowhere else. With no token configured metrics are off and every call is
 * answered `metrics_off`.
 */
export function metricsPlane(token: string | undefined): AuthPlane<'metrics'> {
  return {
    name: 'metrics',
    security: { name: 'metricsBearer', scheme: { type: 'http', scheme: 'bearer', description: 'OPENRAIL_METRICS_TOKEN' } },
    authenticate: async ({ authorization }) => {
      if (token === undefined) throw new ServiceError('metrics_off');
      const given = parseAuthorization(authorization);
      if (given?.scheme !== 'bearer' || !constantTimeEqual(given.credential, token)) {
        throw new Unauthorized('The metrics bearer is missing or wrong.', CHALLENGE);
      }
      return { plane: 'metrics' };
    },
  };
}
