import { holderRecordsOf } from '../../adapters/sql/holder-records.ts';
import { onEventsCommitted } from '../../adapters/sql/kernel/sql-event-outbox.ts';
import { SqlWebhookLanes } from '../../adapters/sql/webhooks/sql-webhook-lanes.ts';
import { SqlWebhookStore } from '../../adapters/sql/webhooks/sql-webhook-store.ts';
import { SqlWebhooksViews } from '../../adapters/sql/webhooks/sql-webhooks-views.ts';
import { defineModule } from '../../app/module.ts';
import { tenantsModule } from '../tenants/module.ts';
import { WebhookDispatcher } from './dispatcher.ts';
import { webhookRoutes } from './routes.ts';
import { WebhookService } from './webhook-service.ts';

/** Finished deliveries and routed events are kept this long (docs/webhooks.md, "Retention"). */
export const RETENTION_MS = 30 * 86_400_000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;
const PRUNE_BATCH = 2000;

const holderRecords = holderRecordsOf('webhooks');

/**
 * Webhooks (docs/webhooks.md): endpoint administration under /api/admin/integration, and the
 * dispatcher that delivers the outbox to the endpoints, signed, at least once.
 */
export const webhooksModule = defineModule({
  name: 'webhooks',
  groups: ['integration-webhooks'],
  owns: [SqlWebhookStore, SqlWebhookLanes, SqlWebhooksViews, holderRecords],
  holderRecords,
  views: SqlWebhooksViews,
  // Delivery routes the outbox and keeps it pruned, whether or not this process serves the admin routes.
  runsUnmounted: true,
  async build(ctx) {
    const tenants = await ctx.use(tenantsModule);
    const lanes = ctx.store(SqlWebhookLanes);
    const uow = ctx.unitOfWork();
    const dispatcher = new WebhookDispatcher({
      laneStore: lanes,
      uow,
      fetcher: ctx.fetcher,
      vault: ctx.vault,
      clock: ctx.clock,
      random: ctx.random,
      log: ctx.log,
      node: ctx.config.nodeId,
      options: {
        schedule: ctx.config.webhookRetrySchedule,
        meter: ctx.meter,
      },
    });
    const webhooks = new WebhookService({
      store: ctx.store(SqlWebhookStore),
      events: ctx.views,
      uow,
      vault: ctx.vault,
      clock: ctx.clock,
      random: ctx.random,
      ids: ctx.ids,
      tenantExists: async (slug) => (await tenants.find(slug)) !== undefined,
      allowOrigins: ctx.config.outboundAllow,
      wake: () => dispatcher.wake(),
    });
    let unsubscribe = () => {};
    return {
      services: { webhooks, dispatcher },
      routes: () => [webhookRoutes(webhooks)],
      jobs: [
        {
          name: 'webhooks.prune',
          everyMs: PRUNE_EVERY_MS,
          run: async (now) => {
            for (let round = 0; round < 20; round++) {
              const pruned = await uow.run(() => lanes.prune(now - RETENTION_MS, PRUNE_BATCH));
              if (pruned.deliveries < PRUNE_BATCH && pruned.events < PRUNE_BATCH) break;
            }
          },
        },
      ],
      daemons: [
        {
          name: 'webhooks.dispatch',
          start: () => {
            unsubscribe = onEventsCommitted(() => dispatcher.committed());
            dispatcher.start();
          },
          stop: async () => {
            unsubscribe();
            await dispatcher.stop();
          },
        },
      ],
    };
  },
});
