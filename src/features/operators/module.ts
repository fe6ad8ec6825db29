import { scryptPasswords } from '../../adapters/crypto/password.ts';
import { OpenIdClientProvider } from '../../adapters/oidc/openid-client.ts';
import { holderRecordsOf } from '../../adapters/sql/holder-records.ts';
import { SqlOperatorBrowserStore } from '../../adapters/sql/operators/sql-operator-browser-store.ts';
import { SqlOperatorSessionStore, SqlOperatorStore } from '../../adapters/sql/operators/sql-operator-store.ts';
import { SqlOperatorsViews } from '../../adapters/sql/operators/sql-operators-views.ts';
import { defineModule } from '../../app/module.ts';
import { EnterpriseSessionPlane } from '../../http/auth/enterprise-session.ts';
import { tenantsModule } from '../tenants/module.ts';
import { OperatorService } from './operator-service.ts';
import { operatorAuthRoutes, operatorConsoleRoutes } from './routes.ts';
import { signInRoutes } from './sign-in-routes.ts';
import { OperatorSignIn } from './sign-in-service.ts';

/** Expired operator sessions are deleted this often. */
const SESSION_PRUNE_MS = 10 * 60 * 1000;

const holderRecords = holderRecordsOf('operators');

/**
 * Operator accounts and sign-in. The operator bearer plane every console operation uses is the
 * operator-plane module's, which reads these sessions beside the keys and partner sessions of
 * modules that depend on this one (features/operator-plane/module.ts).
 */
export const operatorsModule = defineModule({
  name: 'operators',
  groups: ['operator-auth', 'console-operators'],
  owns: [SqlOperatorStore, SqlOperatorSessionStore, SqlOperatorBrowserStore, SqlOperatorsViews, holderRecords],
  holderRecords,
  views: SqlOperatorsViews,
  planes: ['enterprise-session'],
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const store = ctx.store(SqlOperatorStore);
    const sessions = ctx.store(SqlOperatorSessionStore);
    const tenantExists = async (slug: string) => (await tenants.find(slug)) !== undefined;
    const platform = { name: ctx.config.platformName, origin: ctx.config.publicUrl.origin };
    const operators = new OperatorService({
      operators: store,
      sessions,
      uow: ctx.unitOfWork(),
      tenantExists,
      clock: ctx.clock,
      random: ctx.random,
      passwords: scryptPasswords,
      mail: { mailer: ctx.mailer, platform },
      plainHttpIssuers: ctx.config.outboundAllow,
    });
    const browser = ctx.store(SqlOperatorBrowserStore);
    const { oidc } = ctx.config;
    const signIn = new OperatorSignIn({
      store: browser,
      operators: store,
      checkPassword: (username, password) => operators.checkPassword(username, password),
      provider: oidc && new OpenIdClientProvider(oidc, `${platform.origin}/auth/callback`, () => ctx.clock.now()),
      uow: ctx.unitOfWork(),
      clock: ctx.clock,
      random: ctx.random,
      origin: platform.origin,
    });
    const auth = operatorAuthRoutes(operators, platform);
    return {
      services: operators,
      routes: () => [{ ...auth, routes: [...auth.routes, ...signInRoutes(signIn, platform)] }, operatorConsoleRoutes(operators)],
      planes: { 'enterprise-session': new EnterpriseSessionPlane(browser, store, ctx.clock) },
      jobs: [
        { name: 'operators.prune-sessions', everyMs: SESSION_PRUNE_MS, run: (now) => sessions.prune(now) },
        { name: 'operators.prune-browser-sessions', everyMs: SESSION_PRUNE_MS, run: (now) => browser.prune(now) },
      ],
    };
  },
});
