import { authorizationCodeGrantIdentifier, decodeJwt, type Jwk } from '@openid4vc/oauth2';
import type { Clock } from '../../core/clock.ts';
import { servesCodeFlow } from '../../core/code-flow.ts';
import { ServiceError } from '../../core/errors.ts';
import type { IssuerUrls } from '../../core/issuer-urls.ts';
import type { Random } from '../../core/random.ts';
import { hashToken, newToken } from '../../core/secrets.ts';
import type { AttestationPopReplayStore } from '../../ports/attestation-pop-replay-store.ts';
import type { AuthorizationRequestStore } from '../../ports/authorization-request-store.ts';
import type { OfferStore } from '../../ports/offer-store.ts';
import type { TenantRow } from '../../ports/tenant-store.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.ts';
import { authorizationServerMetadata } from './metadata.ts';
import { type OauthChecks, PROOF_WINDOW_S, thumbprintOf } from './oauth-checks.ts';
import { type RequestSeen, refusalOf, requestLike, single } from './oauth-requests.ts';
import { ACCESS_TOKEN_TTL_S, NONCE_TTL_S, type TokenResponse, type TokenService } from './token-service.ts';

export interface CodeRedemptionDeps {
  store: AuthorizationRequestStore;
  pops: AttestationPopReplayStore;
  uow: UnitOfWork;
  offers: OfferStore;
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

  /** POST /token with grant_type=authorization_code. */
  async redeem(tenant: TenantRow, form: Record<string, string>, seen: RequestSeen): Promise<TokenResponse> {
    if (!tenant.haipIssuance) {
      throw new ServiceError(
        'unsupported_grant_type',
        'This issuer takes the pre-authorized code grant only (its HAIP issuance is off).',
      );
    }
    const slug = servedSlug(tenant, this.deps.checks);
    const code = form.code;
    if (!code) throw new ServiceError('invalid_request', 'code is required.');
    const record = await this.deps.store.findByCode(slug, hashToken(code));
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
      if (parsed.grant.grantType !== authorizationCodeGrantIdentifier) throw new Error('dispatched on grant_type');
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
    if ((await thumbprintOf(attested.cnf.jwk as Jwk)) !== record.attestationJkt) {
      throw new ServiceError(
        'invalid_client',
        'The token request comes from another wallet instance than the authorization request.',
      );
    }
    const offer = await this.deps.offers.get(slug, record.offerId);
    if (!offer) throw new ServiceError('invalid_grant', 'The authorization code is unknown, already used or expired.');
    const accessToken = newToken(this.deps.random, 'oat');
    const tokenExpiry = now + ACCESS_TOKEN_TTL_S * 1000;
    const pop = single(seen, 'oauth-client-attestation-pop') as string;
    const redeemed = await this.deps.uow.run(async () => {
      await takePop(this.deps.pops, slug, pop, now);
      return this.deps.store.redeem(slug, record.id, now, {
        offer,
        now,
        eraseAfter: tokenExpiry,
        token: {
          tenant: slug,
          tokenHash: hashToken(accessToken),
          grantId: offer.id,
          createdAt: now,
          expiresAt: tokenExpiry,
          dpopJkt,
        },
      });
    });
    if (!redeemed) throw new ServiceError('invalid_grant', 'The authorization code is unknown, already used or expired.');
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
export function servedSlug(tenant: TenantRow, checks: OauthChecks): string {
  if (!servesCodeFlow(tenant, checks)) {
    throw new ServiceError(
      'authorization_flow_off',
      tenant.haipIssuance ? 'This deployment trusts no wallet attestation yet (docs/haip.md).' : undefined,
    );
  }
  return tenant.slug;
}

/**
 * Marks a wallet attestation's proof of possession as used at this issuer, until its freshness
 * window has passed (after which the proof is refused as stale anyway): a proof replayed within
 * it, at PAR or the token endpoint, is `invalid_client`. Run in the transaction of the write the
 * proof lets in, so that a refused request leaves the proof unused.
 */
export async function takePop(pops: AttestationPopReplayStore, slug: string, popJwt: string, now: number): Promise<void> {
  const { jti, iat } = decodeJwt({ jwt: popJwt }).payload;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256) {
    throw new ServiceError('invalid_client', 'The client attestation proof of possession must carry a jti.');
  }
  const until = ((iat as number) + PROOF_WINDOW_S) * 1000;
  if (!(await pops.burn(slug, hashToken(jti), Math.max(until, now + 1), now))) {
    throw new ServiceError('invalid_client', 'This client attestation proof of possession was used before (its jti).');
  }
}
