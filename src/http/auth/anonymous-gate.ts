import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { ANONYMOUS_BUDGETS, type AnonymousBudgetName, addressKey, type Quota } from '../../core/anonymous-budgets.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import { type RatePolicy, rateHeaders, rateState, windowStart } from '../../core/integration-scopes.ts';
import type { RateBudget } from '../../ports/integration-token-store.ts';

/**
 * The anonymous budgets (core/anonymous-budgets.ts, docs/security.md) counted in the shared rate
 * windows, so every process counts together. For one request: the caller's address first, then the
 * subject it names, then the deployment's ceiling; the first that is spent refuses the request and
 * the later ones are not counted. A ceiling reached is logged once per window and process: that
 * is what the operator sees, beside the 429s in the request lines.
 */
export class AnonymousGate {
  private readonly ceilingLogged = new Map<string, number>();

  constructor(
    private readonly budget: RateBudget,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
    /** OPENRAIL_ANONYMOUS_BUDGET_SCALE: every quota is multiplied by it (at least 1 request). */
    private readonly scale = 1,
  ) {}

  /**
   * Counts one request of `address` (and of `subject`, for a budget counted per subject): answers
   * the caller's own RateLimit fields, or refuses with 429 rate_limited and Retry-After.
   */
  async spend(name: AnonymousBudgetName, address: string, subject?: string): Promise<Record<string, string>> {
    const budget = ANONYMOUS_BUDGETS[name];
    const now = this.clock.now();
    const global = this.policy(`${name}-all`, budget.global);
    const windowOf = (key: string, policy: RatePolicy, message: string) => ({
      key,
      policy,
      message,
      windowStart: windowStart(now, policy),
      quota: policy.quota,
    });
    const chain = [
      windowOf(
        `anon:${name}:a:${addressKey(address)}`,
        this.policy(name, budget.perAddress),
        'This address has asked too often; wait before asking again.',
      ),
    ];
    if ('perSubject' in budget && subject !== undefined) {
      chain.push(
        windowOf(
          `anon:${name}:s:${createHash('sha256').update(subject, 'utf8').digest('base64url')}`,
          this.policy(`${name}-${budget.perSubject.subject}`, budget.perSubject),
          `This ${budget.perSubject.subject} was asked for too often; wait before asking again.`,
        ),
      );
    }
    const ceiling = windowOf(`anon:${name}:g`, global, CEILING);
    chain.push(ceiling);
    // A ceiling already reached refuses before anything is counted: the count of a new address (a
    // row of its own) is written only while the deployment still takes requests of this kind, so
    // the counts an anonymous caller can make the service keep are bounded by the ceilings too.
    // Then the address, the subject and the deployment count in turn, the first spent refusing the
    // request uncounted by the later ones; all of it one step (one statement on PostgreSQL).
    const { ceilingReached, counts } = await this.budget.consumeChain(ceiling, chain);
    if (ceilingReached) {
      this.logCeiling(name, global, now);
      throw this.ceilingRefusal(rateState(global, global.quota + 1, ceiling.windowStart, now));
    }
    let ownHeaders: Record<string, string> = {};
    for (const [i, w] of chain.entries()) {
      const used = counts[i];
      if (used === undefined) break;
      const state = rateState(w.policy, used, w.windowStart, now);
      const headers = { ...rateHeaders(state), ...(state.allowed ? {} : { 'retry-after': String(state.resetSeconds) }) };
      if (i === 0) ownHeaders = headers;
      if (!state.allowed) {
        if (w === ceiling) this.logCeiling(name, global, now);
        throw refusal(headers, w.message);
      }
    }
    return ownHeaders;
  }

  private ceilingRefusal(state: ReturnType<typeof rateState>): ServiceError {
    return refusal({ ...rateHeaders(state), 'retry-after': String(state.resetSeconds) }, CEILING);
  }

  private policy(name: string, quota: Quota): RatePolicy {
    return { name, quota: Math.max(1, Math.round(quota.quota * this.scale)), windowSeconds: quota.windowSeconds };
  }

  private logCeiling(name: string, policy: RatePolicy, now: number): void {
    const start = windowStart(now, policy);
    if (this.ceilingLogged.get(name) === start) return;
    this.ceilingLogged.set(name, start);
    this.log.warn(
      { budget: name, quota: policy.quota, windowSeconds: policy.windowSeconds },
      'anonymous budget ceiling reached: refusing new requests of this kind until the window ends',
    );
  }
}

const CEILING = 'The service takes no more of these requests just now, from anyone; try again shortly.';

function refusal(headers: Record<string, string>, message: string): ServiceError {
  return new ServiceError('rate_limited', message, { headers });
}
