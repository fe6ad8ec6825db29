import { join } from 'node:path';
import { OutboxMailer } from '../../adapters/mail/outbox-mailer.ts';
import { SmtpMailer } from '../../adapters/mail/smtp-mailer.ts';
import { SqlRateBudget } from '../../adapters/sql/sql-integration-token-store.ts';
import { SqlOnboardingStore } from '../../adapters/sql/sql-onboarding-store.ts';
import { defineModule } from '../../app/module.ts';
import { ROOT_SLUG } from '../../core/slug.ts';
import { holdersModule } from '../holders/module.ts';
import { tenantsModule } from '../tenants/module.ts';
import { OnboardingService } from './onboarding-service.ts';
import { onboardingRoutes } from './routes.ts';

/** Ended challenges are deleted this long after they ended, this often. */
const PRUNE_AFTER_MS = 24 * 60 * 60 * 1000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

/** Holder onboarding (docs/onboarding.md): identifier ownership proved by mail, attested by the platform. */
export const onboardingModule = defineModule({
  name: 'onboarding',
  groups: ['onboarding'],
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const { authenticator } = await ctx.use(holdersModule);
    const { config } = ctx;
    const mailer = config.smtpUrl
      ? new SmtpMailer(config.smtpUrl, config.mailFrom)
      : new OutboxMailer(join(config.dataDir, 'mail-outbox'), config.mailFrom, (path) =>
          ctx.log.info({ path }, 'mail written to the development outbox'),
        );
    const store = new SqlOnboardingStore(ctx.db);
    const onboarding = new OnboardingService(
      store,
      mailer,
      new SqlRateBudget(ctx.db),
      ctx.keys,
      authenticator,
      ctx.vault.deriveKey('onboarding'),
      { did: tenants.didOf(ROOT_SLUG), name: config.platformName, origin: config.publicUrl.origin },
      ctx.clock,
    );
    return {
      services: { onboarding },
      routes: () => [onboardingRoutes(onboarding)],
      jobs: [
        { name: 'onboarding.prune', everyMs: PRUNE_EVERY_MS, run: async (now) => void (await store.prune(now - PRUNE_AFTER_MS)) },
      ],
    };
  },
});
