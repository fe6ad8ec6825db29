/**
 * A real OpenID Provider for the sign-in suites: oidc-provider on loopback (plain http, which the
 * rail reaches because OPENRAIL_OUTBOUND_ALLOW names it), one confidential client for the rail,
 * PKCE required, and an interaction that signs in as whichever subject the test says next, so a
 * sign-in runs without a browser. `follow` is the browser between the rail and the provider.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider from 'oidc-provider';

export const OIDC_CLIENT = { id: 'openrail-test', secret: 'test-client-secret-0123456789abcdef' };
/** A second client, which authenticates with private_key_jwt (ES256) instead of a secret. */
export const OIDC_KEY_CLIENT = { id: 'openrail-key-test', kid: 'rail-key-1' };

export interface TestProvider {
  issuer: string;
  /** The subject the next sign-in at the provider signs in as. */
  signInAs(subject: string): void;
  /** Follows a browser from `url` at the provider until it is sent to `redirectPrefix`: that URL. */
  follow(url: string, redirectPrefix: string): Promise<URL>;
  close(): Promise<void>;
}

export async function startTestProvider(
  redirectUris: string[],
  postLogoutRedirectUris: string[],
  /** The public JWK of the private_key_jwt client's key, when a suite uses that client. */
  clientKey?: JWK,
): Promise<TestProvider> {
  const server: Server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  let subject = 'nobody';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: OIDC_CLIENT.id,
        client_secret: OIDC_CLIENT.secret,
        redirect_uris: redirectUris,
        post_logout_redirect_uris: postLogoutRedirectUris,
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
      ...(clientKey
        ? [
            {
              client_id: OIDC_KEY_CLIENT.id,
              redirect_uris: redirectUris,
              response_types: ['code' as const],
              grant_types: ['authorization_code'],
              token_endpoint_auth_method: 'private_key_jwt' as const,
              token_endpoint_auth_signing_alg: 'ES256' as const,
              jwks: { keys: [{ ...clientKey, kid: OIDC_KEY_CLIENT.kid, alg: 'ES256', use: 'sig' }] },
            },
          ]
        : []),
    ],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' }] },
    cookies: { keys: ['test-cookie-key'] },
    pkce: { required: () => true },
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: true } },
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 600, Grant: 600 },
  });
  const callback = provider.callback();
  server.on('request', async (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return callback(req, res);
    try {
      const { prompt, params, session, grantId } = await provider.interactionDetails(req, res);
      if (prompt.name === 'login') {
        return await provider.interactionFinished(
          req,
          res,
          { login: { accountId: subject } },
          { mergeWithLastSubmission: false },
        );
      }
      const grant = grantId
        ? await provider.Grant.find(grantId)
        : new provider.Grant({ accountId: session?.accountId as string, clientId: params.client_id as string });
      const details = prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
      if (details.missingOIDCScope) grant?.addOIDCScope(details.missingOIDCScope.join(' '));
      if (details.missingOIDCClaims) grant?.addOIDCClaims(details.missingOIDCClaims);
      return await provider.interactionFinished(
        req,
        res,
        { consent: { grantId: await grant?.save() } },
        { mergeWithLastSubmission: true },
      );
    } catch (err) {
      res.statusCode = 500;
      res.end(String(err));
    }
  });
  return {
    issuer,
    signInAs: (next) => {
      subject = next;
    },
    async follow(start, redirectPrefix) {
      const jar = new Map<string, string>();
      let url = start;
      for (let hop = 0; hop < 20; hop++) {
        if (url.startsWith(redirectPrefix)) return new URL(url);
        const res = await fetch(url, {
          redirect: 'manual',
          headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
        });
        for (const set of res.headers.getSetCookie()) {
          const [pair] = set.split(';');
          const at = (pair ?? '').indexOf('=');
          if (at > 0) jar.set((pair as string).slice(0, at), (pair as string).slice(at + 1));
        }
        const location = res.headers.get('location');
        if (!location) throw new Error(`the provider answered ${res.status} at ${url} without a redirect: ${await res.text()}`);
        url = new URL(location, url).href;
      }
      throw new Error('too many redirects at the provider');
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
