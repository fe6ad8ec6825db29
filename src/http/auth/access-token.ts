import type { FastifyRequest } from 'fastify';
import { hashToken } from '../../adapters/crypto/secrets.ts';
import type { Clock } from '../../core/clock.ts';
import { Unauthorized } from '../../core/errors.ts';
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
    if (auth.scheme !== 'bearer')
      throw new Unauthorized('Only a Bearer access token is accepted here.', `${CHALLENGE}, error="invalid_token"`);
    const token = await this.tokens.findUsable(hashToken(auth.credential), this.clock.now());
    if (!token) throw new Unauthorized('The access token is unknown, spent or expired.', `${CHALLENGE}, error="invalid_token"`);
    return { plane: 'access-token', token };
  }
}
