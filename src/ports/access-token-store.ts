import type { OfferRecord } from './offer-store.ts';

/** OID4VCI access tokens: single-use bearers that authorise one credential collection. */
export interface AccessTokenRecord {
  tenant: string;
  tokenHash: string;
  grantId: string;
  createdAt: number;
  expiresAt: number;
  /** RFC 9449: the thumbprint of the DPoP key the token is bound to; null for a Bearer token. */
  dpopJkt?: string | null;
}

/** An offer's pre-authorized code spent for an access token. */
export interface Redemption {
  /** The offer whose code is spent: it must be unredeemed, unexpired and still hold its subject. */
  offer: Pick<OfferRecord, 'id' | 'tenant'>;
  now: number;
  /** Kept until the access token expires, so the wallet can still collect. */
  eraseAfter: number;
  token: AccessTokenRecord;
}

/**
 * Access tokens: written with the redemption that grants them (`redeem`, which spends the offer's
 * code in the same statement) and spent in the transaction that collects their credential
 * (IssuedCredentialStore.collect, by tenant and grant), so each rule lives in one place; the
 * access-token plane reads them.
 * @tenantOwned
 */
export interface AccessTokenStore {
  /** Spends the pre-authorized code and issues the access token, atomically; false when the code was spent. */
  redeem(r: Redemption): Promise<boolean>;
  /** The token if it exists, is unspent and unexpired. Reading never spends it. */
  findUsable(tokenHash: string, now: number): Promise<AccessTokenRecord | undefined>;
  /** Drops tokens that have expired, spent or not. */
  prune(now: number): Promise<void>;
}
