/**
 * What the directory module publishes of its listings (docs/architecture.md, "Tables, owners and
 * views"): whether an account is listed, never its name or contacts. A `tenant` narrows to the
 * listings in that tenant's community; null reads every community.
 *
 * @tenantOwned
 */
export interface DirectoryViews {
  /** Whether the account is listed in the holder directory (in the tenant's community, when one is named). */
  listed(accountId: string, tenant: string | null): Promise<boolean>;
}
