import { defineModule } from '../../app/module.ts';
import { qrRoutes } from './qr-route.ts';
import { verifyPageRoutes } from './verify-page.ts';

/** The server-rendered pages, and the QR codes they show. */
export const pagesModule = defineModule({
  name: 'pages',
  groups: ['pages', 'qr'],
  build: () => ({ services: {}, routes: () => [verifyPageRoutes(), qrRoutes()] }),
});
