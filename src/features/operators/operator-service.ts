import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../../adapters/crypto/password.ts';
import { hashToken, newToken } from '../../adapters/crypto/secrets.ts';
import type { Actor } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import type {
  OperatorIdentity,
  OperatorRecord,
  OperatorRole,
  OperatorSessionStore,
  OperatorStore,
} from '../../ports/operator-store.ts';
import type { Recorders, UnitOfWork } from '../../ports/unit-of-work.ts';

export type OperatorStores = { operators: OperatorStore; sessions: OperatorSessionStore };
/** Operator stores and the audit trail bound to one transaction: the service's own, or a caller's (an approval's). */
export type OperatorScope = OperatorStores & Pick<Recorders, 'audit'>;

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const MAX_FAILED_LOGINS = 5;
export const LOCKOUT_MS = 15 * 60 * 1000;
export const MIN_PASSWORD_LENGTH = 12;

export interface OperatorView {
  username: string;
  roles: OperatorRole[];
  tenant: string | null;
  status: OperatorRecord['status'];
}

/** An operator after a change, with the sequence number of the change's audit entry. */
export interface OperatorChange extends OperatorView {
  auditSeq: number;
}

export interface LoginResult extends OperatorView {
  token: string;
  tokenType: 'Bearer';
  expiresIn: number;
}

const view = (op: OperatorRecord): OperatorView => ({
  username: op.username,
  roles: op.roles,
  tenant: op.tenant,
  status: op.status,
});

const BAD_LOGIN = () =>
  new ServiceError('invalid_credentials', 'The username or password is wrong, or this operator cannot sign in.');

/** Operator accounts and sign-in (docs/operators.md). */
/**
 * Whether a role change takes the owner role away from an owner (or narrows a platform owner to one
 * tenant, which takes the platform's owner operations away just as well): such a change, like
 * suspending or removing an owner, needs a second owner (docs/backoffice.md, "Four eyes").
 */
export function demotesOwner(
  target: Pick<OperatorRecord, 'roles' | 'tenant'>,
  roles: readonly string[],
  tenant: string | null | undefined,
): boolean {
  if (!target.roles.includes('owner')) return false;
  if (!roles.includes('owner')) return true;
  return target.tenant === null && tenant !== undefined && tenant !== null;
}

/**
 * Whether a role change gives the owner role's platform power to an operator that lacks it: owner
 * added to its roles, or a tenant-scoped owner made platform-wide. Asked for by an operator, such a
 * change needs a second owner too; the break-glass owner token grants it directly (it is how a
 * deployment gets its first owners).
 */
export function grantsOwner(
  target: Pick<OperatorRecord, 'roles' | 'tenant'>,
  roles: readonly string[],
  tenant: string | null | undefined,
): boolean {
  if (!roles.includes('owner')) return false;
  return !target.roles.includes('owner') || (target.tenant !== null && tenant === null);
}

/** The console's direct changes refuse what only an approval may do (docs/operators.md). */
const needsApproval = (what: string) =>
  new ServiceError(
    'approval_required',
    `${what} needs a second owner: the back office (POST /api/admin/people/operators/{username}/roles, /suspend or /remove) files it for approval.`,
  );

export class OperatorService {
  constructor(
    private readonly operators: OperatorStore,
    private readonly uow: UnitOfWork<OperatorStores>,
    private readonly tenantExists: (slug: string) => Promise<boolean>,
    private readonly clock: Clock,
  ) {}

  async create(
    input: { username: string; password: string; roles: OperatorRole[]; tenant?: string | null },
    actor: Actor,
  ): Promise<OperatorChange> {
    checkPassword(input.password, input.username);
    if (actor.kind === 'operator' && input.roles.includes('owner')) {
      throw needsApproval(`Creating ${input.username} with the owner role (create it without, then grant owner)`);
    }
    const tenant = await this.checkTenant(input.tenant ?? null);
    const now = this.clock.now();
    const record: OperatorRecord = {
      username: input.username,
      passwordHash: await hashPassword(input.password),
      roles: unique(input.roles),
      tenant,
      status: 'active',
      failedAttempts: 0,
      lockedUntil: null,
      createdAt: now,
      updatedAt: now,
    };
    return this.uow.run(async ({ operators, audit }) => {
      if (!(await operators.create(record))) {
        throw new ServiceError(
          'conflict',
          `The username "${input.username}" is taken (usernames of removed operators stay reserved).`,
        );
      }
      const auditSeq = await audit.append({
        actor,
        action: 'operator.created',
        tenant,
        target: record.username,
        detail: { roles: record.roles },
      });
      return { ...view(record), auditSeq };
    });
  }

  async setRoles(
    username: string,
    roles: OperatorRole[],
    tenant: string | null | undefined,
    actor: Actor,
  ): Promise<OperatorChange> {
    await this.require(username);
    // Undefined keeps the scope: the update leaves the column alone rather than writing back a
    // value read earlier, which a concurrent change of scope could have made stale.
    const scope = tenant === undefined ? undefined : await this.checkTenant(tenant);
    return this.uow.run(async (stores) => {
      const target = await stores.operators.get(username);
      if (target && demotesOwner(target, roles, scope)) throw needsApproval(`Taking the owner role away from ${username}`);
      if (target && actor.kind === 'operator' && grantsOwner(target, roles, scope)) {
        throw needsApproval(`Granting the owner role to ${username}`);
      }
      return this.changeRoles(stores, username, roles, scope, actor);
    });
  }

  /**
   * The role change inside a transaction the caller holds (the back office's approvals,
   * docs/backoffice/people.md); the tenant scope must be checked already.
   */
  async changeRoles(
    { operators, audit }: OperatorScope,
    username: string,
    roles: OperatorRole[],
    scope: string | null | undefined,
    actor: Actor,
  ): Promise<OperatorChange> {
    if (!(await operators.setRoles(username, unique(roles), scope, this.clock.now()))) throw unknown(username);
    const after = await operators.get(username);
    if (!after) throw unknown(username);
    const auditSeq = await audit.append({
      actor,
      action: 'operator.roles_changed',
      tenant: after.tenant,
      target: username,
      detail: { roles: after.roles },
    });
    return { ...view(after), auditSeq };
  }

  async suspend(username: string, actor: Actor): Promise<OperatorChange> {
    return this.setStatus(username, 'suspended', actor);
  }

  async enable(username: string, actor: Actor): Promise<OperatorChange> {
    return this.setStatus(username, 'active', actor);
  }

  /** Removal is final: sessions end now, any identity link goes, and the username stays reserved. */
  async remove(username: string, actor: Actor): Promise<OperatorChange> {
    return this.setStatus(username, 'removed', actor);
  }

  /**
   * A new password under the same policy (docs/backoffice/people.md). Every session of the
   * operator ends, failed sign-ins and any lock are cleared; the audit entry carries no secret.
   */
  async setPassword(username: string, password: string, actor: Actor): Promise<OperatorChange> {
    await this.require(username);
    checkPassword(password, username);
    const hash = await hashPassword(password);
    return this.uow.run(async ({ operators, sessions, audit }) => {
      if (!(await operators.setPassword(username, hash, this.clock.now()))) throw unknown(username);
      await sessions.revokeAll(username);
      const after = await operators.get(username);
      if (!after) throw unknown(username);
      const auditSeq = await audit.append({ actor, action: 'operator.password_changed', tenant: after.tenant, target: username });
      return { ...view(after), auditSeq };
    });
  }

  /** Links an enterprise identity to the operator, in place of its previous one; one identity, one operator. */
  async linkIdentity(username: string, identity: { issuer: string; subject: string }, actor: Actor): Promise<OperatorChange> {
    const now = this.clock.now();
    return this.uow.run(async ({ operators, audit }) => {
      const linked = await operators.linkIdentity(username, { ...identity, linkedAt: now }, now);
      if (linked === 'unknown') throw unknown(username);
      if (linked === 'taken') {
        throw new ServiceError('identity_linked', 'This enterprise identity is linked to another operator.');
      }
      const after = await operators.get(username);
      if (!after) throw unknown(username);
      const auditSeq = await audit.append({
        actor,
        action: 'operator.idp_linked',
        tenant: after.tenant,
        target: username,
        detail: { issuer: identity.issuer, subject: identity.subject },
      });
      return { ...view(after), auditSeq };
    });
  }

  /** Removes the operator's identity link, if it has one (the entry says which it was). */
  async unlinkIdentity(username: string, actor: Actor): Promise<OperatorChange> {
    await this.require(username);
    return this.uow.run(async ({ operators, audit }) => {
      const after = await operators.get(username);
      if (!after || after.status === 'removed') throw unknown(username);
      const was = await operators.unlinkIdentity(username);
      const auditSeq = await audit.append({
        actor,
        action: 'operator.idp_unlinked',
        tenant: after.tenant,
        target: username,
        detail: was ? { issuer: was.issuer, subject: was.subject } : {},
      });
      return { ...view(after), auditSeq };
    });
  }

  async identityOf(username: string): Promise<OperatorIdentity | undefined> {
    return this.operators.identityOf(username);
  }

  async login(username: string, password: string): Promise<LoginResult> {
    const now = this.clock.now();
    const op = await this.operators.get(username);
    // Verify even for an unknown user so that timing does not reveal which usernames exist.
    const passwordOk = await verifyPassword(password, op?.passwordHash ?? DUMMY_PASSWORD_HASH);
    if (op?.status !== 'active') throw BAD_LOGIN();
    if (op.lockedUntil !== null && op.lockedUntil > now) throw BAD_LOGIN();
    if (!passwordOk) {
      await this.operators.recordFailedLogin(username, now, MAX_FAILED_LOGINS, LOCKOUT_MS);
      throw BAD_LOGIN();
    }
    const token = newToken('ors');
    await this.uow.run(async ({ operators, sessions, audit }) => {
      if (op.failedAttempts > 0 || op.lockedUntil !== null) await operators.clearFailedLogins(username, now);
      await sessions.create(hashToken(token), username, now, now + SESSION_TTL_MS);
      await audit.append({
        actor: { kind: 'operator', username },
        action: 'operator.signed_in',
        tenant: op.tenant,
        target: username,
      });
    });
    return { ...view(op), token, tokenType: 'Bearer', expiresIn: SESSION_TTL_MS / 1000 };
  }

  /**
   * A suspended operator's sessions stop working while suspended (the plane reads the status) and
   * work again once enabled; removal is final and deletes them in the same transaction.
   */
  private async setStatus(username: string, status: OperatorRecord['status'], actor: Actor): Promise<OperatorChange> {
    return this.uow.run(async (stores) => {
      const target = await stores.operators.get(username);
      if (status !== 'active' && target?.roles.includes('owner')) throw needsApproval(`Making owner ${username} ${status}`);
      return this.changeStatus(stores, username, status, actor);
    });
  }

  /** The status change inside a transaction the caller holds (the back office's approvals). */
  async changeStatus(
    { operators, sessions, audit }: OperatorScope,
    username: string,
    status: OperatorRecord['status'],
    actor: Actor,
  ): Promise<OperatorChange> {
    if (!(await operators.setStatus(username, status, this.clock.now()))) throw unknown(username);
    if (status === 'removed') {
      await sessions.revokeAll(username);
      await operators.unlinkIdentity(username);
    }
    const after = await operators.get(username);
    if (!after) throw unknown(username);
    const auditSeq = await audit.append({
      actor,
      action: `operator.${STATUS_ACTIONS[status]}`,
      tenant: after.tenant,
      target: username,
    });
    return { ...view(after), auditSeq };
  }

  private async require(username: string): Promise<OperatorRecord> {
    const op = await this.operators.get(username);
    if (!op || op.status === 'removed') throw unknown(username);
    return op;
  }

  private async checkTenant(tenant: string | null): Promise<string | null> {
    if (tenant !== null && !(await this.tenantExists(tenant))) {
      throw new ServiceError('unknown_tenant', `No tenant has the slug "${tenant}".`);
    }
    return tenant;
  }
}

const unique = <T>(xs: T[]): T[] => [...new Set(xs)];

const STATUS_ACTIONS = { active: 'enabled', suspended: 'suspended', removed: 'removed' } as const;

const unknown = (username: string) => new ServiceError('unknown_operator', `No operator "${username}" (or it was removed).`);

function checkPassword(password: string, username: string): void {
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    throw new ServiceError('weak_password', `The password must have at least ${MIN_PASSWORD_LENGTH} characters.`);
  }
  if (password.toLowerCase().includes(username.toLowerCase())) {
    throw new ServiceError('weak_password', 'The password must not contain the username.');
  }
}
