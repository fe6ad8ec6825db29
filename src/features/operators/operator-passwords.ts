import type { Actor } from '../../core/actor.ts';
import { Forbidden, ServiceError } from '../../core/errors.ts';
import { hashToken, newToken } from '../../core/secrets.ts';
import { NO_PASSWORD, type OperatorRecord } from '../../ports/operator-store.ts';
import { requireOperator, unknownOperator, usernameOf } from './operator-checks.ts';
import { checkPassword } from './operator-credentials.ts';
import type { OperatorChange, OperatorServiceDeps } from './operator-service.ts';
import { type LoginAnswer, operatorView } from './schemas.ts';

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const MAX_FAILED_LOGINS = 5;
export const LOCKOUT_MS = 15 * 60 * 1000;

const BAD_LOGIN = () =>
  new ServiceError('invalid_credentials', 'The username or password is wrong, or this operator cannot sign in.');

/**
 * Operators' passwords (docs/operators.md, "Sign-in" and "In the back office"): the sign-in check
 * with its lock-out, the session bearer of POST /api/login, and a password changed by the operator
 * itself.
 */
export class OperatorPasswords {
  constructor(private readonly deps: OperatorServiceDeps) {}

  /**
   * A new password under the same policy (docs/operators.md, "In the back office"), set by the
   * operator itself (proving its current one, when it has one) or by the break-glass owner token;
   * never by another operator, who sends a reset instead (`invite`). Every session of the operator
   * ends, failed sign-ins and any lock are cleared; the audit entry carries no secret.
   */
  async setPassword(username: string, password: string, actor: Actor, currentPassword?: string): Promise<OperatorChange> {
    const target = await requireOperator(this.deps.operators, username);
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
    return this.deps.uow.run(async ({ audit }) => {
      if (!(await this.deps.operators.setPassword(username, hash, this.deps.clock.now()))) throw unknownOperator(username);
      await this.deps.sessions.revokeAll(username);
      const after = await this.deps.operators.get(username);
      if (!after) throw unknownOperator(username);
      const auditSeq = await audit.append({ actor, action: 'operator.password_changed', tenant: after.tenant, target: username });
      return { ...operatorView(after), auditSeq };
    });
  }

  async login(username: string, password: string): Promise<LoginAnswer> {
    const op = await this.checkPassword(username, password);
    const now = this.deps.clock.now();
    const token = newToken(this.deps.random, 'ors');
    await this.deps.uow.run(async ({ audit }) => {
      await this.deps.sessions.create(hashToken(token), username, now, now + SESSION_TTL_MS);
      await audit.append({
        actor: { kind: 'operator', username },
        action: 'operator.signed_in',
        tenant: op.tenant,
        target: username,
      });
    });
    return { ...operatorView(op), token, tokenType: 'Bearer', expiresIn: SESSION_TTL_MS / 1000 };
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
}
