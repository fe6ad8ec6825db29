/**
 * Whether an issuer serves the OID4VCI authorization code flow (docs/haip.md, "Issuance"): its HAIP
 * issuance is on, and the deployment trusts a wallet provider (HAIP 1.0 §4 authenticates the
 * wallet by its attestation; with no trusted provider every client would be refused). The one
 * rule for everything that says so: the authorization server metadata lists the flow, PAR and the
 * rest of the flow answer, and a credential offer offers the `authorization_code` grant
 * (`issuer_state`), exactly where it holds.
 */
export function servesCodeFlow(issuer: { haipIssuance: boolean }, deployment: { trustsWallets: boolean }): boolean {
  return issuer.haipIssuance && deployment.trustsWallets;
}
