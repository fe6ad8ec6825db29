import { ServiceError } from '../../core/errors.ts';
import { type RatePolicy, rateHeaders, rateState, windowStart } from '../../core/integration-scopes.ts';
import type { RateBudget } from '../../ports/integration-token-store.ts';

/**
 * Counts one request of `key` against `policy` in the shared budget (one statement, every process
 * alike). Answers the RateLimit-Policy and RateLimit fields for the answer, or refuses with
 * 429 rate_limited, Retry-After and the same fields when the window's quota is spent.
 */
export async function consumeBudget(
  budget: RateBudget,
  key: string,
  policy: RatePolicy,
  now: number,
  refusal: string,
): Promise<Record<string, string>> {
  const start = windowStart(now, policy);
  const state = rateState(policy, await budget.consume(key, start), start, now);
  const headers = rateHeaders(state);
  if (!state.allowed) {
    throw new ServiceError('rate_limited', refusal, { headers: { ...headers, 'retry-after': String(state.resetSeconds) } });
  }
  return headers;
}
