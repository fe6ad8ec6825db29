import { sql } from 'kysely';
import type { Counted, Overdue } from '../../../ports/view-records.ts';
import type { DeadDelivery, WebhookEndpoint, WebhookRates, WebhooksViews } from '../../../ports/webhooks-views.ts';
import type { Db } from '../connect.ts';
import { counted } from '../counted.ts';
import { inTenant } from '../windowed.ts';

const numOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/** The webhooks module's published views (ports/webhooks-views.ts). */
export class SqlWebhooksViews implements WebhooksViews {
  constructor(private readonly db: Db) {}

  async backlog(): Promise<{ count: number; oldestAt: number | null }> {
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.min('created_at').as('oldest')])
      .where('state', 'in', ['pending', 'failed'])
      .executeTakeFirstOrThrow();
    return { count: Number(row.n), oldestAt: numOrNull(row.oldest) };
  }

  async rates(since: number): Promise<WebhookRates> {
    const [attempts, dead, failing, disabled] = await Promise.all([
      this.db
        .selectFrom('webhook_attempts')
        .select((eb) => [
          eb.fn.countAll<number | string>().as('n'),
          eb.fn.sum<number | string>(eb.case().when('ok', '=', 0).then(1).else(0).end()).as('failed'),
        ])
        .where('at', '>=', since)
        .executeTakeFirstOrThrow(),
      this.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('state', '=', 'dead')
        .where('finished_at', '>=', since)
        .executeTakeFirstOrThrow(),
      this.db
        .selectFrom('webhook_attempts as a')
        .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
        .select(sql<number | string>`count(distinct d.webhook_id)`.as('n'))
        .where('a.at', '>=', since)
        .where('a.ok', '=', 0)
        .executeTakeFirstOrThrow(),
      this.db
        .selectFrom('webhooks')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('active', '=', 0)
        .where('inactive_reason', '=', 'failing')
        .executeTakeFirstOrThrow(),
    ]);
    return {
      attempts: Number(attempts.n),
      failed: Number(attempts.failed ?? 0),
      dead: Number(dead.n),
      endpointsFailing: Number(failing.n),
      endpointsDisabled: Number(disabled.n),
    };
  }

  async overdueDeliveries(tenant: string | null, before: number, limit: number): Promise<Overdue[]> {
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'tenant', 'next_attempt_at'])
      .where('next_attempt_at', '<', before)
      .where('state', 'in', ['pending', 'failed'])
      .where(inTenant(tenant))
      .orderBy('next_attempt_at')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.id, tenant: r.tenant, dueAt: Number(r.next_attempt_at) }));
  }

  async heldLanes(tenant: string | null, before: number, limit: number): Promise<Overdue[]> {
    const rows = await this.db
      .selectFrom('webhooks')
      .select(['id', 'tenant', 'lane_until'])
      .where('lane_until', '<', before)
      .where('lane_holder', 'is not', null)
      .where(inTenant(tenant))
      .orderBy('lane_until')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.id, tenant: r.tenant, dueAt: Number(r.lane_until) }));
  }

  async deadDeliveries(tenant: string | null, top: number): Promise<Counted<DeadDelivery>> {
    const base = this.db.selectFrom('webhook_deliveries').where('state', '=', 'dead').where(inTenant(tenant));
    return counted(
      base,
      (query) =>
        query
          .select(['id', 'webhook_id', 'tenant', 'event_type', 'failures', 'last_status', 'finished_at'])
          .orderBy('finished_at', 'desc')
          .orderBy('seq', 'desc')
          .limit(top)
          .execute(),
      (r) => ({
        deliveryId: r.id,
        webhookId: r.webhook_id,
        tenant: r.tenant,
        eventType: r.event_type,
        failures: Number(r.failures),
        lastStatus: numOrNull(r.last_status),
        finishedAt: numOrNull(r.finished_at),
      }),
    );
  }

  async endpoints(limit: number): Promise<WebhookEndpoint[]> {
    const rows = await this.db
      .selectFrom('webhooks')
      .select(['tenant', 'url', 'events', 'active'])
      .orderBy('tenant')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((h) => ({
      tenant: h.tenant,
      url: h.url,
      events: JSON.parse(h.events) as string[],
      active: Number(h.active) === 1,
    }));
  }
}
