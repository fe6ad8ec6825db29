/**
 * What a key may do on the participation plane (docs/integration.md): a tenant-scoped integration
 * token, and later a partner key, carries scopes and a rate class instead of operator roles. A
 * route admits a key only when it declares one of the key's scopes; every other route refuses it.
 */
export const INTEGRATION_SCOPES = {
  issuance: 'Register credential types, make offers and update the tenant’s profile.',
  revocation: 'Revoke credentials the tenant issued.',
  deposits: 'Deposit bills, receipts, tickets and statements to holders’ wallets (contract 0.3.0).',
  membership: 'Enrol members and change tiers, display names, status and coins.',
  channels: 'Request, accept, decline, revoke and list data channels with holders.',
  agent: 'Report an automation agent’s heartbeat and actions (POST /api/agent/activity).',
} as const;

export type IntegrationScope = keyof typeof INTEGRATION_SCOPES;
export const SCOPE_NAMES = Object.keys(INTEGRATION_SCOPES) as IntegrationScope[];

/**
 * Rate classes: a quota of requests per fixed window, per key (interface spec, Limits 1). The
 * window starts at a multiple of its length since the Unix epoch.
 */
export const RATE_CLASSES = {
  sandbox: { quota: 60, windowSeconds: 60, description: 'Trying the integration out.' },
  standard: { quota: 600, windowSeconds: 60, description: 'A production integration.' },
  bulk: { quota: 6000, windowSeconds: 60, description: 'Batch jobs: issuing or depositing for a whole population.' },
} as const;

export type RateClass = keyof typeof RATE_CLASSES;
export const RATE_CLASS_NAMES = Object.keys(RATE_CLASSES) as RateClass[];

/**
 * No rate window is longer than this (a rate class, the directory's budget, an anonymous budget;
 * a test holds every one to it): the kernel deletes counts of windows that started more than
 * twice this long ago, which nothing reads any more.
 */
export const RATE_WINDOW_MAX_SECONDS = 3600;

/** A quota of requests per fixed window: a rate class, or another budget (the directory's). */
export interface RatePolicy {
  name: string;
  quota: number;
  windowSeconds: number;
}

export const ratePolicyOf = (rateClass: RateClass): RatePolicy => ({
  name: rateClass,
  quota: RATE_CLASSES[rateClass].quota,
  windowSeconds: RATE_CLASSES[rateClass].windowSeconds,
});

/** Where a request stands in its window (RateLimit header fields, draft-ietf-httpapi-ratelimit-headers). */
export interface RateState {
  policy: RatePolicy;
  /** Requests left in this window after this one (0 when over). */
  remaining: number;
  /** Seconds until the window ends. */
  resetSeconds: number;
  allowed: boolean;
}

/** The start of the window a moment falls in: a whole multiple of its length since the epoch. */
export function windowStart(now: number, policy: RatePolicy): number {
  const ms = policy.windowSeconds * 1000;
  return now - (now % ms);
}

/** The state after `used` requests in the window that started at `start`. */
export function rateState(policy: RatePolicy, used: number, start: number, now: number): RateState {
  return {
    policy,
    remaining: Math.max(0, policy.quota - used),
    resetSeconds: Math.max(1, Math.ceil((start + policy.windowSeconds * 1000 - now) / 1000)),
    allowed: used <= policy.quota,
  };
}

/** `RateLimit-Policy` and `RateLimit` as structured fields (RFC 9651 lists of one item). */
export function rateHeaders(s: RateState): Record<string, string> {
  return {
    'ratelimit-policy': `"${s.policy.name}";q=${s.policy.quota};w=${s.policy.windowSeconds}`,
    ratelimit: `"${s.policy.name}";r=${s.remaining};t=${s.resetSeconds}`,
  };
}
