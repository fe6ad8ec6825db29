import { defineModule } from '../../app/module.ts';
import { webAssets } from '../../web/assets.ts';
import { partnersModule } from '../partners/module.ts';
import { walletProvidersModule } from '../wallet-providers/module.ts';
import { qrRoutes } from './qr-route.ts';
import { pageRoutes } from './routes.ts';

/**
 * The server-rendered pages (/, /docs, /verify, the partner programme's /partners pages), their
 * static files, and the QR codes they show.
 */
export const pagesModule = defineModule({
  name: 'pages',
  groups: ['pages', 'qr'],
  async build(ctx) {
    const wallets = await ctx.use(walletProvidersModule);
    const { partners } = await ctx.use(partnersModule);
    const deps = {
      siteName: ctx.config.platformName,
      assets: webAssets(),
      openApi: ctx.openApi,
      admittedWallets: () => wallets.admitted(),
      partnerPages: { origin: ctx.config.publicUrl.origin, partners, budgets: ctx.budgets },
    };
    return { services: {}, routes: () => [pageRoutes(deps), qrRoutes()] };
  },
});
