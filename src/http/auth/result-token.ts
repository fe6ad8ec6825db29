import type { FastifyRequest } from 'fastify';
import { Unauthorized } from '../../core/errors.ts';
import { type AuthInput, type AuthPlane, parseAuthorization, principalOf } from './principal.ts';

/**
 * The result-token plane of hosted verification (GET /verify/result/{transactionId}, POST
 * /verify/response/{transactionId}): the bearer is the result token of one transaction. Without
 * one the request is 401 before its body is read; the verifier judges the token against the
 * transaction it names (docs/verification.md: 403 for another transaction's).
 */
export interface ResultTokenPrincipal {
  plane: 'result-token';
  token: string;
}

declare module './principal.ts' {
  interface Principals {
    'result-token': ResultTokenPrincipal;
  }
}

/** A result token's shape (hosted-verifier.ts mints `vrt_` and 32 random bytes): anything else is another plane's bearer. */
export const RESULT_TOKEN = /^vrt_[A-Za-z0-9_-]{43}$/;

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
    if (auth?.scheme !== 'bearer' || !RESULT_TOKEN.test(auth.credential)) {
      throw new Unauthorized(
        'Send the resultToken POST /verify/request answered, as Authorization: Bearer.',
        'Bearer realm="openrail"',
      );
    }
    return { plane: 'result-token', token: auth.credential };
  },
};
