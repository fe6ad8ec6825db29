import type { OperatorRecord } from './operator-store.ts';
import type { TenantWindow, TimeKeyset } from './view-records.ts';

/**
 * What the operators module publishes of its operator accounts (docs/architecture.md, "Tables,
 * owners and views"): names, roles, scope and status, never a password or an invitation. Every
 * `tenant` narrows to the operators scoped to that tenant; null reads every operator.
 *
 * @tenantOwned
 */
export interface OperatorsViews {
  /** Operators not removed whose username starts with `prefix` (any case), by username, at most `cap`. */
  byPrefix(prefix: string, tenant: string | null, cap: number): Promise<OperatorSummary[]>;
  /** The usernames of the active operators holding one of `roles`, by username. */
  activeHolding(roles: readonly string[]): Promise<string[]>;
  /** The operators scoped to each of `tenants` that hold the tenant-admin role, removed ones left out; by username. */
  tenantAdmins(tenants: readonly string[]): Promise<TenantAdmin[]>;
  /** Suspended and removed operators, by the time of that change then username, descending, at most `limit`. */
  offboarded(filter: TenantWindow & { before?: TimeKeyset; limit: number }): Promise<OffboardedOperator[]>;
  /**
   * The operator a session bearer (by its hash) signs in, while the session lives, whatever the
   * operator's status: the operator plane admits an active one only (http/auth/operator-bearer.ts).
   */
  sessionOperator(tokenHash: string, now: number): Promise<OperatorSummary | undefined>;
}

/**
 * An operator as the module publishes it: its record's public part, the OperatorView the
 * operations answer (features/operators/schemas.ts).
 */
export type OperatorSummary = Pick<OperatorRecord, 'username' | 'roles' | 'tenant' | 'status'>;

/** A tenant-admin operator of a tenant. */
export type TenantAdmin = Pick<OperatorRecord, 'username' | 'status'> & { tenant: string };

export type OffboardedOperator = Pick<OperatorRecord, 'username' | 'tenant'> & {
  status: Extract<OperatorRecord['status'], 'suspended' | 'removed'>;
  /** When its status last changed. */
  since: number;
};
