import type { Clock } from '../../core/clock.ts';
import { servesCodeFlow } from '../../core/code-flow.ts';
import { ServiceError } from '../../core/errors.ts';
import type { IssuerUrls } from '../../core/issuer-urls.ts';
import { decodeJws } from '../../core/jose/es256.ts';
import type { Random } from '../../core/random.ts';
import { hashToken, newToken } from '../../core/secrets.ts';
import type { AuthorizationRequestStore, PopMark } from '../../ports/authorization-request-store.ts';
import { assertIssuing } from '../tenants/tenant-service.ts';
import { authorizationServerMetadata } from './metadata.ts';
import { instanceKeyThumbprint, type OauthChecks, PROOF_WINDOW_S } from './oauth-checks.ts';
import { oauth2 } from './oauth-library.ts';
import { type RequestSeen, refusalOf, requestLike, single } from './oauth-requests.ts';
import { ACCESS_TOKEN_TTL_S, NONCE_TTL_S, type TokenResponse, type TokenService } from './token-service.ts';

export interface CodeRedemptionDeps {
  store: AuthorizationRequestStore;
  tokens: TokenService;
  checks: OauthChecks;
  urls: IssuerUrls;
  clock: Clock;
  random: Random;
}

/**
 * The token endpoint's authorization code grant (docs/haip.md, "Issuance"): the code, the PKCE
 * verifier, the same wallet's attestation and a DPoP proof, for a DPoP-bound access token to the
 * offer the request was granted for.
 */
export class CodeRedemption {
  constructor(private readonly deps: CodeRedemptionDeps) {}

  /**
   * POST /token with grant_type=authorization_code at issuer `slug`. Its first read is the issuer
   * with the request of the code (one round trip, docs/scaling.md): an unknown issuer is
   * `unknown_tenant`, a suspended one an invalid grant. Undefined where the issuer's HAIP issuance
   * is off: the pre-authorized grant's endpoint answers then, as for any other grant it does not
   * take.
   */
  async redeem(slug: string, form: Record<string, string>, seen: RequestSeen): Promise<TokenResponse | undefined> {
    const code = form.code;
    const read = await this.deps.store.atIssuerByCode(slug, hashToken(code ?? ''));
    assertIssuing(slug, read.issuer, (message) => new ServiceError('invalid_grant', message));
    if (!read.issuer.haipIssuance) return undefined;
    const tenant = { slug, ...read.issuer };
    servedSlug(tenant, this.deps.checks);
    if (!code) throw new ServiceError('invalid_request', 'code is required.');
    const record = read.request;
    const now = this.deps.clock.now();
    if (record?.phase !== 'code' || record.expiresAt <= now || !record.offerId) {
      throw new ServiceError('invalid_grant', 'The authorization code is unknown, already used or expired.');
    }
    if (form.redirect_uri !== record.redirectUri) {
      throw new ServiceError('invalid_grant', 'redirect_uri is not the one of the authorization request.');
    }
    this.deps.checks.checkAttestationShape(single(seen, 'oauth-client-attestation'));
    // The DPoP proof first: its nonce round trip must not cost the wallet its code.
    const dpopJkt = (await this.deps.checks.checkDpop(slug, seen, {
      required: true,
      nonce: true,
      jkt: record.dpopJkt,
    })) as string;
    const metadata = authorizationServerMetadata(this.deps.urls, tenant);
    try {
      const request = requestLike(seen);
      const parsed = this.deps.checks.server.parseAccessTokenRequest({ request, accessTokenRequest: form });
      if (parsed.grant.grantType !== oauth2().authorizationCodeGrantIdentifier) throw new Error('dispatched on grant_type');
      await this.deps.checks.server.verifyAuthorizationCodeAccessTokenRequest({
        authorizationServerMetadata: metadata,
        grant: parsed.grant,
        accessTokenRequest: parsed.accessTokenRequest,
        request,
        expectedCode: code,
        codeExpiresAt: new Date(record.expiresAt),
        now: this.deps.checks.now,
        pkce: { codeVerifier: form.code_verifier, codeChallenge: record.codeChallenge, codeChallengeMethod: 'S256' as never },
      });
    } catch (err) {
      throw refusalOf(err);
    }
    // The same wallet instance, for the client the code was pushed by.
    const attested = (await this.deps.checks.clientAttestation(seen, metadata.issuer, record.clientId)).payload;
    if (instanceKeyThumbprint(attested.cnf.jwk) !== record.attestationJkt) {
      throw new ServiceError(
        'invalid_client',
        'The token request comes from another wallet instance than the authorization request.',
      );
    }
    const accessToken = newToken(this.deps.random, 'oat');
    const tokenExpiry = now + ACCESS_TOKEN_TTL_S * 1000;
    const pop = popMark(single(seen, 'oauth-client-attestation-pop') as string, now);
    // The code, the offer's code (unredeemed, unexpired, still holding its subject) and the proof
    // of possession spent, and the token granted, all or nothing: one statement.
    const redeemed = await this.deps.store.redeem(
      slug,
      record.id,
      {
        offer: { id: record.offerId, tenant: slug },
        now,
        eraseAfter: tokenExpiry,
        token: {
          tenant: slug,
          tokenHash: hashToken(accessToken),
          grantId: record.offerId,
          createdAt: now,
          expiresAt: tokenExpiry,
          dpopJkt,
        },
      },
      pop,
    );
    if (redeemed === 'proof_used') throw popUsed();
    if (redeemed !== 'redeemed') {
      throw new ServiceError('invalid_grant', 'The authorization code is unknown, already used or expired.');
    }
    return {
      access_token: accessToken,
      token_type: 'DPoP',
      expires_in: ACCESS_TOKEN_TTL_S,
      c_nonce: this.deps.tokens.nonce(slug),
      c_nonce_expires_in: NONCE_TTL_S,
    };
  }
}

/** The slug of a tenant that serves the flow; `authorization_flow_off` otherwise. */
export function servedSlug(tenant: { slug: string; haipIssuance: boolean }, checks: OauthChecks): string {
  if (!servesCodeFlow(tenant, checks)) {
    throw new ServiceError(
      'authorization_flow_off',
      tenant.haipIssuance ? 'This deployment trusts no wallet attestation yet (docs/haip.md).' : undefined,
    );
  }
  return tenant.slug;
}

/**
 * The mark of a wallet attestation's proof of possession as used at this issuer, until its
 * freshness window has passed (after which the proof is refused as stale anyway): a proof
 * replayed within it, at PAR or the token endpoint, is `invalid_client` (`popUsed`). Written
 * with the write the proof lets in, all or nothing, so that a refused request leaves the proof
 * unused.
 */
export function popMark(popJwt: string, now: number): PopMark {
  const { jti, iat } = decodeJws(popJwt)?.payload ?? {};
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256) {
    throw new ServiceError('invalid_client', 'The client attestation proof of possession must carry a jti.');
  }
  const until = ((iat as number) + PROOF_WINDOW_S) * 1000;
  return { jtiHash: hashToken(jti), expiresAt: Math.max(until, now + 1), now };
}

export const popUsed = () =>
  new ServiceError('invalid_client', 'This client attestation proof of possession was used before (its jti).');
