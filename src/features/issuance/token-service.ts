import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import { PRE_AUTHORIZED_GRANT, txCodeHash } from '../../core/pre-authorized-code.ts';
import type { Random } from '../../core/random.ts';
import { constantTimeEqual, hashToken, newToken } from '../../core/secrets.ts';
import type { AccessTokenStore } from '../../ports/access-token-store.ts';
import type { CNonces } from '../../ports/c-nonces.ts';
import type { OfferStore } from '../../ports/offer-store.ts';
import { assertIssuing } from '../tenants/tenant-service.ts';

export const ACCESS_TOKEN_TTL_S = 300;
export const NONCE_TTL_S = 300;
/** OID4VCI 1.0 errata, "Transaction Code Guessing": wrong codes void the offer after this many. */
export const MAX_TX_CODE_ATTEMPTS = 5;

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  c_nonce: string;
  c_nonce_expires_in: number;
}

/** The token endpoint (OID4VCI 1.0 §6) and the nonce endpoint (§7) of one issuer. */
export class TokenService {
  constructor(
    private readonly offers: OfferStore,
    private readonly tokens: AccessTokenStore,
    private readonly nonces: CNonces,
    private readonly clock: Clock,
    private readonly random: Random,
  ) {}

  /**
   * The pre-authorized code grant at issuer `tenant`. Its first read is the issuer with the offer
   * of the code (one round trip, docs/scaling.md): an unknown issuer is `unknown_tenant`, a
   * suspended one an invalid grant. `dpop` then checks the request's DPoP proof and answers its
   * key, to bind the token to.
   */
  async redeem(
    tenant: string,
    form: Record<string, string>,
    dpop: () => Promise<string | undefined> = async () => undefined,
  ): Promise<TokenResponse> {
    const code = form['pre-authorized_code'];
    const { issuer, offer } = await this.offers.atIssuer(tenant, { codeHash: hashToken(code ?? '') });
    assertIssuing(tenant, issuer, (message) => new ServiceError('invalid_grant', message));
    const dpopJkt = await dpop();
    const grantType = form.grant_type;
    if (!grantType) throw new ServiceError('invalid_request', 'grant_type is required.');
    if (grantType !== PRE_AUTHORIZED_GRANT) {
      const supported = issuer.haipIssuance ? `${PRE_AUTHORIZED_GRANT} and authorization_code are` : `${PRE_AUTHORIZED_GRANT} is`;
      throw new ServiceError('unsupported_grant_type', `Only ${supported} supported.`);
    }
    if (!code) throw new ServiceError('invalid_request', 'pre-authorized_code is required.');
    const now = this.clock.now();
    if (!offer || offer.redeemedAt !== null || offer.expiresAt <= now || !offer.subject) {
      throw new ServiceError('invalid_grant', 'The pre-authorized code is unknown, already used or expired.');
    }
    const txCode = form.tx_code;
    if (offer.txCodeHash) {
      if (txCode === undefined) throw new ServiceError('invalid_request', 'This offer requires a tx_code.');
      if (!(await this.offers.claimTxAttempt(tenant, offer.id, MAX_TX_CODE_ATTEMPTS))) {
        throw new ServiceError('invalid_grant', 'Too many wrong transaction codes: this offer can no longer be redeemed.');
      }
      if (!constantTimeEqual(txCodeHash(code, txCode), offer.txCodeHash)) {
        throw new ServiceError('invalid_grant', 'The transaction code is wrong.');
      }
    } else if (txCode !== undefined) {
      throw new ServiceError('invalid_request', 'This offer does not use a tx_code.');
    }
    const accessToken = newToken(this.random, 'oat');
    const tokenExpiry = now + ACCESS_TOKEN_TTL_S * 1000;
    const redeemed = await this.tokens.redeem({
      offer,
      now,
      eraseAfter: tokenExpiry,
      token: {
        tenant,
        tokenHash: hashToken(accessToken),
        grantId: offer.id,
        createdAt: now,
        expiresAt: tokenExpiry,
        dpopJkt: dpopJkt ?? null,
      },
    });
    if (!redeemed) throw new ServiceError('invalid_grant', 'The pre-authorized code is unknown, already used or expired.');
    return {
      access_token: accessToken,
      token_type: dpopJkt ? 'DPoP' : 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_S,
      // Interface spec: c_nonce comes with the token. OID4VCI 1.0 moved it to the nonce endpoint;
      // 1.0 wallets ignore these members (standards-notes §9).
      c_nonce: this.nonce(tenant),
      c_nonce_expires_in: NONCE_TTL_S,
    };
  }

  /** A fresh c_nonce of this issuer; nothing is stored until a proof spends it. */
  nonce(tenant: string): string {
    return this.nonces.mint(tenant, this.clock.now() + NONCE_TTL_S * 1000);
  }
}
