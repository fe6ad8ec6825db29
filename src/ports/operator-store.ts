export const OPERATOR_ROLES = ['owner', 'issuer', 'verifier', 'analyst', 'auditor', 'ops', 'support', 'tenant-admin'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];
/** `invited`: created, its person has not yet set a password (docs/operators.md, "Invitations"). */
export type OperatorStatus = 'invited' | 'active' | 'suspended' | 'removed';

/** The password hash of an operator who has none: it never verifies. */
export const NO_PASSWORD = '!';

export interface OperatorRecord {
  username: string;
  /** An scrypt hash, or NO_PASSWORD. */
  passwordHash: string;
  roles: OperatorRole[];
  /** A tenant-scoped operator acts on this tenant only; null for platform operators. */
  tenant: string | null;
  status: OperatorStatus;
  failedAttempts: number;
  lockedUntil: number | null;
  createdAt: number;
  updatedAt: number;
  /** Where its invitation or password reset is mailed; null when none was given. */
  email: string | null;
  /** When its live invitation or password reset ends; null when there is none. */
  invitationExpiresAt: number | null;
}

/** A one-time invitation or password reset: the hash of the link's secret, and its end. */
export interface InvitationGrant {
  hash: string;
  expiresAt: number;
}

/** @tenantOwned (a scoped operator records its tenant) */
export interface OperatorStore {
  /**
   * False when the username exists (in any status). With an invitation, it is live from now; with
   * `createdBy`, that operator is linked to it (four eyes: `relatedTo`).
   */
  create(op: OperatorRecord, invitation?: InvitationGrant, createdBy?: string): Promise<boolean>;
  /** Who created or invited the operator (an operator's username), if an operator did. */
  creatorOf(username: string): Promise<string | undefined>;
  /**
   * Replaces the operator's invitation (an `invited` operator: sent again, to `email` when given)
   * or starts a password reset (an `active` operator with an e-mail); false otherwise.
   */
  issueInvitation(username: string, grant: InvitationGrant, email: string | undefined, now: number): Promise<boolean>;
  /** The invited or active operator whose live invitation has this hash. */
  findByInvitation(hash: string, now: number): Promise<OperatorRecord | undefined>;
  /**
   * Spends a live invitation, in one conditional write: the password is set, an invited operator
   * becomes active, failed sign-ins and any lock are cleared. Answers whose it was, or undefined
   * (unknown, spent, expired, or its operator no longer invited or active).
   */
  acceptInvitation(hash: string, passwordHash: string, now: number): Promise<string | undefined>;
  /**
   * The other operators that may be the same person as this one (docs/security.md, "Four eyes"):
   * up the links (who created or invited it, or set its credentials before these rules, and so on
   * up), down them (whom it created or invited, and so on down), and across a shared enterprise
   * identity at any step; never up then down, so two operators one owner invited are not linked.
   */
  relatedTo(username: string): Promise<string[]>;
  get(username: string): Promise<OperatorRecord | undefined>;
  /** Each update returns false when the operator does not exist or is removed. */
  /** Sets the roles and, unless `tenant` is undefined, the tenant scope. */
  setRoles(username: string, roles: OperatorRole[], tenant: string | null | undefined, now: number): Promise<boolean>;
  setStatus(username: string, status: OperatorStatus, now: number): Promise<boolean>;
  /**
   * Counts a failed sign-in atomically, for an active operator outside a lock (any other matches
   * nothing); locks the account for `lockMs` once `maxFailures` is reached.
   */
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
  /** The operator's row, held until the transaction ends (PostgreSQL; SQLite writes one transaction at a time). */
  lock(username: string): Promise<OperatorRecord | undefined>;
  /** The usernames of the active, platform-wide owner operators, by username. */
  platformOwners(): Promise<string[]>;
  /**
   * The same, their rows held until the transaction ends, in username order, so that concurrent
   * owner changes queue here (and re-read the rows they waited for) instead of each counting the
   * other's owner as still there.
   */
  holdPlatformOwners(): Promise<string[]>;
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
  /** Ends every session of the operator: its bearers, and its browser sessions with the bearers they made. */
  revokeAll(username: string): Promise<void>;
  /** How many of the operator's sessions have not expired. */
  countLive(username: string, now: number): Promise<number>;
  /** Deletes sessions that have expired. */
  prune(now: number): Promise<void>;
}
