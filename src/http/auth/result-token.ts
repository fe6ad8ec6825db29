import type { FastifyRequest } from 'fastify';
import { type AuthInput, type AuthPlane, parseAuthorization, principalOf } from './principal.ts';

/**
 * The result-token plane of hosted verification (GET /verify/result/{transactionId}): the bearer is
 * the result token of one transaction. The plane only reads it; the verifier judges it against the
 * transaction it names (docs/verification.md: 401 without one, 403 for another transaction's).
 */
export interface ResultTokenPrincipal {
  plane: 'result-token';
  token: string | undefined;
}

declare module './principal.ts' {
  interface Principals {
    'result-token': ResultTokenPrincipal;
  }
}

export const resultTokenOf = (request: FastifyRequest) => principalOf(request, 'result-token');

export const resultTokenPlane: AuthPlane<'result-token'> = {
  name: 'result-token',
  security: {
    name: 'resultToken',
    scheme: {
      type: 'http',
      scheme: 'bearer',
      description: 'The resultToken POST /verify/request answered: the outcome of that transaction only.',
    },
  },
  authenticate: async (input: AuthInput) => {
    const auth = parseAuthorization(input.authorization);
    return { plane: 'result-token', token: auth?.scheme === 'bearer' ? auth.credential : undefined };
  },
};
