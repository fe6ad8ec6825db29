import { SqlWalletProviderStore } from '../../adapters/sql/wallet-providers/sql-wallet-provider-store.ts';
import { defineModule } from '../../app/module.ts';
import { WalletProviderService } from './provider-service.ts';
import { providerRoutes } from './routes.ts';

/**
 * The wallet providers this deployment admits (docs/wallet.md, "Wallet providers"): operators
 * record a provider's request and answer it; the pages list the admitted ones to holders and
 * relying parties.
 */
export const walletProvidersModule = defineModule({
  name: 'wallet-providers',
  groups: ['wallets'],
  owns: [SqlWalletProviderStore],
  build(ctx) {
    const providers = new WalletProviderService(ctx.store(SqlWalletProviderStore), ctx.unitOfWork(), ctx.clock, ctx.ids);
    return { services: providers, routes: () => [providerRoutes(providers)] };
  },
});
