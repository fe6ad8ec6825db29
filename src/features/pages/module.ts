import { shippedDocsAt } from '../../adapters/fs/shipped-docs.ts';
import { defineModule } from '../../app/module.ts';
import { webAssets } from '../../web/assets.ts';
import { offersModule } from '../offers/module.ts';
import { partnersModule } from '../partners/module.ts';
import { statusModule } from '../status/module.ts';
import { walletProvidersModule } from '../wallet-providers/module.ts';
import { DemoTryIt } from './demo-try-it.ts';
import { qrRoutes } from './qr-route.ts';
import { pageRoutes } from './routes.ts';

/**
 * The server-rendered pages (the public pages, /docs, /verify, the partner programme's /partners
 * pages, the documents under /developers/docs), the demo page's calls, their static files, and the
 * QR codes they show.
 */
export const pagesModule = defineModule({
  name: 'pages',
  groups: ['pages', 'qr'],
  async build(ctx) {
    const wallets = await ctx.use(walletProvidersModule);
    const { partners } = await ctx.use(partnersModule);
    const { offers, store } = await ctx.use(offersModule);
    const status = await ctx.use(statusModule);
    const demo = new DemoTryIt({
      offers,
      offerStore: store,
      status,
      urls: ctx.urls,
      tokenKey: ctx.vault.deriveKey('demo-page'),
      clock: ctx.clock,
      random: ctx.random,
      enabled: ctx.config.demo,
    });
    const deps = {
      siteName: ctx.config.platformName,
      assets: webAssets(),
      docs: shippedDocsAt(),
      openApi: ctx.openApi,
      admittedWallets: () => wallets.admitted(),
      partnerPages: { origin: ctx.config.publicUrl.origin, partners, budgets: ctx.budgets },
      origin: ctx.config.publicUrl.origin,
      demo,
      demoEnabled: ctx.config.demo,
    };
    return { services: {}, routes: () => [pageRoutes(deps), qrRoutes()] };
  },
});
