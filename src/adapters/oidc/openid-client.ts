import { createPrivateKey, webcrypto } from 'node:crypto';
import type * as Client from 'openid-client';
import type { OidcConfig } from '../../config/config.ts';
import { whenFirstUsed } from '../../core/lazy-package.ts';
import type { IdentityProvider, ProviderAnswer, SignInStart } from '../../ports/identity-provider.ts';

/** openid-client, loaded by the first sign-in through an identity provider: a deployment without OPENRAIL_OIDC_* never loads it. */
const openid = whenFirstUsed<typeof Client>('openid-client');

/** How long a provider's discovery document is kept before it is read again. */
const DISCOVERY_TTL_MS = 60 * 60 * 1000;
const TIMEOUT_S = 10;

/**
 * The enterprise identity provider through openid-client (docs/operator-sign-in.md): discovery
 * (read again hourly, and after a failure on the next sign-in), the authorization code flow with
 * PKCE S256, `state` and `nonce`, and client_secret_post or private_key_jwt at the token
 * endpoint. A plain-http issuer is reached only when configuration allowed it (OPENRAIL_OUTBOUND_ALLOW).
 */
export class OpenIdClientProvider implements IdentityProvider {
  private discovered: { config: Client.Configuration; at: number } | undefined;

  constructor(
    private readonly oidc: OidcConfig,
    private readonly redirectUri: string,
    private readonly now: () => number,
  ) {}

  private async configuration(): Promise<Client.Configuration> {
    if (this.discovered && this.now() - this.discovered.at < DISCOVERY_TTL_MS) return this.discovered.config;
    const { clientId, clientSecret, privateKey, issuer } = this.oidc;
    const auth = privateKey
      ? openid().PrivateKeyJwt({ key: await privateKeyOf(privateKey.pem), kid: privateKey.kid })
      : openid().ClientSecretPost(clientSecret);
    const config = await openid().discovery(issuer, clientId, clientSecret, auth, {
      timeout: TIMEOUT_S,
      ...(issuer.protocol === 'http:' ? { execute: [openid().allowInsecureRequests] } : {}),
    });
    this.discovered = { config, at: this.now() };
    return config;
  }

  async start(): Promise<SignInStart> {
    const config = await this.configuration();
    const verifier = openid().randomPKCECodeVerifier();
    const state = openid().randomState();
    const nonce = openid().randomNonce();
    const url = openid().buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: ['openid', ...this.oidc.scopes].join(' '),
      code_challenge: await openid().calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url, state, nonce, verifier };
  }

  async finish(query: URLSearchParams, expected: { state: string; nonce: string; verifier: string }): Promise<ProviderAnswer> {
    const config = await this.configuration();
    // The token request names the registered redirect URI, whatever host the browser came through.
    const current = new URL(this.redirectUri);
    current.search = query.toString();
    try {
      const tokens = await openid().authorizationCodeGrant(config, current, {
        pkceCodeVerifier: expected.verifier,
        expectedState: expected.state,
        expectedNonce: expected.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) return { ok: false, reason: 'provider', detail: 'the provider answered without an ID token' };
      return { ok: true, issuer: claims.iss, subject: claims.sub };
    } catch (err) {
      return { ok: false, ...refusalOf(err) };
    }
  }

  async logoutUrl(postLogoutRedirectUri: string): Promise<URL | undefined> {
    const config = await this.configuration().catch(() => undefined);
    if (!config?.serverMetadata().end_session_endpoint) return undefined;
    return openid().buildEndSessionUrl(config, { post_logout_redirect_uri: postLogoutRedirectUri });
  }
}

async function privateKeyOf(pem: string): Promise<webcrypto.CryptoKey> {
  const key = createPrivateKey(pem);
  const algorithm =
    key.asymmetricKeyType === 'ec' ? { name: 'ECDSA', namedCurve: 'P-256' } : { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  return webcrypto.subtle.importKey('pkcs8', key.export({ format: 'der', type: 'pkcs8' }), algorithm, false, ['sign']);
}

/** What went wrong at the callback, in the sign-in's terms; never the provider's own words verbatim. */
function refusalOf(err: unknown): Omit<Extract<ProviderAnswer, { ok: false }>, 'ok'> {
  if (err instanceof openid().AuthorizationResponseError) {
    return { reason: 'provider', detail: `the provider refused the sign-in (${err.error})` };
  }
  if (err instanceof openid().ResponseBodyError) {
    return err.error === 'invalid_grant'
      ? { reason: 'code', detail: 'the sign-in code was already used, has expired, or was not issued for this sign-in' }
      : { reason: 'provider', detail: `the provider refused the code exchange (${err.error})` };
  }
  const code = (err as { code?: string }).code;
  if (code === 'OAUTH_INVALID_RESPONSE') return { reason: 'state', detail: 'the answer does not belong to this sign-in' };
  if (code === 'OAUTH_JWT_CLAIM_COMPARISON_FAILED') {
    return { reason: 'token', detail: 'the identity token does not belong to this sign-in (nonce, audience or issuer)' };
  }
  return { reason: 'provider', detail: 'the identity provider could not be reached or answered something unexpected' };
}
