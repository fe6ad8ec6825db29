import type { Migration, MigrationProvider } from 'kysely';
import { foundation } from './0001-foundation.ts';
import { issuance } from './0002-issuance.ts';
import { verification } from './0003-verification.ts';
import { auditOutboxJobs } from './0004-audit-outbox-jobs.ts';
import { verificationAgeIndex } from './0005-verification-age-index.ts';
import { membership } from './0006-membership.ts';
import { walletItems } from './0007-wallet-items.ts';
import { channels } from './0008-channels.ts';
import { deposits } from './0009-deposits.ts';
import { sharing } from './0010-sharing.ts';
import { walletProviders } from './0011-wallet-providers.ts';
import { statusListRevision } from './0012-status-list-revision.ts';
import { webhooks } from './0013-webhooks.ts';
import { integrationTokens } from './0014-integration-tokens.ts';
import { depositChain } from './0015-deposit-chain.ts';
import { directory } from './0016-directory.ts';
import { onboarding } from './0017-onboarding.ts';
import { accountSignin } from './0018-account-signin.ts';
import { coinEntryOrder } from './0019-coin-entry-order.ts';
import { accountErasure } from './0020-account-erasure.ts';
import { partners } from './0021-partners.ts';
import { approvals } from './0022-approvals.ts';
import { orgLifecycle } from './0023-org-lifecycle.ts';
import { operatorIdentity } from './0024-operator-identity.ts';
import { auditReads } from './0025-audit-reads.ts';
import { backofficeViews } from './0026-backoffice-views.ts';
import { signinBrowserSecret } from './0027-signin-browser-secret.ts';
import { operatorInvitations } from './0028-operator-invitations.ts';
import { provisioningApprovals } from './0029-provisioning-approvals.ts';
import { compliance } from './0030-compliance.ts';
import { operations } from './0031-operations.ts';
import { agents } from './0032-agents.ts';
import { backups } from './0033-backups.ts';
import { expiry } from './0034-expiry.ts';
import { wireFunnels } from './0035-wire-funnels.ts';
import { operatorSignIn } from './0036-operator-sign-in.ts';
import { certificates } from './0037-certificates.ts';
import { verificationProfiles } from './0038-verification-profiles.ts';
import { haipIssuance } from './0039-haip-issuance.ts';
import { sameDeviceReturn } from './0040-same-device-return.ts';
import { keyAttestation } from './0041-key-attestation.ts';
import { attestationPopJti } from './0042-attestation-pop-jti.ts';
import { refusalFunction } from './0043-refusal-function.ts';
import { complianceOnlyOne } from './0044-compliance-only-one.ts';
import { keysInHardware } from './0045-keys-in-hardware.ts';
import { rootReplacement } from './0046-root-replacement.ts';
import { typeFormats } from './0047-type-formats.ts';

/**
 * Every migration, in the order it is applied: `NNNN-what.ts` files in this folder, each
 * exporting one Migration, named here by its file name. Adding one is adding its file and its
 * line below (`migrations.test.ts` fails when a file of this folder is not listed, or a listed
 * name is not its file's). Append; never edit a shipped one. The list is written out, not read
 * from the folder, so that the bundle `npm install` builds (scripts/build.ts) carries them too.
 */
export const MIGRATIONS: ReadonlyArray<readonly [name: string, migration: Migration]> = [
  ['0001-foundation', foundation],
  ['0002-issuance', issuance],
  ['0003-verification', verification],
  ['0004-audit-outbox-jobs', auditOutboxJobs],
  ['0005-verification-age-index', verificationAgeIndex],
  ['0006-membership', membership],
  ['0007-wallet-items', walletItems],
  ['0008-channels', channels],
  ['0009-deposits', deposits],
  ['0010-sharing', sharing],
  ['0011-wallet-providers', walletProviders],
  ['0012-status-list-revision', statusListRevision],
  ['0013-webhooks', webhooks],
  ['0014-integration-tokens', integrationTokens],
  ['0015-deposit-chain', depositChain],
  ['0016-directory', directory],
  ['0017-onboarding', onboarding],
  ['0018-account-signin', accountSignin],
  ['0019-coin-entry-order', coinEntryOrder],
  ['0020-account-erasure', accountErasure],
  ['0021-partners', partners],
  ['0022-approvals', approvals],
  ['0023-org-lifecycle', orgLifecycle],
  ['0024-operator-identity', operatorIdentity],
  ['0025-audit-reads', auditReads],
  ['0026-backoffice-views', backofficeViews],
  ['0027-signin-browser-secret', signinBrowserSecret],
  ['0028-operator-invitations', operatorInvitations],
  ['0029-provisioning-approvals', provisioningApprovals],
  ['0030-compliance', compliance],
  ['0031-operations', operations],
  ['0032-agents', agents],
  ['0033-backups', backups],
  ['0034-expiry', expiry],
  ['0035-wire-funnels', wireFunnels],
  ['0036-operator-sign-in', operatorSignIn],
  ['0037-certificates', certificates],
  ['0038-verification-profiles', verificationProfiles],
  ['0039-haip-issuance', haipIssuance],
  ['0040-same-device-return', sameDeviceReturn],
  ['0041-key-attestation', keyAttestation],
  ['0042-attestation-pop-jti', attestationPopJti],
  ['0043-refusal-function', refusalFunction],
  ['0044-compliance-only-one', complianceOnlyOne],
  ['0045-keys-in-hardware', keysInHardware],
  ['0046-root-replacement', rootReplacement],
  ['0047-type-formats', typeFormats],
];

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return Object.fromEntries(MIGRATIONS);
  },
};
