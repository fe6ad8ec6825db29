import type { RatePolicy } from './integration-scopes.ts';

/** A quota of requests in a fixed window (the window starts at a whole multiple of its length). */
export type Quota = Pick<RatePolicy, 'quota' | 'windowSeconds'>;

/**
 * What an anonymous caller may make the service do, and store (docs/security.md, "Anonymous
 * budgets"): every anonymous write is counted per calling address (an IPv4 address, an IPv6 /64)
 * and against a ceiling for the whole deployment, and some also per subject they name (a username,
 * an identifier a code is mailed to). A request over any of them is `429 rate_limited` with
 * `Retry-After`, and is counted no further: the caller's own address is counted first, so one
 * address cannot spend the ceiling that every other caller shares.
 */
export interface AnonymousBudget {
  /** What one request stores, or starts, in words (docs/security.md's table). */
  readonly what: string;
  readonly perAddress: Quota;
  readonly global: Quota;
  /** Per subject the request names, counted whoever asks (the same answer for a subject that exists and one that does not). */
  readonly perSubject?: Quota & { readonly subject: string };
}

const minutes = (n: number) => n * 60;

export const ANONYMOUS_BUDGETS = {
  'account-signin': {
    what: 'GET /account/signin: a sign-in ticket, kept 10 minutes',
    perAddress: { quota: 30, windowSeconds: minutes(10) },
    global: { quota: 3_000, windowSeconds: minutes(10) },
  },
  'account-session': {
    what: 'POST /account/session: an account session, kept 8 hours',
    perAddress: { quota: 10, windowSeconds: minutes(10) },
    global: { quota: 600, windowSeconds: minutes(10) },
  },
  'holder-request': {
    what: 'any holder-plane request: the JWS’s replay mark, kept 5 minutes',
    perAddress: { quota: 300, windowSeconds: minutes(1) },
    global: { quota: 12_000, windowSeconds: minutes(1) },
  },
  'verify-request': {
    what: 'POST /verify/request: a presentation transaction, kept up to 20 minutes',
    perAddress: { quota: 120, windowSeconds: minutes(1) },
    global: { quota: 3_000, windowSeconds: minutes(1) },
  },
  'authorization-push': {
    what: 'POST /par (a wallet’s pushed authorization request, HAIP issuance): the request, kept 60 seconds, or 10 minutes once opened',
    perAddress: { quota: 60, windowSeconds: minutes(1) },
    global: { quota: 3_000, windowSeconds: minutes(1) },
  },
  'demo-offer': {
    what: 'POST /demo/offer and /demo/revoke: a demonstration offer of the demo tenant (its row, audit entry and event kept; its subject erased within about 20 minutes), or a revocation of what it issued',
    perAddress: { quota: 20, windowSeconds: minutes(10) },
    global: { quota: 300, windowSeconds: minutes(60) },
  },
  'onboard-start': {
    what: 'POST /onboard/start: a mailed code, kept 10 minutes',
    perAddress: { quota: 10, windowSeconds: minutes(60) },
    perSubject: { subject: 'identifier', quota: 3, windowSeconds: minutes(15) },
    global: { quota: 600, windowSeconds: minutes(60) },
  },
  'partner-intake': {
    what: 'POST /api/partners/applications (and the apply page): a partner application',
    perAddress: { quota: 5, windowSeconds: minutes(60) },
    global: { quota: 200, windowSeconds: minutes(60) },
  },
  'partner-status': {
    what: 'POST /api/partners/applications/status (and the status page): reading an application',
    perAddress: { quota: 60, windowSeconds: minutes(60) },
    global: { quota: 3_000, windowSeconds: minutes(60) },
  },
  'partner-signin': {
    what: 'POST /api/partners/session/start: a mailed portal code, kept 10 minutes',
    perAddress: { quota: 10, windowSeconds: minutes(60) },
    perSubject: { subject: 'contact e-mail', quota: 3, windowSeconds: minutes(15) },
    global: { quota: 600, windowSeconds: minutes(60) },
  },
  'operator-signin': {
    what: 'GET /auth/login: a sign-in waiting at the identity provider, kept 10 minutes',
    perAddress: { quota: 30, windowSeconds: minutes(10) },
    global: { quota: 3_000, windowSeconds: minutes(10) },
  },
  'operator-login': {
    what: 'POST /api/login and the password sign-in page (POST /auth/login): a password check (a slow hash)',
    perAddress: { quota: 30, windowSeconds: minutes(5) },
    perSubject: { subject: 'username', quota: 10, windowSeconds: minutes(15) },
    global: { quota: 600, windowSeconds: minutes(1) },
  },
  'operator-invitation': {
    what: 'POST /operator/invitation: accepting an invitation (a slow hash)',
    perAddress: { quota: 10, windowSeconds: minutes(10) },
    global: { quota: 300, windowSeconds: minutes(10) },
  },
} as const satisfies Record<string, AnonymousBudget>;

export type AnonymousBudgetName = keyof typeof ANONYMOUS_BUDGETS;

/**
 * The caller's address as budgets count it: an IPv4 address as is (also when written as an
 * IPv4-mapped IPv6 address), an IPv6 address by its /64, the smallest block a single subscriber
 * is given, so that one caller cannot count as 2^64 callers.
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1]) return mapped[1];
  if (!ip.includes(':')) return ip;
  const [head = '', tail] = ip.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
