import type { Context } from '../../../app/module.ts';
import type { CredentialTypesViews } from '../../../ports/credential-types-views.ts';
import type { DepositsViews } from '../../../ports/deposits-views.ts';
import type { DirectoryViews } from '../../../ports/directory-views.ts';
import type { IssuanceViews } from '../../../ports/issuance-views.ts';
import type { KernelViews } from '../../../ports/kernel-views.ts';
import type { MembershipViews } from '../../../ports/membership-views.ts';
import type { OffersViews } from '../../../ports/offers-views.ts';
import type { OperatorsViews } from '../../../ports/operators-views.ts';
import type { PartnersViews } from '../../../ports/partners-views.ts';
import type { TenantsViews } from '../../../ports/tenants-views.ts';
import type { VerificationViews } from '../../../ports/verification-views.ts';
import type { WalletViews } from '../../../ports/wallet-views.ts';
import { credentialTypesModule } from '../../credential-types/module.ts';
import { depositsModule } from '../../deposits/module.ts';
import { directoryModule } from '../../directory/module.ts';
import { issuanceModule } from '../../issuance/module.ts';
import { membershipModule } from '../../membership/module.ts';
import { offersModule } from '../../offers/module.ts';
import { operatorsModule } from '../../operators/module.ts';
import { partnersModule } from '../../partners/module.ts';
import { tenantsModule } from '../../tenants/module.ts';
import { verificationModule } from '../../verification/module.ts';
import { walletModule } from '../../wallet/module.ts';

/**
 * The owners' published views that the search box, the lookup and the catalogue compose
 * (docs/backoffice/views.md): each module's own rows, read without building the module.
 */
export interface FinderSources {
  tenants: TenantsViews;
  types: CredentialTypesViews;
  credentials: IssuanceViews;
  offers: OffersViews;
  members: MembershipViews;
  wallet: WalletViews;
  deposits: DepositsViews;
  transactions: VerificationViews;
  directory: DirectoryViews;
  partners: PartnersViews;
  operators: OperatorsViews;
  kernel: KernelViews;
}

export function finderSources(ctx: Context): FinderSources {
  return {
    tenants: ctx.viewsOf(tenantsModule),
    types: ctx.viewsOf(credentialTypesModule),
    credentials: ctx.viewsOf(issuanceModule),
    offers: ctx.viewsOf(offersModule),
    members: ctx.viewsOf(membershipModule),
    wallet: ctx.viewsOf(walletModule),
    deposits: ctx.viewsOf(depositsModule),
    transactions: ctx.viewsOf(verificationModule),
    directory: ctx.viewsOf(directoryModule),
    partners: ctx.viewsOf(partnersModule),
    operators: ctx.viewsOf(operatorsModule),
    kernel: ctx.views,
  };
}
