import { SqlDepositStore } from '../../adapters/sql/sql-deposit-store.ts';
import { SqlOfferStore } from '../../adapters/sql/sql-offer-store.ts';
import { SqlWalletItemStore } from '../../adapters/sql/sql-wallet-item-store.ts';
import { defineModule } from '../../app/module.ts';
import { offersModule } from '../offers/module.ts';
import { tenantsModule } from '../tenants/module.ts';
import { walletRoutes } from './routes.ts';
import { WalletService } from './wallet-service.ts';

/**
 * The wallet bridge (docs/wallet.md): the items the service holds for a holder account, listed
 * as envelopes in public and decided by the holder's device key. Offers, deposits and channel
 * requests become items in their own modules' transactions; the decisions are made here.
 */
export const walletModule = defineModule({
  name: 'wallet',
  groups: ['wallet'],
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const { offers } = await ctx.use(offersModule);
    const uow = ctx.unitOfWork((db) => ({
      items: new SqlWalletItemStore(db),
      offers: new SqlOfferStore(db),
      deposits: new SqlDepositStore(db),
    }));
    const wallet = new WalletService(new SqlWalletItemStore(ctx.db), uow, tenants, offers, ctx.clock);
    return { services: wallet, routes: () => [walletRoutes(wallet)] };
  },
});
