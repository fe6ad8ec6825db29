import { defineModule } from '../../app/module.ts';
import { tenantsModule } from '../tenants/module.ts';
import { ReadinessProbe } from './readiness.ts';
import { trustRoutes } from './routes.ts';

/** The public trust artifacts: DID documents, security.txt, /build, /readyz and /openapi.json. */
export const trustModule = defineModule({
  name: 'trust',
  groups: ['trust'],
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const readiness = new ReadinessProbe(() => ctx.database.ping(), ctx.keys, ctx.clock);
    return {
      services: {},
      routes: () => [
        trustRoutes({
          tenants,
          keys: ctx.keys,
          certifier: ctx.certifier,
          clock: ctx.clock,
          readiness,
          shipped: ctx.shipped,
          publicUrl: ctx.config.publicUrl,
          security: ctx.config.security,
          openApi: ctx.openApi,
        }),
      ],
    };
  },
});
