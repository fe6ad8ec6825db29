import { SqlOnboardingStore } from '../../adapters/sql/onboarding/sql-onboarding-store.ts';
import { defineModule } from '../../app/module.ts';
import { ROOT_SLUG } from '../../core/slug.ts';
import { holdersModule } from '../holders/module.ts';
import { tenantsModule } from '../tenants/module.ts';
import { MailedCodes } from './mailed-codes.ts';
import { OnboardingService } from './onboarding-service.ts';
import { onboardingRoutes } from './routes.ts';

/** Ended challenges are deleted this long after they ended, this often. */
const PRUNE_AFTER_MS = 24 * 60 * 60 * 1000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

/** Holder onboarding (docs/onboarding.md): identifier ownership proved by mail, attested by the platform. */
export const onboardingModule = defineModule({
  name: 'onboarding',
  groups: ['onboarding'],
  owns: [SqlOnboardingStore],
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const { authenticator } = await ctx.use(holdersModule);
    const { config } = ctx;
    const store = ctx.store(SqlOnboardingStore);
    const codes = new MailedCodes({
      store,
      mailer: ctx.mailer,
      hashKey: ctx.vault.deriveKey('onboarding'),
      clock: ctx.clock,
      random: ctx.random,
      ids: ctx.ids,
    });
    const onboarding = new OnboardingService({
      codes,
      budgets: ctx.budgets,
      keys: ctx.keys,
      holders: authenticator,
      platform: { did: tenants.didOf(ROOT_SLUG), name: config.platformName, origin: config.publicUrl.origin },
      clock: ctx.clock,
      ids: ctx.ids,
    });
    return {
      // `codesFor`: mailed codes of another purpose on the same challenges (the partner portal's sign-in).
      services: {
        onboarding,
        codesFor: (purpose: string) =>
          new MailedCodes({
            store,
            mailer: ctx.mailer,
            hashKey: ctx.vault.deriveKey(purpose),
            clock: ctx.clock,
            random: ctx.random,
            ids: ctx.ids,
          }),
      },
      routes: () => [onboardingRoutes(onboarding)],
      jobs: [
        { name: 'onboarding.prune', everyMs: PRUNE_EVERY_MS, run: async (now) => void (await store.prune(now - PRUNE_AFTER_MS)) },
      ],
    };
  },
});
