/**
 * Operators' browser sign-in (docs/operator-sign-in.md). Every secret is kept as its SHA-256
 * hash: the `state` of a pending sign-in, the cookie that binds it to its browser, the session
 * cookie. Times are milliseconds.
 */

export interface PendingLogin {
  stateHash: string;
  binderHash: string;
  nonce: string;
  /** The PKCE code verifier. */
  verifier: string;
  returnTo: string;
  createdAt: number;
  expiresAt: number;
}

export type SignInVia = 'oidc' | 'password';

export interface BrowserSession {
  idHash: string;
  username: string;
  via: SignInVia;
  createdAt: number;
  expiresAt: number;
}

export interface MintedToken {
  tokenHash: string;
  username: string;
  /** The id hash of the browser session that mints it. */
  browserSession: string;
  now: number;
  expiresAt: number;
}

export interface OperatorBrowserStore {
  addLogin(login: PendingLogin): Promise<void>;
  /**
   * Deletes the pending sign-in of this state started by the browser holding this binder, and
   * answers it when it had not expired: each is used once, and only by its own browser (another's
   * answer leaves it as it was).
   */
  takeLogin(stateHash: string, binderHash: string, now: number): Promise<PendingLogin | undefined>;
  createSession(session: BrowserSession): Promise<void>;
  session(idHash: string, now: number): Promise<BrowserSession | undefined>;
  /** An operator bearer minted by a browser session, ending with it. */
  addApiToken(tokenHash: string, username: string, browserSession: string, now: number, expiresAt: number): Promise<void>;
  /**
   * A bearer the operator asked the session for (GET or POST /auth/api-token): added only while the
   * session is live and has fewer than `cap.max` such bearers live (the web apps' own bearer,
   * `cap.except`, is not one of them). One transaction holding the session's row, so requests
   * racing on any process never pass the cap together. Capped or ended, nothing is written.
   */
  mintApiToken(token: MintedToken, cap: { max: number; except: string }): Promise<'minted' | 'capped' | 'ended'>;
  /** Deletes the session and every bearer it minted; answers whether it existed. */
  endSession(idHash: string): Promise<boolean>;
  /** Deletes expired sign-ins and sessions. */
  prune(now: number): Promise<void>;
}
