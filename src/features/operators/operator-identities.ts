import type { Actor } from '../../core/actor.ts';
import { Forbidden } from '../../core/errors.ts';
import { identityTaken, requireOperator, unknownOperator, usernameOf } from './operator-checks.ts';
import { checkIssuer } from './operator-credentials.ts';
import type { OperatorChange, OperatorServiceDeps } from './operator-service.ts';
import { operatorView } from './schemas.ts';

/**
 * Operators' enterprise identities (docs/operators.md, "In the back office"; docs/operator-sign-in.md):
 * one identity links to one operator, by the operator itself or the owner token.
 */
export class OperatorIdentities {
  constructor(private readonly deps: OperatorServiceDeps) {}

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
    return this.deps.uow.run(async ({ audit }) => {
      const linked = await this.deps.operators.linkIdentity(username, { ...identity, linkedAt: now }, now);
      if (linked === 'unknown') throw unknownOperator(username);
      if (linked === 'taken') throw identityTaken();
      const after = await this.deps.operators.get(username);
      if (!after) throw unknownOperator(username);
      const auditSeq = await audit.append({
        actor,
        action: 'operator.idp_linked',
        tenant: after.tenant,
        target: username,
        detail: { issuer: identity.issuer, subject: identity.subject },
      });
      return { ...operatorView(after), auditSeq };
    });
  }

  /** Removes the operator's identity link, if it has one (the entry says which it was): as linking, its own or the owner token's. */
  async unlinkIdentity(username: string, actor: Actor): Promise<OperatorChange> {
    if (actor.kind !== 'owner-token' && usernameOf(actor) !== username) {
      throw new Forbidden(`Only ${username} itself, or the owner token, removes ${username}'s enterprise identity.`);
    }
    await requireOperator(this.deps.operators, username);
    return this.deps.uow.run(async ({ audit }) => {
      const after = await this.deps.operators.get(username);
      if (!after || after.status === 'removed') throw unknownOperator(username);
      const was = await this.deps.operators.unlinkIdentity(username);
      const auditSeq = await audit.append({
        actor,
        action: 'operator.idp_unlinked',
        tenant: after.tenant,
        target: username,
        detail: was ? { issuer: was.issuer, subject: was.subject } : {},
      });
      return { ...operatorView(after), auditSeq };
    });
  }
}
