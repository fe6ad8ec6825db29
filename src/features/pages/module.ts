import { defineModule } from '../../app/module.ts';
import { webAssets } from '../../web/assets.ts';
import { walletProvidersModule } from '../wallet-providers/module.ts';
import { qrRoutes } from './qr-route.ts';
import { pageRoutes } from './routes.ts';

/** The server-rendered pages (/, /docs, /verify), their static files, and the QR codes they show. */
export const pagesModule = defineModule({
  name: 'pages',
  groups: ['pages', 'qr'],
  async build(ctx) {
    const wallets = await ctx.use(walletProvidersModule);
    const deps = {
      siteName: ctx.config.platformName,
      assets: webAssets(),
      openApi: ctx.openApi,
      admittedWallets: () => wallets.admitted(),
    };
    return { services: {}, routes: () => [pageRoutes(deps), qrRoutes()] };
  },
});
