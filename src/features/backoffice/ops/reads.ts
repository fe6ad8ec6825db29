import type { ApprovalsViews } from '../../../ports/approvals-views.ts';
import type { IssuanceViews } from '../../../ports/issuance-views.ts';
import type { KernelViews } from '../../../ports/kernel-views.ts';
import type { OffersViews } from '../../../ports/offers-views.ts';
import type { OpsViews } from '../../../ports/ops-views.ts';
import type { TenantsViews } from '../../../ports/tenants-views.ts';
import type { VerificationViews } from '../../../ports/verification-views.ts';
import type { WalletViews } from '../../../ports/wallet-views.ts';
import type { WebhooksViews } from '../../../ports/webhooks-views.ts';

/**
 * What the operations group reads (docs/operations.md): the views each owner publishes of its
 * tables (docs/architecture.md, "Tables, owners and views"), composed here, and the back office's
 * own. Nothing here writes.
 */
export interface OpsReads {
  /** The audit chain, the outbox, job leases, signing keys, mail outcomes. */
  kernel: KernelViews;
  /** Issued credentials and status lists. */
  issuance: IssuanceViews;
  offers: OffersViews;
  /** The hosted verifier's transactions and their daily counts. */
  verification: VerificationViews;
  webhooks: WebhooksViews;
  approvals: ApprovalsViews;
  /** Wallet items. */
  wallet: WalletViews;
  tenants: TenantsViews;
  /** The back office's own tables (data-subject requests). */
  own: OpsViews;
}
