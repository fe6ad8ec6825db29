import { SqlIntegrationTokenStore } from '../../adapters/sql/sql-integration-token-store.ts';
import { SqlOperatorSessionStore, SqlOperatorStore } from '../../adapters/sql/sql-operator-store.ts';
import { SqlPartnerStore } from '../../adapters/sql/sql-partner-store.ts';
import { SqlTenantStore } from '../../adapters/sql/sql-tenant-store.ts';
import { defineModule } from '../../app/module.ts';
import { OperatorBearerAuthenticator } from '../../http/auth/operator-bearer.ts';
import { tenantsModule } from '../tenants/module.ts';
import { OperatorService } from './operator-service.ts';
import { operatorAuthRoutes, operatorConsoleRoutes } from './routes.ts';

/** Expired operator sessions are deleted this often. */
const SESSION_PRUNE_MS = 10 * 60 * 1000;

/** Operator accounts, sign-in, and the operator bearer plane every console operation uses. */
export const operatorsModule = defineModule({
  name: 'operators',
  groups: ['operator-auth', 'console-operators'],
  owns: [SqlOperatorStore, SqlOperatorSessionStore],
  borrows: [SqlIntegrationTokenStore, SqlPartnerStore, SqlTenantStore],
  planes: ['operator'],
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const store = ctx.store(SqlOperatorStore);
    const sessions = ctx.store(SqlOperatorSessionStore);
    const uow = ctx.unitOfWork({ operators: ctx.store(SqlOperatorStore), sessions: ctx.store(SqlOperatorSessionStore) });
    const tenantExists = async (slug: string) => (await tenants.find(slug)) !== undefined;
    const platform = { name: ctx.config.platformName, origin: ctx.config.publicUrl.origin };
    const operators = new OperatorService(store, sessions, uow, tenantExists, ctx.clock, { mailer: ctx.mailer, platform });
    return {
      services: operators,
      routes: () => [operatorAuthRoutes(operators, platform), operatorConsoleRoutes(operators)],
      planes: {
        operator: new OperatorBearerAuthenticator(
          ctx.ownerTokenHash,
          store,
          sessions,
          ctx.clock,
          ctx.store(SqlIntegrationTokenStore),
          ctx.rates,
          ctx.store(SqlPartnerStore),
          ctx.store(SqlTenantStore),
        ),
      },
      jobs: [{ name: 'operators.prune-sessions', everyMs: SESSION_PRUNE_MS, run: (now) => sessions.prune(now) }],
    };
  },
});
