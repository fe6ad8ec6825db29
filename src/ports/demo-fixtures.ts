/**
 * Clearing demonstration data (docs/operations.md, "Fixtures"): what holders and the seed made
 * with a demonstration tenant, each owning module clearing its own tables (membership, the
 * wallet, the deposit rail). Only a demonstration tenant's rows are ever touched; its identity
 * (the tenant, its keys, types and products) and what must stay for credentials already in
 * wallets (issued credentials, status lists) are kept.
 * @tenantOwned
 */
export interface DemoFixtureStore {
  /** Deletes the tenant's demonstration data; answers the rows deleted per table. Refuses a tenant that is not a demonstration one. */
  clear(tenant: string): Promise<Record<string, number>>;
}
