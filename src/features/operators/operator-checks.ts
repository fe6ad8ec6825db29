import type { Actor } from '../../core/actor.ts';
import { ServiceError } from '../../core/errors.ts';
import type { OperatorRecord, OperatorStore } from '../../ports/operator-store.ts';

/** What the operator service's parts check alike, and how they refuse (docs/operators.md). */

/** The username an actor acts as, for `created_by` and the four-eyes links; null for the owner token. */
export const usernameOf = (actor: Actor): string | null => (actor.kind === 'operator' ? actor.username : null);

export const unique = <T>(xs: T[]): T[] => [...new Set(xs)];

/** The operator, unless it is unknown or removed (`unknown_operator`). */
export async function requireOperator(operators: Pick<OperatorStore, 'get'>, username: string): Promise<OperatorRecord> {
  const op = await operators.get(username);
  if (!op || op.status === 'removed') throw unknownOperator(username);
  return op;
}

/** A tenant scope naming a tenant that exists (`unknown_tenant` otherwise), or none. */
export async function checkTenant(
  tenantExists: (slug: string) => Promise<boolean>,
  tenant: string | null,
): Promise<string | null> {
  if (tenant !== null && !(await tenantExists(tenant))) {
    throw new ServiceError('unknown_tenant', `No tenant has the slug "${tenant}".`);
  }
  return tenant;
}

export const unknownOperator = (username: string) =>
  new ServiceError('unknown_operator', `No operator "${username}" (or it was removed).`);

/** The console's direct changes refuse what only an approval may do (docs/operators.md). */
export const needsApproval = (what: string) =>
  new ServiceError(
    'approval_required',
    `${what} needs a second owner: the back office (POST /api/admin/people/operators/{username}/roles, /suspend or /remove) files it for approval.`,
  );

export const identityTaken = () => new ServiceError('identity_linked', 'This enterprise identity is linked to another operator.');
