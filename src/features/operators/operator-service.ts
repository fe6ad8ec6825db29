import { type Actor, actorLabel } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { Forbidden, ServiceError } from '../../core/errors.ts';
import type { Random } from '../../core/random.ts';
import { hashToken, newToken } from '../../core/secrets.ts';
import type { Mailer } from '../../ports/mailer.ts';
import {
  NO_PASSWORD,
  type OperatorFilter,
  type OperatorIdentity,
  type OperatorRecord,
  type OperatorRole,
  type OperatorSessionStore,
  type OperatorStore,
} from '../../ports/operator-store.ts';
import type { Passwords } from '../../ports/passwords.ts';
import type { Recorders, UnitOfWork } from '../../ports/unit-of-work.ts';
import { checkIssuer, checkPassword, type FirstCredential, INVITATION_TTL_MS, invitationMail } from './operator-credentials.ts';

export type OperatorStores = { operators: OperatorStore; sessions: OperatorSessionStore };
/** Operator stores and the audit trail bound to one transaction: the service's own, or a caller's (an approval's). */
export type OperatorScope = OperatorStores & Pick<Recorders, 'audit'>;

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const MAX_FAILED_LOGINS = 5;
export const LOCKOUT_MS = 15 * 60 * 1000;

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

/** Where invitations go out from, and what they say this deployment is. */
export interface InvitationMail {
  mailer: Mailer;
  platform: { name: string; origin: string };
}

/** The username an actor acts as, for `created_by` and the four-eyes links; null for the owner token. */
const usernameOf = (actor: Actor): string | null => (actor.kind === 'operator' ? actor.username : null);

/** One operator as the back office shows it: the record, its enterprise identity and its live sessions. */
export interface OperatorDetail {
  record: OperatorRecord;
  identity: OperatorIdentity | undefined;
  activeSessions: number;
}

export interface OperatorServiceDeps {
  operators: OperatorStore;
  sessions: OperatorSessionStore;
  uow: UnitOfWork<OperatorStores>;
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
 * the back office's people group alike.
 */
export class OperatorService {
  constructor(private readonly deps: OperatorServiceDeps) {}

  /**
   * A new operator (docs/operators.md, "Creating an operator"), signing in as its `credential`
   * says: an invitation mailed to the person, or an enterprise identity; an initial password only
   * when the break-glass owner token asks. No operator ever chooses another's password.
   */
  async create(
    input: { username: string; roles: OperatorRole[]; tenant?: string | null; credential: FirstCredential },
    actor: Actor,
  ): Promise<OperatorChange> {
    const { credential } = input;
    if (credential.kind === 'password') {
      if (actor.kind !== 'owner-token') {
        throw new Forbidden(
          'An operator never chooses another operator’s password: invite the person by e-mail, or link their enterprise identity (only the owner token sets a first password).',
        );
      }
      checkPassword(credential.password, input.username);
    }
    if (credential.kind === 'identity') checkIssuer(credential.issuer, this.deps.plainHttpIssuers);
    if (actor.kind === 'operator' && input.roles.includes('owner')) {
      throw needsApproval(`Creating ${input.username} with the owner role (create it without, then grant owner)`);
    }
    const tenant = await this.checkTenant(input.tenant ?? null);
    const now = this.deps.clock.now();
    const record: OperatorRecord = {
      username: input.username,
      passwordHash: credential.kind === 'password' ? await this.deps.passwords.hash(credential.password) : NO_PASSWORD,
      roles: unique(input.roles),
      tenant,
      status: credential.kind === 'invitation' ? 'invited' : 'active',
      failedAttempts: 0,
      lockedUntil: null,
      createdAt: now,
      updatedAt: now,
      email: credential.kind === 'invitation' ? credential.email : null,
      invitationExpiresAt: credential.kind === 'invitation' ? now + INVITATION_TTL_MS : null,
    };
    const taken = () =>
      new ServiceError('conflict', `The username "${input.username}" is taken (usernames of removed operators stay reserved).`);
    let invitation: { hash: string; expiresAt: number } | undefined;
    if (credential.kind === 'invitation') {
      if (await this.deps.operators.get(input.username)) throw taken();
      // Mailed before anything is stored, unlike a mailed code: a mail that cannot go must leave
      // no operator behind, and the audit chain cannot take an entry back. The insert follows at
      // once; a creation that then loses a race for the username leaves a link that never works.
      const secret = this.deps.random.text(32);
      await this.send(credential.email, { ...record, reset: false, secret, by: actorLabel(actor) });
      invitation = { hash: hashToken(secret), expiresAt: now + INVITATION_TTL_MS };
    }
    return this.deps.uow.run(async ({ operators, audit }) => {
      if (!(await operators.create(record, invitation, usernameOf(actor) ?? undefined))) throw taken();
      if (credential.kind === 'identity') {
        const linked = await operators.linkIdentity(record.username, { ...credential, linkedAt: now }, now);
        if (linked !== 'linked') throw identityTaken();
      }
      const auditSeq = await audit.append({
        actor,
        action: 'operator.created',
        tenant,
        target: record.username,
        detail: { roles: record.roles, via: credential.kind },
      });
      return { ...view(record), auditSeq };
    });
  }

  /**
   * Mails a new one-time link (docs/operators.md, "Invitations"): to an invited operator again
   * (to `email`, which may correct the address until the invitation is accepted), or a password
   * reset to an active operator, at the address on record. The old link stops working.
   */
  async invite(username: string, email: string | undefined, actor: Actor): Promise<OperatorChange> {
    const target = await this.require(username);
    const to = target.status === 'invited' ? (email ?? target.email) : target.email;
    if (target.status === 'active' && email !== undefined) {
      throw new Forbidden(`${username} has accepted its invitation: only ${username} changes its address.`);
    }
    // Sending an invitation to an address of one's choosing is choosing who takes the account:
    // only the operator that made the invitation (already linked to it), or the owner token.
    if (email !== undefined && actor.kind !== 'owner-token') {
      const creator = await this.deps.operators.creatorOf(username);
      if (creator === undefined || creator !== usernameOf(actor)) {
        throw new Forbidden(`Only the operator that invited ${username}, or the owner token, changes where its invitation goes.`);
      }
    }
    if ((target.status !== 'invited' && target.status !== 'active') || !to) {
      throw new ServiceError(
        'operator_state',
        `${username} is ${target.status}${to ? '' : ' and has no e-mail address'}: an invitation or reset goes to an invited, or an active operator with an address.`,
      );
    }
    const now = this.deps.clock.now();
    const secret = this.deps.random.text(32);
    await this.send(to, { ...target, reset: target.status === 'active', secret, by: actorLabel(actor) });
    const grant = { hash: hashToken(secret), expiresAt: now + INVITATION_TTL_MS };
    return this.deps.uow.run(async ({ operators, audit }) => {
      if (!(await operators.issueInvitation(username, grant, target.status === 'invited' ? email : undefined, now))) {
        throw new ServiceError('operator_state', `${username} changed meanwhile; ask again.`);
      }
      const after = await operators.get(username);
      if (!after) throw unknown(username);
      const auditSeq = await audit.append({
        actor,
        action: target.status === 'invited' ? 'operator.invited' : 'operator.password_reset_sent',
        tenant: after.tenant,
        target: username,
        detail: { expiresAt: new Date(grant.expiresAt).toISOString() },
      });
      return { ...view(after), auditSeq };
    });
  }

  /**
   * The person behind an invitation or a reset chooses a password (anonymous: the link's secret is
   * the credential). One conditional write spends the link; a reset also ends every session.
   */
  async acceptInvitation(secret: string, password: string): Promise<OperatorView> {
    const hash = hashToken(secret);
    const holder = await this.deps.operators.findByInvitation(hash, this.deps.clock.now());
    if (!holder) throw invitationUnavailable();
    checkPassword(password, holder.username);
    const passwordHash = await this.deps.passwords.hash(password);
    const now = this.deps.clock.now();
    return this.deps.uow.run(async ({ operators, sessions, audit }) => {
      const username = await operators.acceptInvitation(hash, passwordHash, now);
      if (!username) throw invitationUnavailable();
      await sessions.revokeAll(username);
      const after = await operators.get(username);
      if (!after) throw invitationUnavailable();
      await audit.append({
        actor: { kind: 'operator', username },
        action: holder.status === 'invited' ? 'operator.invitation_accepted' : 'operator.password_changed',
        tenant: after.tenant,
        target: username,
      });
      return view(after);
    });
  }

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

  private async send(
    to: string,
    about: Pick<OperatorRecord, 'username' | 'roles' | 'tenant'> & { reset: boolean; secret: string; by: string },
  ): Promise<void> {
    const message = invitationMail({ ...about, platform: this.deps.mail.platform });
    try {
      await this.deps.mail.mailer.send({ to, ...message });
    } catch (err) {
      throw new ServiceError('mail_unavailable', 'The invitation could not be mailed; nothing was changed. Try again later.', {
        cause: err,
      });
    }
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
    return this.deps.uow.run(async (stores) => {
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
    if (!(await operators.setRoles(username, unique(roles), scope, this.deps.clock.now()))) throw unknown(username);
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
   * A new password under the same policy (docs/operators.md, "Passwords"), set by the operator
   * itself (proving its current one, when it has one) or by the break-glass owner token; never by
   * another operator, who sends a reset instead (`invite`). Every session of the operator ends,
   * failed sign-ins and any lock are cleared; the audit entry carries no secret.
   */
  async setPassword(username: string, password: string, actor: Actor, currentPassword?: string): Promise<OperatorChange> {
    const target = await this.require(username);
    if (actor.kind !== 'owner-token') {
      if (usernameOf(actor) !== username) {
        throw new Forbidden(
          `An operator never sets another operator’s password: send ${username} a reset (POST /api/admin/people/operators/${username}/invite).`,
        );
      }
      // Proven as a sign-in is, and counted as one: a stolen session cannot guess its way to a
      // new password, and a lock holds here too.
      const now = this.deps.clock.now();
      const locked = target.lockedUntil !== null && target.lockedUntil > now;
      const proven =
        target.passwordHash !== NO_PASSWORD &&
        currentPassword !== undefined &&
        (await this.deps.passwords.verify(currentPassword, target.passwordHash));
      if (!proven || locked) {
        if (!proven) await this.deps.operators.recordFailedLogin(username, now, MAX_FAILED_LOGINS, LOCKOUT_MS);
        throw new ServiceError('invalid_credentials', 'currentPassword is missing or wrong, or the account is locked.');
      }
    }
    checkPassword(password, username);
    const hash = await this.deps.passwords.hash(password);
    return this.deps.uow.run(async ({ operators, sessions, audit }) => {
      if (!(await operators.setPassword(username, hash, this.deps.clock.now()))) throw unknown(username);
      await sessions.revokeAll(username);
      const after = await operators.get(username);
      if (!after) throw unknown(username);
      const auditSeq = await audit.append({ actor, action: 'operator.password_changed', tenant: after.tenant, target: username });
      return { ...view(after), auditSeq };
    });
  }

  /**
   * Links an enterprise identity to the operator, in place of its previous one; one identity, one
   * operator. An identity is how its holder signs in, so only the operator itself or the owner
   * token links one; another operator removes a link (`unlinkIdentity`) but never sets one.
   */
  async linkIdentity(username: string, identity: { issuer: string; subject: string }, actor: Actor): Promise<OperatorChange> {
    if (actor.kind !== 'owner-token' && usernameOf(actor) !== username) {
      throw new Forbidden(`Only ${username} itself, or the owner token, links an enterprise identity to ${username}.`);
    }
    checkIssuer(identity.issuer, this.deps.plainHttpIssuers);
    const now = this.deps.clock.now();
    return this.deps.uow.run(async ({ operators, audit }) => {
      const linked = await operators.linkIdentity(username, { ...identity, linkedAt: now }, now);
      if (linked === 'unknown') throw unknown(username);
      if (linked === 'taken') throw identityTaken();
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

  /** Removes the operator's identity link, if it has one (the entry says which it was): as linking, its own or the owner token's. */
  async unlinkIdentity(username: string, actor: Actor): Promise<OperatorChange> {
    if (actor.kind !== 'owner-token' && usernameOf(actor) !== username) {
      throw new Forbidden(`Only ${username} itself, or the owner token, removes ${username}'s enterprise identity.`);
    }
    await this.require(username);
    return this.deps.uow.run(async ({ operators, audit }) => {
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
    return this.deps.operators.identityOf(username);
  }

  async login(username: string, password: string): Promise<LoginResult> {
    const op = await this.checkPassword(username, password);
    const now = this.deps.clock.now();
    const token = newToken(this.deps.random, 'ors');
    await this.deps.uow.run(async ({ sessions, audit }) => {
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
   * The operator whose username and password these are, active and not locked out; a wrong
   * password counts towards the lock-out and is refused (`401 invalid_credentials`). POST
   * /api/login and the browser's password sign-in both check with it.
   */
  async checkPassword(username: string, password: string): Promise<OperatorRecord> {
    const now = this.deps.clock.now();
    const op = await this.deps.operators.get(username);
    // Verify even for an unknown user, or one without a password, so that timing does not reveal
    // which usernames exist or how they sign in.
    const stored = op && op.passwordHash !== NO_PASSWORD ? op.passwordHash : this.deps.passwords.dummyHash;
    const passwordOk = (await this.deps.passwords.verify(password, stored)) && stored !== this.deps.passwords.dummyHash;
    if (op?.status !== 'active' || (op.lockedUntil !== null && op.lockedUntil > now) || !passwordOk) {
      // Every refusal runs the same statement, which counts a failure only for an active operator
      // outside a lock and matches nothing otherwise: the time an answer takes does not tell an
      // unknown, invited, locked or suspended username from a wrong password (docs/security.md).
      await this.deps.operators.recordFailedLogin(username, now, MAX_FAILED_LOGINS, LOCKOUT_MS);
      throw BAD_LOGIN();
    }
    if (op.failedAttempts > 0 || op.lockedUntil !== null) await this.deps.operators.clearFailedLogins(username, now);
    return op;
  }

  /**
   * A suspended operator's sessions stop working while suspended (the plane reads the status) and
   * work again once enabled; removal is final and deletes them in the same transaction.
   */
  private async setStatus(username: string, status: OperatorRecord['status'], actor: Actor): Promise<OperatorChange> {
    return this.deps.uow.run(async (stores) => {
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
    // An invited operator is removed (its invitation withdrawn) but never enabled or suspended:
    // that would make an account without its person's password look like one that has it.
    if (status !== 'removed' && (await operators.get(username))?.status === 'invited') {
      throw new ServiceError('operator_state', `${username} is invited: remove it, or let its person accept the invitation.`);
    }
    if (!(await operators.setStatus(username, status, this.deps.clock.now()))) throw unknown(username);
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
    run: (stores: OperatorScope) => Promise<OperatorChange>,
  ): Promise<OperatorChange> {
    return this.deps.uow.run(async (stores) => {
      const target = await stores.operators.lock(username);
      if (!target || target.status === 'removed') throw unknown(username);
      if (needsApproval(target)) {
        throw new ServiceError(
          'conflict',
          `${username} changed meanwhile, so this change now needs a second owner: send it again to file it for approval.`,
        );
      }
      return run(stores);
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
    prepare: (target: OperatorRecord) => Promise<{ keeps: boolean; run: (stores: OperatorScope) => Promise<OperatorChange> }>,
  ): Promise<OperatorChange> {
    return this.deps.uow.run(async (stores) => {
      const owners = await stores.operators.holdPlatformOwners();
      const target = await stores.operators.lock(username);
      if (!target || target.status === 'removed') throw unknown(username);
      const { keeps, run } = await prepare(target);
      if (owners.includes(username) && !keeps && owners.length === 1) throw lastOwner(username);
      return run(stores);
    });
  }

  private async require(username: string): Promise<OperatorRecord> {
    const op = await this.deps.operators.get(username);
    if (!op || op.status === 'removed') throw unknown(username);
    return op;
  }

  private async checkTenant(tenant: string | null): Promise<string | null> {
    if (tenant !== null && !(await this.deps.tenantExists(tenant))) {
      throw new ServiceError('unknown_tenant', `No tenant has the slug "${tenant}".`);
    }
    return tenant;
  }
}

const unique = <T>(xs: T[]): T[] => [...new Set(xs)];

const STATUS_ACTIONS = { invited: 'invited', active: 'enabled', suspended: 'suspended', removed: 'removed' } as const;

const unknown = (username: string) => new ServiceError('unknown_operator', `No operator "${username}" (or it was removed).`);

/** Refused: the change would leave no active platform owner. */
export const lastOwner = (username: string) =>
  new ServiceError(
    'last_owner',
    `${username} is the last active platform owner operator: make another operator owner first (the owner token does not count).`,
  );

const identityTaken = () => new ServiceError('identity_linked', 'This enterprise identity is linked to another operator.');

const invitationUnavailable = () =>
  new ServiceError('invitation_unavailable', 'This invitation is unknown, used or expired: ask for a new one.');
