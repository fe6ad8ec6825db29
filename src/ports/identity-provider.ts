/** The enterprise identity provider operators sign in with (docs/operator-sign-in.md). */

export interface SignInStart {
  /** Where the browser goes to sign in. */
  url: URL;
  state: string;
  nonce: string;
  /** The PKCE code verifier. */
  verifier: string;
}

export type ProviderAnswer =
  | { ok: true; issuer: string; subject: string }
  | {
      ok: false;
      /**
       * `state`: the answer is not this sign-in's; `code`: the code is spent, expired or not this
       * sign-in's; `token`: the ID token does not match (nonce, audience, issuer); `provider`: the
       * provider refused or could not be reached.
       */
      reason: 'state' | 'code' | 'token' | 'provider';
      detail: string;
    };

export interface IdentityProvider {
  start(): Promise<SignInStart>;
  /** The provider's answer at the callback (its query), checked against what `start` made. */
  finish(query: URLSearchParams, expected: { state: string; nonce: string; verifier: string }): Promise<ProviderAnswer>;
  /** Where to end the session at the provider too, when it offers that. */
  logoutUrl(postLogoutRedirectUri: string): Promise<URL | undefined>;
}
