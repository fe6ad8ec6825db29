import { AccountMismatch, Forbidden } from '../../core/errors.ts';
import type { HolderPrincipal } from './holder-jws.ts';
import type { OperatorPrincipal } from './operator-bearer.ts';

/**
 * Interface spec, Authentication 5: a tenant-scoped operator acts on its own tenant only, and
 * every mutation names the tenant, so a body with no tenant fails closed at schema validation.
 */
export function assertTenantScope(principal: OperatorPrincipal, tenant: string): void {
  // A partner session is its partner's tenant's, or no tenant's before it is linked: never all.
  if (principal.partner && principal.tenant !== tenant) {
    throw new Forbidden(`A partner session acts on its partner's tenant only, not on ${tenant}.`);
  }
  if (principal.tenant !== null && principal.tenant !== tenant) {
    throw new Forbidden(`This credential is scoped to tenant ${principal.tenant} and cannot act on ${tenant}.`);
  }
}

/** Operations that reach across tenants (creating one, for example) need a platform-wide credential. */
export function assertPlatformWide(principal: OperatorPrincipal): void {
  if (principal.tenant !== null || principal.partner)
    throw new Forbidden('A tenant-scoped credential cannot perform platform operations.');
}

/** Interface spec, Holder JWS 5: a path's `{accountId}` must be the signer's thumbprint. */
export function assertOwnAccount(principal: HolderPrincipal, accountId: string): void {
  if (principal.accountId !== accountId) throw new AccountMismatch();
}
