/** OID4VCI access tokens: single-use bearers that authorise one credential collection. */
export interface AccessTokenRecord {
  tenant: string;
  tokenHash: string;
  grantId: string;
  createdAt: number;
  expiresAt: number;
}

/** Tenant-owned: consumption names the tenant, so one tenant can never spend another's token. */
export interface AccessTokenStore {
  issue(token: AccessTokenRecord): Promise<void>;
  /** The token if it exists, is unspent and unexpired. Reading never spends it. */
  findUsable(tokenHash: string, now: number): Promise<AccessTokenRecord | undefined>;
  /** One conditional write: true for exactly one caller, false if spent, expired or another tenant's. */
  consume(tenant: string, tokenHash: string, now: number): Promise<boolean>;
}
