import { type Actor, actorLabel } from '../../core/actor.ts';
import { Forbidden, ServiceError } from '../../core/errors.ts';
import { hashToken } from '../../core/secrets.ts';
import type { Mailer } from '../../ports/mailer.ts';
import { NO_PASSWORD, type OperatorRecord, type OperatorRole } from '../../ports/operator-store.ts';
import {
  checkTenant,
  identityTaken,
  needsApproval,
  requireOperator,
  unique,
  unknownOperator,
  usernameOf,
} from './operator-checks.ts';
import { checkIssuer, checkPassword, type FirstCredential, INVITATION_TTL_MS, invitationMail } from './operator-credentials.ts';
import type { OperatorChange, OperatorServiceDeps } from './operator-service.ts';
import { type OperatorView, operatorView } from './schemas.ts';

/** Where invitations go out from, and what they say this deployment is. */
export interface InvitationMail {
  mailer: Mailer;
  platform: { name: string; origin: string };
}

/**
 * Operators made and invited (docs/operators.md, "Creating an operator", "Invitations"): a new
 * operator with the one way its person signs in, the one-time links mailed to it (an invitation,
 * or a password reset), and the link spent by the person choosing a password.
 */
export class OperatorInvitations {
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
    const tenant = await checkTenant(this.deps.tenantExists, input.tenant ?? null);
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
    return this.deps.uow.run(async ({ audit }) => {
      if (!(await this.deps.operators.create(record, invitation, usernameOf(actor) ?? undefined))) throw taken();
      if (credential.kind === 'identity') {
        const linked = await this.deps.operators.linkIdentity(record.username, { ...credential, linkedAt: now }, now);
        if (linked !== 'linked') throw identityTaken();
      }
      const auditSeq = await audit.append({
        actor,
        action: 'operator.created',
        tenant,
        target: record.username,
        detail: { roles: record.roles, via: credential.kind },
      });
      return { ...operatorView(record), auditSeq };
    });
  }

  /**
   * Mails a new one-time link (docs/operators.md, "Invitations"): to an invited operator again
   * (to `email`, which may correct the address until the invitation is accepted), or a password
   * reset to an active operator, at the address on record. The old link stops working.
   */
  async invite(username: string, email: string | undefined, actor: Actor): Promise<OperatorChange> {
    const target = await requireOperator(this.deps.operators, username);
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
    return this.deps.uow.run(async ({ audit }) => {
      if (!(await this.deps.operators.issueInvitation(username, grant, target.status === 'invited' ? email : undefined, now))) {
        throw new ServiceError('operator_state', `${username} changed meanwhile; ask again.`);
      }
      const after = await this.deps.operators.get(username);
      if (!after) throw unknownOperator(username);
      const auditSeq = await audit.append({
        actor,
        action: target.status === 'invited' ? 'operator.invited' : 'operator.password_reset_sent',
        tenant: after.tenant,
        target: username,
        detail: { expiresAt: new Date(grant.expiresAt).toISOString() },
      });
      return { ...operatorView(after), auditSeq };
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
    return this.deps.uow.run(async ({ audit }) => {
      const username = await this.deps.operators.acceptInvitation(hash, passwordHash, now);
      if (!username) throw invitationUnavailable();
      await this.deps.sessions.revokeAll(username);
      const after = await this.deps.operators.get(username);
      if (!after) throw invitationUnavailable();
      await audit.append({
        actor: { kind: 'operator', username },
        action: holder.status === 'invited' ? 'operator.invitation_accepted' : 'operator.password_changed',
        tenant: after.tenant,
        target: username,
      });
      return operatorView(after);
    });
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
}

const invitationUnavailable = () =>
  new ServiceError('invitation_unavailable', 'This invitation is unknown, used or expired: ask for a new one.');
