import type { FastifyRequest } from 'fastify';
import { type AuthInput, type AuthPlane, parseAuthorization, principalOf } from './principal.ts';

/**
 * The result-token plane of hosted verification (GET /verify/result/{transactionId}): the bearer is
 * the result token of one transaction. It never refuses: the interface answers a poll without the
 * right token with `outcome: null`, exactly as for a pending or unknown transaction, so the token is
 * only read here and judged by the verifier against the transaction it names.
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
      description: 'The resultToken POST /verify/request answered; without it the outcome reads as null.',
    },
  },
  authenticate: async (input: AuthInput) => {
    const auth = parseAuthorization(input.authorization);
    return { plane: 'result-token', token: auth?.scheme === 'bearer' ? auth.credential : undefined };
  },
};
