import type { IntegrationTokenRecord } from './integration-token-store.ts';

/**
 * What the integration module publishes of its keys (docs/architecture.md, "Tables, owners and
 * views"): the records without a secret (only its hash is ever kept). A partner's keys are found by
 * the partner, a key by its id, whatever their tenant: the partners module then checks whose they
 * are, by design.
 * @tenantOwned
 */
export interface IntegrationViews {
  /** A partner's keys, newest first, at most `limit`. */
  partnerKeys(partnerId: string, limit: number): Promise<IntegrationTokenRecord[]>;
  /** One key by id. */
  key(id: string): Promise<IntegrationTokenRecord | undefined>;
  /** The active key a bearer (by its hash) is, whatever its tenant: the operator plane's read on every key request. */
  activeKey(tokenHash: string): Promise<IntegrationTokenRecord | undefined>;
}
