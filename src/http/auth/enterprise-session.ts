import { parse } from 'cookie';
import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import { constantTimeEqual, derivedSecret, hashToken } from '../../core/secrets.ts';
import type { BrowserSession, OperatorBrowserStore } from '../../ports/operator-browser-store.ts';
import type { OperatorRecord, OperatorStore } from '../../ports/operator-store.ts';
import { assertSameOriginForm } from '../../web/forms.ts';
import { type AuthInput, type AuthPlane, principalOf } from './principal.ts';

/** The operators' browser session cookie (docs/operator-sign-in.md, "The session"). */
export const OPERATOR_SESSION_COOKIE = 'session';
const VALUE = /^[A-Za-z0-9_-]{43}$/;

/** The operator a browser session signs in: its name, roles and scope, read on every request. */
export interface EnterpriseSessionPrincipal extends Pick<OperatorRecord, 'username' | 'roles' | 'tenant'> {
  plane: 'enterprise-session';
  session: BrowserSession;
  /** The anti-forgery token this session's forms carry (`_csrf`), for the page to put in them. */
  formToken: string;
}

declare module './principal.ts' {
  interface Principals {
    'enterprise-session': EnterpriseSessionPrincipal;
  }
}

export const enterpriseSessionOf = (request: FastifyRequest) => principalOf(request, 'enterprise-session');

/** The session cookie's value on a request, when it has the shape of one. */
export function sessionCookie(headers: AuthInput['headers']): string | undefined {
  const header = headers?.cookie;
  const value = typeof header === 'string' ? parse(header)[OPERATOR_SESSION_COOKIE] : undefined;
  return value && VALUE.test(value) ? value : undefined;
}

/**
 * The operator bearer the web apps act with on the API for this session (docs/admin-app.md, "How
 * a page acts"): derived from the cookie on the server, never sent to a browser, stored (by its
 * hash) with the session when it opens and deleted with it.
 */
export const appBearer = (cookieValue: string) => `ors_${derivedSecret('operator app bearer', cookieValue)}`;

/** The anti-forgery token every form of the web apps carries: derived from the session's cookie. */
export const formToken = (cookieValue: string) => derivedSecret('operator form', cookieValue);

/**
 * A form posted with this browser's operator session (the web apps' forms, sign-out, a new API
 * token) must come from our own pages (the web kit's origin check) and carry this session's
 * anti-forgery token; else 403 cross_origin_form and nothing is done.
 */
export function assertSessionForm(request: FastifyRequest, origin: string, sent: unknown): void {
  assertSameOriginForm(request, origin);
  const cookie = sessionCookie(request.headers);
  if (!cookie || typeof sent !== 'string' || !constantTimeEqual(sent, formToken(cookie))) {
    throw new ServiceError(
      'cross_origin_form',
      'This form did not come from a page of this session (it may be older than your sign-in): reload the page and try again.',
    );
  }
}

/**
 * The operators' browser sessions: the cookie names a session row, read on every request with its
 * operator, whose roles, tenant and status come from the operators table each time. Signing out
 * deletes the row and a suspension changes the status, so either ends access on the next request
 * on every process.
 */
export class EnterpriseSessionPlane implements AuthPlane<'enterprise-session'> {
  readonly name = 'enterprise-session';
  readonly security = {
    name: 'operatorSession',
    scheme: {
      type: 'apiKey',
      in: 'cookie',
      name: OPERATOR_SESSION_COOKIE,
      description: 'An operator’s browser session, set by GET /auth/callback or the password sign-in.',
    },
  };

  constructor(
    private readonly sessions: Pick<OperatorBrowserStore, 'session'>,
    private readonly operators: Pick<OperatorStore, 'get'>,
    private readonly clock: Clock,
  ) {}

  async authenticate(input: AuthInput): Promise<EnterpriseSessionPrincipal> {
    const value = sessionCookie(input.headers);
    const session = value === undefined ? undefined : await this.sessions.session(hashToken(value), this.clock.now());
    const operator = session && (await this.operators.get(session.username));
    if (!session || !operator || operator.status !== 'active') {
      throw new ServiceError('unauthorized', 'This browser is not signed in as an operator: sign in at /auth/login.');
    }
    return {
      plane: 'enterprise-session',
      username: operator.username,
      roles: operator.roles,
      tenant: operator.tenant,
      session,
      formToken: formToken(value as string),
    };
  }
}
