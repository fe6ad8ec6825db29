import { type StartOptions, startOpenrail } from './app/start.ts';
import type { Config } from './config/config.ts';
import { accountModule } from './features/account/module.ts';
import { approvalsModule } from './features/approvals/module.ts';
import { backofficeModule } from './features/backoffice/module.ts';
import { channelsModule } from './features/channels/module.ts';
import { conformanceModule } from './features/conformance/module.ts';
import { credentialTypesModule } from './features/credential-types/module.ts';
import { depositsModule } from './features/deposits/module.ts';
import { directoryModule } from './features/directory/module.ts';
import { holdersModule } from './features/holders/module.ts';
import { integrationModule } from './features/integration/module.ts';
import { issuanceModule } from './features/issuance/module.ts';
import { issuerTrustModule } from './features/issuer-trust/module.ts';
import { membershipModule } from './features/membership/module.ts';
import { metricsModule } from './features/metrics/module.ts';
import { offersModule } from './features/offers/module.ts';
import { onboardingModule } from './features/onboarding/module.ts';
import { operatorAppsModule } from './features/operator-apps/module.ts';
import { operatorPlaneModule } from './features/operator-plane/module.ts';
import { operatorsModule } from './features/operators/module.ts';
import { pagesModule } from './features/pages/module.ts';
import { partnersModule } from './features/partners/module.ts';
import { statusModule } from './features/status/module.ts';
import { tenantsModule } from './features/tenants/module.ts';
import { trustModule } from './features/trust/module.ts';
import { verificationModule } from './features/verification/module.ts';
import { walletModule } from './features/wallet/module.ts';
import { walletProvidersModule } from './features/wallet-providers/module.ts';
import { webhooksModule } from './features/webhooks/module.ts';

export type { Openrail } from './app/start.ts';
export { APP_ROOT } from './app/start.ts';

/** The composition root: the modules of the service, in the order their routes are registered. */
export const MODULES = [
  trustModule,
  tenantsModule,
  operatorsModule,
  holdersModule,
  credentialTypesModule,
  offersModule,
  issuanceModule,
  statusModule,
  issuerTrustModule,
  verificationModule,
  membershipModule,
  directoryModule,
  onboardingModule,
  accountModule,
  walletModule,
  depositsModule,
  channelsModule,
  walletProvidersModule,
  webhooksModule,
  integrationModule,
  partnersModule,
  operatorPlaneModule,
  approvalsModule,
  backofficeModule,
  conformanceModule,
  pagesModule,
  operatorAppsModule,
  metricsModule,
];

export const compose = (config: Config, options?: StartOptions) => startOpenrail(config, MODULES, options);
