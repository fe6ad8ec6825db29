import type { OperatorRole } from '../../ports/operator-store.ts';

/**
 * Who may do what under /api/admin/integration (docs/webhooks.md and docs/integration.md, the
 * tables of roles): one matrix for webhooks, tokens, contracts and deposits. Minting a token is
 * the owners' alone and is declared at its route.
 */
export const INTEGRATION_READ: readonly OperatorRole[] = ['owner', 'ops', 'auditor', 'support', 'tenant-admin'];
export const INTEGRATION_WRITE: readonly OperatorRole[] = ['owner', 'ops', 'tenant-admin'];
