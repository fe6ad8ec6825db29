import { mintFreshSet } from '../../adapters/crypto/conformance-mint.ts';
import { defineModule } from '../../app/module.ts';
import { conformanceRoutes } from './routes.ts';

/** The published conformance vector set for any SD-JWT VC verifier (docs/conformance.md). */
export const conformanceModule = defineModule({
  name: 'conformance',
  groups: ['conformance'],
  build: (ctx) => ({ services: {}, routes: () => [conformanceRoutes(ctx.clock, mintFreshSet)] }),
});
