import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../core/clock.ts';
import { Unauthorized } from '../../core/errors.ts';
import { hashToken } from '../../core/secrets.ts';
import type { AccessTokenRecord, AccessTokenStore } from '../../ports/access-token-store.ts';
import { type AuthInput, type AuthPlane, parseAuthorization, principalOf } from './principal.ts';

export interface AccessTokenPrincipal {
  plane: 'access-token';
  token: AccessTokenRecord;
}

declare module './principal.ts' {
  interface Principals {
    'access-token': AccessTokenPrincipal;
  }
}

export const accessTokenOf = (request: FastifyRequest) => principalOf(request, 'access-token');

const CHALLENGE = 'Bearer realm="openrail"';

export type DpopResourceCheck = (
  tenant: string,
  accessToken: string,
  jkt: string,
  request: { method: string; url: string; headers: Readonly<Record<string, string | string[] | undefined>> },
) => Promise<void>;

/**
 * OID4VCI access-token plane (RFC 6750). Authentication only reads the token; the credential
 * endpoint spends it in the transaction that collects the credential (IssuedCredentialStore.collect).
 */
export class AccessTokenAuthenticator implements AuthPlane<'access-token'> {
  readonly name = 'access-token';
  readonly security = {
    name: 'oid4vciAccessToken',
    scheme: { type: 'http', scheme: 'bearer', description: 'Single-use OID4VCI access token from POST /token.' },
  };

  constructor(
    private readonly tokens: AccessTokenStore,
    private readonly clock: Clock,
    /** RFC 9449: checks the DPoP proof that must come with a DPoP-bound token (features/issuance/oauth-checks.ts). */
    private readonly dpop: DpopResourceCheck,
  ) {}

  async authenticate(input: AuthInput): Promise<AccessTokenPrincipal> {
    // OID4VCI 1.0 §8.2 / FAPI 2.0: an access token is never accepted from the query string.
    if (new URL(input.url).searchParams.has('access_token')) {
      throw new Unauthorized(
        'The access token must be sent in the Authorization header, never in the URL.',
        `${CHALLENGE}, error="invalid_request"`,
      );
    }
    const auth = parseAuthorization(input.authorization);
    if (!auth) throw new Unauthorized('This operation needs an OID4VCI access token.', CHALLENGE);
    if (auth.scheme !== 'bearer' && auth.scheme !== 'dpop')
      throw new Unauthorized('Only a Bearer access token is accepted here.', `${CHALLENGE}, error="invalid_token"`);
    const token = await this.tokens.findUsable(hashToken(auth.credential), this.clock.now());
    if (!token) throw new Unauthorized('The access token is unknown, spent or expired.', `${CHALLENGE}, error="invalid_token"`);
    if (token.dpopJkt) {
      if (auth.scheme !== 'dpop') {
        throw new Unauthorized(
          'This access token is DPoP-bound: send it with the DPoP scheme and a DPoP proof.',
          'DPoP realm="openrail", error="invalid_token", algs="ES256"',
        );
      }
      await this.dpop(token.tenant, auth.credential, token.dpopJkt, {
        method: input.method,
        url: input.url,
        headers: input.headers ?? {},
      });
    } else if (auth.scheme === 'dpop') {
      // A token that is not DPoP-bound is a Bearer token, as the interface's always are.
      throw new Unauthorized('Only a Bearer access token is accepted here.', `${CHALLENGE}, error="invalid_token"`);
    }
    return { plane: 'access-token', token };
  }
}
