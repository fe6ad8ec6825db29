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

/**
 * What the access-token plane reads. A token is written with the redemption that grants it
 * (OfferStore.redeem) and spent in the transaction that collects its credential
 * (IssuedCredentialStore.collect, by tenant and grant), so each rule lives in one place.
 * @tenantOwned
 */
export interface AccessTokenStore {
  /** The token if it exists, is unspent and unexpired. Reading never spends it. */
  findUsable(tokenHash: string, now: number): Promise<AccessTokenRecord | undefined>;
  /** Drops tokens that have expired, spent or not. */
  prune(now: number): Promise<void>;
}
