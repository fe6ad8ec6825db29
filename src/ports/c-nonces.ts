/**
 * OID4VCI c_nonces (adapters/crypto/c-nonce.ts): minted without a write, recognised by every
 * process on one database, each bound to the tenant that minted it.
 * @tenantOwned
 */
export interface CNonces {
  mint(tenant: string, expiresAtMs: number): string;
  /** The nonce's expiry (ms) when this tenant minted it and it has not expired; else undefined. */
  check(tenant: string, nonce: string, nowMs: number): number | undefined;
}
