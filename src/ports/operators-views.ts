/**
 * What the operators module publishes of its operator accounts (docs/architecture.md, "Tables,
 * owners and views"): names, roles, scope and status, never a password or an invitation. Every
 * `tenant` narrows to the operators scoped to that tenant; null reads every operator.
 *
 * @tenantOwned
 */
export interface OperatorsViews {
  /** Operators not removed whose username starts with `prefix` (any case), by username, at most `cap`. */
  byPrefix(prefix: string, tenant: string | null, cap: number): Promise<OperatorHit[]>;
}

export interface OperatorHit {
  username: string;
  roles: string[];
  /** The tenant it is scoped to; null for a platform operator. */
  tenant: string | null;
  status: string;
}
