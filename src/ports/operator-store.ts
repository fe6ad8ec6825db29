export const OPERATOR_ROLES = ['owner', 'issuer', 'verifier', 'analyst', 'auditor', 'ops', 'support', 'tenant-admin'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];
export type OperatorStatus = 'active' | 'suspended' | 'removed';

export interface OperatorRecord {
  username: string;
  passwordHash: string;
  roles: OperatorRole[];
  /** A tenant-scoped operator acts on this tenant only; null for platform operators. */
  tenant: string | null;
  status: OperatorStatus;
  failedAttempts: number;
  lockedUntil: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface OperatorStore {
  /** False when the username exists (in any status). */
  create(op: OperatorRecord): Promise<boolean>;
  get(username: string): Promise<OperatorRecord | undefined>;
  /** Each update returns false when the operator does not exist or is removed. */
  /** Sets the roles and, unless `tenant` is undefined, the tenant scope. */
  setRoles(username: string, roles: OperatorRole[], tenant: string | null | undefined, now: number): Promise<boolean>;
  setStatus(username: string, status: OperatorStatus, now: number): Promise<boolean>;
  /** Counts a failed sign-in atomically; locks the account for `lockMs` once `maxFailures` is reached. */
  recordFailedLogin(username: string, now: number, maxFailures: number, lockMs: number): Promise<void>;
  clearFailedLogins(username: string, now: number): Promise<void>;
}

export interface OperatorSession {
  username: string;
  expiresAt: number;
}

export interface OperatorSessionStore {
  create(tokenHash: string, username: string, now: number, expiresAt: number): Promise<void>;
  find(tokenHash: string, now: number): Promise<OperatorSession | undefined>;
  revokeAll(username: string): Promise<void>;
  /** Deletes sessions that have expired. */
  prune(now: number): Promise<void>;
}
