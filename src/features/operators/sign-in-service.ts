import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import type { Random } from '../../core/random.ts';
import { hashToken, newToken } from '../../core/secrets.ts';
import { appBearer } from '../../http/auth/enterprise-session.ts';
import type { IdentityProvider } from '../../ports/identity-provider.ts';
import type { BrowserSession, OperatorBrowserStore, SignInVia } from '../../ports/operator-browser-store.ts';
import type { OperatorRecord, OperatorStore } from '../../ports/operator-store.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.ts';

export const SIGN_IN = {
  /** How long a sign-in may wait at the provider. */
  pendingMs: 10 * 60 * 1000,
  /** A browser session. */
  sessionMs: 12 * 60 * 60 * 1000,
  /** An operator bearer minted by GET or POST /auth/api-token. */
  apiTokenMs: 60 * 60 * 1000,
  /** How many of those a browser session may hold live at once: at the cap, a new one is refused (api_token_limit). */
  apiTokenCap: 5,
};
/** Where a signed-in browser lands when it asked for nowhere in particular. */
export const DEFAULT_RETURN = '/';
const RETURN_MAX = 512;

/** A sign-in refused at the callback: what the page says, and the status it answers with. */
export class SignInRefused extends Error {
  constructor(
    readonly status: 400 | 403 | 502,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A return path the browser may be sent to after signing in: a path of this origin only (it
 * starts with one `/`, holds no backslash or control character, and resolves to this origin), else
 * the default. An absolute URL, `//host` or `/\host` never leaves the site.
 */
export function safeReturn(raw: string | undefined, origin: string): string {
  if (!raw || raw.length > RETURN_MAX || !raw.startsWith('/') || raw.startsWith('//')) return DEFAULT_RETURN;
  if (raw.includes('\\') || [...raw].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return DEFAULT_RETURN;
  try {
    const url = new URL(raw, origin);
    return url.origin === origin ? `${url.pathname}${url.search}` : DEFAULT_RETURN;
  } catch {
    return DEFAULT_RETURN;
  }
}

export interface SignInDeps {
  store: OperatorBrowserStore;
  operators: Pick<OperatorStore, 'get' | 'findByIdentity'>;
  /** The password check of POST /api/login (lock-out included). */
  checkPassword(username: string, password: string): Promise<OperatorRecord>;
  /** Absent: no provider is configured. */
  provider: IdentityProvider | undefined;
  /** A session, its app bearer and its audit entry are written together. */
  uow: UnitOfWork;
  clock: Clock;
  random: Random;
  origin: string;
}

/**
 * Operators' browser sign-in (docs/operator-sign-in.md): through the enterprise identity provider
 * or, where none is configured, with a password; either way a server-side session the cookie
 * names. An identity signs in only as the operator the back office linked it to: signing in never
 * creates an operator or gives one a role.
 */
export class OperatorSignIn {
  constructor(private readonly deps: SignInDeps) {}

  get configured(): boolean {
    return this.deps.provider !== undefined;
  }

  /** A sign-in at the provider: where to send the browser, and the value of the cookie that binds the answer to it. */
  async begin(returnTo: string): Promise<{ redirect: URL; binder: string }> {
    const provider = this.provider();
    const started = await provider.start().catch(() => {
      throw new SignInRefused(502, 'The identity provider cannot be reached', 'Try again in a moment. Nothing was changed.');
    });
    const binder = this.deps.random.text(32);
    const now = this.deps.clock.now();
    await this.deps.store.addLogin({
      stateHash: hashToken(started.state),
      binderHash: hashToken(binder),
      nonce: started.nonce,
      verifier: started.verifier,
      returnTo: safeReturn(returnTo, this.deps.origin),
      createdAt: now,
      expiresAt: now + SIGN_IN.pendingMs,
    });
    return { redirect: started.url, binder };
  }

  /**
   * The provider's answer: the pending sign-in its `state` names, started by this browser, is
   * spent whatever follows (another browser's answer spends nothing); the code, PKCE and nonce
   * must check; the identity must be linked to an active operator. Only then is a session made.
   */
  async complete(query: URLSearchParams, binder: string | undefined): Promise<{ session: string; returnTo: string }> {
    const provider = this.provider();
    const state = query.get('state');
    const now = this.deps.clock.now();
    const pending = state && binder ? await this.deps.store.takeLogin(hashToken(state), hashToken(binder), now) : undefined;
    if (!pending) {
      throw new SignInRefused(
        400,
        'This sign-in cannot be finished',
        'The answer does not belong to a sign-in this browser started, or that sign-in was used already or took more than ten minutes. Start again.',
      );
    }
    const answer = await provider.finish(query, { state: state as string, nonce: pending.nonce, verifier: pending.verifier });
    if (!answer.ok) {
      throw new SignInRefused(
        answer.reason === 'provider' ? 502 : 400,
        'The sign-in failed',
        `${capital(answer.detail)}. Start again.`,
      );
    }
    const username = await this.deps.operators.findByIdentity(answer.issuer, answer.subject);
    const operator = username === undefined ? undefined : await this.deps.operators.get(username);
    if (!operator) {
      throw new SignInRefused(
        403,
        'This identity is not an operator here',
        'You signed in at your identity provider, but no operator of this service is linked to that identity. An owner links it in the back office (people, operators, identity).',
      );
    }
    if (operator.status !== 'active') {
      throw new SignInRefused(403, 'This operator cannot sign in', `The operator ${operator.username} is ${operator.status}.`);
    }
    return { session: await this.open(operator, 'oidc'), returnTo: pending.returnTo };
  }

  /** The password sign-in page's check: the same as POST /api/login. */
  async password(username: string, password: string): Promise<string> {
    return this.open(await this.deps.checkPassword(username, password), 'password');
  }

  /**
   * A short-lived operator bearer for the session's operator, ending with the session; at most
   * SIGN_IN.apiTokenCap live per session. At the cap the request is refused and nothing changes:
   * revoking the oldest instead would end, unasked, a token a script may be using. `cookie` is the
   * session's cookie value: the web apps' own bearer, derived from it, is not counted.
   */
  async apiToken(session: BrowserSession, cookie: string): Promise<{ token: string; expiresIn: number }> {
    const token = newToken(this.deps.random, 'ors');
    const now = this.deps.clock.now();
    const expiresAt = Math.min(now + SIGN_IN.apiTokenMs, session.expiresAt);
    const minted = await this.deps.store.mintApiToken(
      { tokenHash: hashToken(token), username: session.username, browserSession: session.idHash, now, expiresAt },
      { max: SIGN_IN.apiTokenCap, except: hashToken(appBearer(cookie)) },
    );
    if (minted === 'capped') {
      throw new ServiceError(
        'api_token_limit',
        `This sign-in already has ${SIGN_IN.apiTokenCap} live API tokens, so no new one was made. Each ends an hour after it was made; signing out ends them all.`,
      );
    }
    if (minted === 'ended')
      throw new ServiceError('unauthorized', 'This browser is not signed in as an operator: sign in at /auth/login.');
    return { token, expiresIn: Math.floor((expiresAt - now) / 1000) };
  }

  /** Ends the session and the bearers it minted; where to end it at the provider too, if it offers that. */
  async end(session: BrowserSession, postLogoutRedirectUri: string): Promise<URL | undefined> {
    await this.deps.store.endSession(session.idHash);
    return session.via === 'oidc' ? this.deps.provider?.logoutUrl(postLogoutRedirectUri) : undefined;
  }

  private async open(operator: OperatorRecord, via: SignInVia): Promise<string> {
    const value = this.deps.random.text(32);
    const now = this.deps.clock.now();
    const expiresAt = now + SIGN_IN.sessionMs;
    await this.deps.uow.run(async ({ audit }) => {
      await this.deps.store.createSession({
        idHash: hashToken(value),
        username: operator.username,
        via,
        createdAt: now,
        expiresAt,
      });
      // The bearer the web apps act with (docs/admin-app.md): it lives and ends with the session.
      await this.deps.store.addApiToken(hashToken(appBearer(value)), operator.username, hashToken(value), now, expiresAt);
      await audit.append({
        actor: { kind: 'operator', username: operator.username },
        action: 'operator.signed_in',
        tenant: operator.tenant,
        target: operator.username,
        detail: { via, browser: true },
      });
    });
    return value;
  }

  private provider(): IdentityProvider {
    if (!this.deps.provider) {
      throw new SignInRefused(400, 'No identity provider is configured', 'Sign in with your username and password instead.');
    }
    return this.deps.provider;
  }
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
