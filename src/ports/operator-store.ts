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
  /** The back office's list (docs/backoffice/people.md): by username, after `after`, at most `limit`. */
  list(filter: OperatorFilter, limit: number, after?: string): Promise<OperatorRecord[]>;
  /** Replaces the password hash and clears failed sign-ins and any lock; false when unknown or removed. */
  setPassword(username: string, passwordHash: string, now: number): Promise<boolean>;
  identityOf(username: string): Promise<OperatorIdentity | undefined>;
  /**
   * Links the identity to the operator in place of its previous one, holding the operator's row
   * while it does: `taken` when another operator holds the identity, `unknown` when the operator
   * is unknown or removed (the caller's transaction then rolls back whatever was written).
   */
  linkIdentity(username: string, identity: OperatorIdentity, now: number): Promise<'linked' | 'taken' | 'unknown'>;
  /** Removes the operator's identity link; answers the link removed, if there was one. */
  unlinkIdentity(username: string): Promise<OperatorIdentity | undefined>;
  /** The operator an enterprise identity is linked to (for enterprise sign-in). */
  findByIdentity(issuer: string, subject: string): Promise<string | undefined>;
}

/** An enterprise identity linked to an operator: its issuer (an https URL) and its subject there. */
export interface OperatorIdentity {
  issuer: string;
  subject: string;
  linkedAt: number;
}

/** Filters of the back office's operator list; each narrows it. */
export interface OperatorFilter {
  status?: OperatorStatus;
  role?: OperatorRole;
  tenant?: string;
  /** A prefix of the username. */
  prefix?: string;
  /** The window of `createdAt`: since inclusive, until exclusive. */
  since?: number;
  until?: number;
}

export interface OperatorSession {
  username: string;
  expiresAt: number;
}

export interface OperatorSessionStore {
  create(tokenHash: string, username: string, now: number, expiresAt: number): Promise<void>;
  find(tokenHash: string, now: number): Promise<OperatorSession | undefined>;
  revokeAll(username: string): Promise<void>;
  /** How many of the operator's sessions have not expired. */
  countLive(username: string, now: number): Promise<number>;
  /** Deletes sessions that have expired. */
  prune(now: number): Promise<void>;
}
