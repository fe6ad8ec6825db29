import { defineModule } from '../../app/module.ts';
import { adminAppRoutes } from './admin-routes.ts';
import { consoleRoutes } from './console-routes.ts';

/**
 * The operators' web apps (docs/admin-app.md): /admin, the platform back office, and /console, an
 * organisation's workspace. They hold no data of their own: each page calls the operator-plane
 * operations the contract document describes, as the signed-in operator.
 */
export const operatorAppsModule = defineModule({
  name: 'operator-apps',
  groups: ['operator-apps'],
  build(ctx) {
    const site = { name: ctx.config.platformName, origin: ctx.config.publicUrl.origin };
    return {
      services: {},
      routes: () => [
        { name: 'operator-apps', routes: [...adminAppRoutes(site, ctx.openApi), ...consoleRoutes(site, ctx.openApi)] },
      ],
    };
  },
});
