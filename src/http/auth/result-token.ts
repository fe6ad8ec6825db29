import type { FastifyRequest } from 'fastify';
import { Unauthorized } from '../../core/errors.ts';
import { type AuthInput, type AuthPlane, parseAuthorization, principalOf } from './principal.ts';

/**
 * The result-token plane of hosted verification (GET /verify/result/{transactionId}, POST
 * /verify/response/{transactionId}): the bearer is the result token of one transaction, and the
 * verifier judges it against the transaction it names. On the poll the token is optional
 * (RouteDef.credentialOptional): the interface answers a poll without it `200 {outcome: null}`,
 * so the plane lets it through without one (token null) and the verifier says why beside the null
 * (docs/verification.md). On the DC API relay, a route of ours, there is no answer without it: the
 * plane refuses 401 before the body is read.
 */
export interface ResultTokenPrincipal {
  plane: 'result-token';
  /** The Bearer credential as sent; null when there is none (only on a route whose credential is optional). */
  token: string | null;
}

declare module './principal.ts' {
  interface Principals {
    'result-token': ResultTokenPrincipal;
  }
}

/** A result token's shape (hosted-verifier.ts mints `vrt_` and 32 random bytes): anything else is another plane's bearer. */
export const RESULT_TOKEN = /^vrt_[A-Za-z0-9_-]{43}$/;

/** The result token the request carries, or null (no Bearer) on a route whose credential is optional. */
export const resultTokenOf = (request: FastifyRequest): string | null => principalOf(request, 'result-token').token;

/** The result token of a route that requires one: the plane refused the request without it. */
export function requiredResultTokenOf(request: FastifyRequest): string {
  const token = resultTokenOf(request);
  if (token === null) throw new Error('a route that requires the result token was reached without one');
  return token;
}

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
    const bearer = auth?.scheme === 'bearer' ? auth.credential : null;
    // Where the operation answers without the token, any bearer is the verifier's to judge: one of
    // another shape is simply not this transaction's token.
    if (input.credentialOptional) return { plane: 'result-token', token: bearer };
    if (bearer === null || !RESULT_TOKEN.test(bearer)) {
      throw new Unauthorized(
        'Send the resultToken POST /verify/request answered, as Authorization: Bearer.',
        'Bearer realm="openrail"',
      );
    }
    return { plane: 'result-token', token: bearer };
  },
};
