import { parse } from 'cookie';
import type { FastifyRequest } from 'fastify';
import { ServiceError } from '../../core/errors.ts';
import { type AuthInput, type AuthPlane, principalOf } from './principal.ts';

/**
 * The account portal's two cookie planes (docs/account.md, "Cookies"): the browser's sign-in
 * ticket (`browser-ticket`, POST /account/signin/continue) and the holder's browser session
 * (`account-session`, the portal). Both cookies are HttpOnly and SameSite=Lax; a form posted with
 * them is also held to the web kit's same-origin check.
 */
export const TICKET_COOKIE = 'openrail_signin';
export const SESSION_COOKIE = 'openrail_account';

export interface BrowserTicketPrincipal {
  plane: 'browser-ticket';
  /** The ticket the cookie names (the id the QR code also shows); its state is judged by the one conditional write that spends it. */
  ticket: string;
  /** The browser's own secret, which only this cookie carries: without it the ticket is not collected. */
  browserSecret: string;
}

export interface AccountSessionPrincipal {
  plane: 'account-session';
  accountId: string;
  session: string;
}

declare module './principal.ts' {
  interface Principals {
    'browser-ticket': BrowserTicketPrincipal;
    'account-session': AccountSessionPrincipal;
  }
}

export const browserTicketOf = (request: FastifyRequest) => principalOf(request, 'browser-ticket');
export const accountSessionOf = (request: FastifyRequest) => principalOf(request, 'account-session');

const cookie = (input: AuthInput, name: string, shape: RegExp): string | undefined => {
  const header = input.headers?.cookie;
  const value = typeof header === 'string' ? parse(header)[name] : undefined;
  return value && shape.test(value) ? value : undefined;
};
const SECRET = /^[A-Za-z0-9_-]{43}$/;
/** The ticket cookie: `<ticket id>.<browser secret>` (docs/account.md, "Two values"). */
const TICKET_PAIR = /^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}$/;

/** The ticket cookie's value for a ticket id and the browser's secret. */
export const ticketCookieValue = (ticket: string, browserSecret: string) => `${ticket}.${browserSecret}`;

export const browserTicketPlane: AuthPlane<'browser-ticket'> = {
  name: 'browser-ticket',
  security: {
    name: 'browserTicket',
    scheme: { type: 'apiKey', in: 'cookie', name: TICKET_COOKIE, description: 'The sign-in ticket GET /account/signin set.' },
  },
  authenticate: async (input) => {
    const [ticket, browserSecret] = cookie(input, TICKET_COOKIE, TICKET_PAIR)?.split('.') ?? [];
    if (!ticket || !browserSecret) throw new ServiceError('unauthorized', 'This browser holds no sign-in ticket.');
    return { plane: 'browser-ticket', ticket, browserSecret };
  },
};

/** Sessions are read from their table on every request, so signing out ends one at once on every process. */
export class AccountSessionPlane implements AuthPlane<'account-session'> {
  readonly name = 'account-session';
  readonly security = {
    name: 'accountSession',
    scheme: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'The account portal session.' },
  };

  constructor(private readonly accountOf: (session: string) => Promise<string | undefined>) {}

  async authenticate(input: AuthInput): Promise<AccountSessionPrincipal> {
    const session = cookie(input, SESSION_COOKIE, SECRET);
    const accountId = session && (await this.accountOf(session));
    if (!session || !accountId) throw new ServiceError('unauthorized', 'This browser is not signed in to an account.');
    return { plane: 'account-session', accountId, session };
  }
}
