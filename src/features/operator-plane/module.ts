import { defineModule } from '../../app/module.ts';
import { OperatorBearerAuthenticator } from '../../http/auth/operator-bearer.ts';
import { integrationModule } from '../integration/module.ts';
import { operatorsModule } from '../operators/module.ts';
import { partnersModule } from '../partners/module.ts';
import { tenantsModule } from '../tenants/module.ts';

/**
 * The operator bearer plane (docs/authentication.md): the owner token, an operator's session, an
 * integration key or a partner session. A module of its own, above the modules whose rows it reads:
 * in the operators module it would need the integration module's keys, and the integration module
 * uses the approvals desk, which uses the operators module. It reads their views only, so it builds
 * none of them. Built when a mounted route names the plane.
 */
export const operatorPlaneModule = defineModule({
  name: 'operator-plane',
  groups: [],
  planes: ['operator'],
  build(ctx) {
    const operator = new OperatorBearerAuthenticator({
      ownerTokenHash: ctx.ownerTokenHash,
      operators: ctx.viewsOf(operatorsModule),
      keys: ctx.viewsOf(integrationModule),
      partners: ctx.viewsOf(partnersModule),
      tenants: ctx.viewsOf(tenantsModule),
      budget: ctx.rates,
      clock: ctx.clock,
    });
    return { services: {}, planes: { operator } };
  },
});
