import type { Actor } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import type { Random } from '../../core/random.ts';
import type {
  OperatorFilter,
  OperatorIdentity,
  OperatorRecord,
  OperatorRole,
  OperatorSessionStore,
  OperatorStore,
} from '../../ports/operator-store.ts';
import type { Passwords } from '../../ports/passwords.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.ts';
import { checkTenant, needsApproval, requireOperator, unique, unknownOperator } from './operator-checks.ts';
import { OperatorIdentities } from './operator-identities.ts';
import { type InvitationMail, OperatorInvitations } from './operator-invitations.ts';
import { OperatorPasswords } from './operator-passwords.ts';
import { type OperatorView, operatorView } from './schemas.ts';

/** An operator after a change, with the sequence number of the change's audit entry. */
export type OperatorChange = OperatorView & { auditSeq: number };

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

/** One operator as the back office shows it: the record, its enterprise identity and its live sessions. */
export interface OperatorDetail {
  record: OperatorRecord;
  identity: OperatorIdentity | undefined;
  activeSessions: number;
}

export interface OperatorServiceDeps {
  operators: OperatorStore;
  sessions: OperatorSessionStore;
  uow: UnitOfWork;
  tenantExists: (slug: string) => Promise<boolean>;
  clock: Clock;
  random: Random;
  passwords: Passwords;
  mail: InvitationMail;
  /** Plain-http origins an identity's issuer may have (OPENRAIL_OUTBOUND_ALLOW: development and tests). */
  plainHttpIssuers: readonly string[];
}

/**
 * Operators (docs/operators.md): the one service over them, for the console's routes, sign-in and
 * the back office's people group alike. Their roles and status are changed here; their creation
 * and invitations, passwords and enterprise identities are each a part of their own, which this
 * service answers for.
 */
export class OperatorService {
  private readonly invitations: OperatorInvitations;
  private readonly passwords: OperatorPasswords;
  private readonly identities: OperatorIdentities;

  constructor(private readonly deps: OperatorServiceDeps) {
    this.invitations = new OperatorInvitations(deps);
    this.passwords = new OperatorPasswords(deps);
    this.identities = new OperatorIdentities(deps);
  }

  // The parts' operations, answered here so that a caller needs the one service.
  readonly create = (...args: Parameters<OperatorInvitations['create']>) => this.invitations.create(...args);
  readonly invite = (...args: Parameters<OperatorInvitations['invite']>) => this.invitations.invite(...args);
  readonly acceptInvitation = (...args: Parameters<OperatorInvitations['acceptInvitation']>) =>
    this.invitations.acceptInvitation(...args);
  readonly setPassword = (...args: Parameters<OperatorPasswords['setPassword']>) => this.passwords.setPassword(...args);
  readonly login = (...args: Parameters<OperatorPasswords['login']>) => this.passwords.login(...args);
  readonly checkPassword = (...args: Parameters<OperatorPasswords['checkPassword']>) => this.passwords.checkPassword(...args);
  readonly linkIdentity = (...args: Parameters<OperatorIdentities['linkIdentity']>) => this.identities.linkIdentity(...args);
  readonly unlinkIdentity = (...args: Parameters<OperatorIdentities['unlinkIdentity']>) =>
    this.identities.unlinkIdentity(...args);

  /**
   * Four eyes (docs/security.md, "Four eyes"): the audit labels of every actor that may be the
   * same person as `label`, itself included: for an operator, the operator that created or invited
   * it, those it created or invited, and those that ever shared an enterprise identity with it.
   * The owner token is no person, and linked to nothing but itself.
   */
  async samePersonAs(label: string): Promise<Set<string>> {
    const labels = new Set([label]);
    if (!label.startsWith('operator:')) return labels;
    for (const username of await this.deps.operators.relatedTo(label.slice('operator:'.length)))
      labels.add(`operator:${username}`);
    return labels;
  }

  async setRoles(
    username: string,
    roles: OperatorRole[],
    tenant: string | null | undefined,
    actor: Actor,
  ): Promise<OperatorChange> {
    await requireOperator(this.deps.operators, username);
    // Undefined keeps the scope: the update leaves the column alone rather than writing back a
    // value read earlier, which a concurrent change of scope could have made stale.
    const scope = tenant === undefined ? undefined : await checkTenant(this.deps.tenantExists, tenant);
    return this.deps.uow.run(async () => {
      const target = await this.deps.operators.get(username);
      if (target && demotesOwner(target, roles, scope)) throw needsApproval(`Taking the owner role away from ${username}`);
      if (target && actor.kind === 'operator' && grantsOwner(target, roles, scope)) {
        throw needsApproval(`Granting the owner role to ${username}`);
      }
      return this.changeRoles(username, roles, scope, actor);
    });
  }

  /**
   * The role change without the owner checks, for a caller that made them (the back office,
   * docs/backoffice/people.md: `changeUnapproved`, `changeApproved`); the tenant scope must be
   * checked already. Called inside the caller's unit of work, its own joins it.
   */
  async changeRoles(
    username: string,
    roles: OperatorRole[],
    scope: string | null | undefined,
    actor: Actor,
  ): Promise<OperatorChange> {
    return this.deps.uow.run(async ({ audit }) => {
      const { operators } = this.deps;
      if (!(await operators.setRoles(username, unique(roles), scope, this.deps.clock.now()))) throw unknownOperator(username);
      const after = await operators.get(username);
      if (!after) throw unknownOperator(username);
      const auditSeq = await audit.append({
        actor,
        action: 'operator.roles_changed',
        tenant: after.tenant,
        target: username,
        detail: { roles: after.roles },
      });
      return { ...operatorView(after), auditSeq };
    });
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
   * A suspended operator's sessions stop working while suspended (the plane reads the status) and
   * work again once enabled; removal is final and deletes them in the same transaction.
   */
  private async setStatus(username: string, status: OperatorRecord['status'], actor: Actor): Promise<OperatorChange> {
    return this.deps.uow.run(async () => {
      const target = await this.deps.operators.get(username);
      if (status !== 'active' && target?.roles.includes('owner')) throw needsApproval(`Making owner ${username} ${status}`);
      return this.changeStatus(username, status, actor);
    });
  }

  /**
   * The status change without the owner check, for a caller that made it (the back office's
   * `changeUnapproved`, `changeApproved`). Called inside the caller's unit of work, its own joins it.
   */
  async changeStatus(username: string, status: OperatorRecord['status'], actor: Actor): Promise<OperatorChange> {
    return this.deps.uow.run(async ({ audit }) => {
      const { operators, sessions } = this.deps;
      // An invited operator is removed (its invitation withdrawn) but never enabled or suspended:
      // that would make an account without its person's password look like one that has it.
      if (status !== 'removed' && (await operators.get(username))?.status === 'invited') {
        throw new ServiceError('operator_state', `${username} is invited: remove it, or let its person accept the invitation.`);
      }
      if (!(await operators.setStatus(username, status, this.deps.clock.now()))) throw unknownOperator(username);
      if (status === 'removed') {
        await sessions.revokeAll(username);
        await operators.unlinkIdentity(username);
      }
      const after = await operators.get(username);
      if (!after) throw unknownOperator(username);
      const auditSeq = await audit.append({
        actor,
        action: `operator.${STATUS_ACTIONS[status]}`,
        tenant: after.tenant,
        target: username,
      });
      return { ...operatorView(after), auditSeq };
    });
  }

  /** The back office's list (docs/backoffice/people.md): by username, after `after`, at most `limit`. */
  list(filter: OperatorFilter, limit: number, after?: string): Promise<OperatorRecord[]> {
    return this.deps.operators.list(filter, limit, after);
  }

  /** The operator, removed ones included (the back office keeps their history). */
  record(username: string): Promise<OperatorRecord | undefined> {
    return this.deps.operators.get(username);
  }

  async detail(username: string): Promise<OperatorDetail | undefined> {
    const record = await this.deps.operators.get(username);
    if (!record) return undefined;
    const [identity, activeSessions] = await Promise.all([
      this.deps.operators.identityOf(username),
      this.deps.sessions.countLive(username, this.deps.clock.now()),
    ]);
    return { record, identity, activeSessions };
  }

  /** The usernames of the active, platform-wide owner operators. */
  platformOwners(): Promise<string[]> {
    return this.deps.operators.platformOwners();
  }

  /**
   * A role or status change no second owner approves (the back office's direct path), in a
   * transaction of its own: the target's row is held and read again, and a target that now needs
   * an approval (its roles changed meanwhile) is refused rather than demoted or promoted without one.
   */
  async changeUnapproved(
    username: string,
    needsApproval: (target: OperatorRecord) => boolean,
    run: () => Promise<OperatorChange>,
  ): Promise<OperatorChange> {
    return this.deps.uow.run(async () => {
      const target = await this.deps.operators.lock(username);
      if (!target || target.status === 'removed') throw unknownOperator(username);
      if (needsApproval(target)) {
        throw new ServiceError(
          'conflict',
          `${username} changed meanwhile, so this change now needs a second owner: send it again to file it for approval.`,
        );
      }
      return run();
    });
  }

  /**
   * An owner change a second owner approved, called inside the approval's transaction (which the
   * service's unit of work joins): the active platform owners' rows are held before the target's,
   * in one order, so concurrent changes queue rather than deadlock, and a change that would leave
   * no active platform owner (`keeps` false for the last one) is refused.
   */
  async changeApproved(
    username: string,
    prepare: (target: OperatorRecord) => Promise<{ keeps: boolean; run: () => Promise<OperatorChange> }>,
  ): Promise<OperatorChange> {
    return this.deps.uow.run(async () => {
      const owners = await this.deps.operators.holdPlatformOwners();
      const target = await this.deps.operators.lock(username);
      if (!target || target.status === 'removed') throw unknownOperator(username);
      const { keeps, run } = await prepare(target);
      if (owners.includes(username) && !keeps && owners.length === 1) throw lastOwner(username);
      return run();
    });
  }
}

const STATUS_ACTIONS = { invited: 'invited', active: 'enabled', suspended: 'suspended', removed: 'removed' } as const;

/** Refused: the change would leave no active platform owner. */
export const lastOwner = (username: string) =>
  new ServiceError(
    'last_owner',
    `${username} is the last active platform owner operator: make another operator owner first (the owner token does not count).`,
  );
