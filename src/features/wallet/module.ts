import { holderRecordsOf } from '../../adapters/sql/holder-records.ts';
import { SqlChannelStore } from '../../adapters/sql/wallet/sql-channel-store.ts';
import { SqlWalletDemoFixtures } from '../../adapters/sql/wallet/sql-wallet-demo-fixtures.ts';
import { SqlWalletItemStore } from '../../adapters/sql/wallet/sql-wallet-item-store.ts';
import { SqlWalletViews } from '../../adapters/sql/wallet/sql-wallet-views.ts';
import { defineModule } from '../../app/module.ts';
import { depositsModule } from '../deposits/module.ts';
import { offersModule } from '../offers/module.ts';
import { tenantsModule } from '../tenants/module.ts';
import { walletRoutes } from './routes.ts';
import { SharingService } from './sharing.ts';
import { WalletService } from './wallet-service.ts';

const holderRecords = holderRecordsOf('wallet');

/**
 * The wallet bridge (docs/wallet.md): the items the service holds for a holder account, listed
 * as envelopes in public and decided by the holder's device key, and what the holder shares over
 * channels. Offers, deposits and channel requests become items in their own modules'
 * transactions; the decisions are made here, each kind by its own rules.
 */
export const walletModule = defineModule({
  name: 'wallet',
  groups: ['wallet'],
  owns: [SqlWalletItemStore, SqlChannelStore, SqlWalletDemoFixtures, SqlWalletViews, holderRecords],
  holderRecords,
  views: SqlWalletViews,
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const { offers } = await ctx.use(offersModule);
    const stores = { items: ctx.store(SqlWalletItemStore), channels: ctx.store(SqlChannelStore) };
    const uow = ctx.unitOfWork();
    const wallet = new WalletService({
      ...stores,
      uow,
      tenants,
      offers,
      deposits: ctx.viewsOf(depositsModule),
      clock: ctx.clock,
    });
    const sharing = new SharingService(wallet, stores, uow, tenants, ctx.clock, ctx.ids);
    return {
      // `stores`: the channels module's side of channels (the organisation's) reads and moves them.
      services: { wallet, sharing, stores, demoFixtures: ctx.store(SqlWalletDemoFixtures) },
      routes: () => [walletRoutes(wallet, sharing)],
    };
  },
});
