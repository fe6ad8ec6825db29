import { ROLE_MATRIX } from '../../http/admin/role-matrix.ts';

/**
 * Who may do what under /api/admin/integration (docs/webhooks.md and docs/integration.md, the
 * tables of roles): the back office's role matrix rows for webhooks, tokens, contracts and
 * deposits.
 */
export const INTEGRATION_READ = ROLE_MATRIX.integrationRead;
export const INTEGRATION_WRITE = ROLE_MATRIX.integrationWrite;
export const INTEGRATION_MINT = ROLE_MATRIX.integrationMint;
export const INTEGRATION_SECRETS = ROLE_MATRIX.integrationSecrets;
