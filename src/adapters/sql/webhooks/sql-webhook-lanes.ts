import { type Insertable, PostgresAdapter } from 'kysely';
import type { EventPayloads } from '../../../core/events.ts';
import type { AttemptResult, LaneDelivery, LaneTarget, WebhookLanes } from '../../../ports/webhook-lanes.ts';
import { systemIds } from '../../crypto/ids.ts';
import type { Db } from '../connect.ts';
import { markRouted, markRoutedWrite, pruneRoutedEvents, routingDue, unroutedEvents } from '../kernel/kernel-statements.ts';
import type { WebhookDeliveriesTable } from '../schema.ts';
import { atomically } from '../sql-unit-of-work.ts';
import { Statement } from '../statement.ts';
import { applyAll, type Write } from '../write-batch.ts';

// Every process polls with this twice a second, and after its own commits: written once.
const anyLaneDue = new Statement<{ id: string }>(
  `select w.id from webhooks w where w.active = 1 and w.lane_until <= ? and w.next_at <= ?
   and exists (select 1 from webhook_deliveries d where d.webhook_id = w.id and d.state = 'queued') limit 1`,
);

// A lane's record of each attempt: one statement on PostgreSQL (write-batch.ts), the rows of
// different tables, and none guarded (a delivery no longer queued, or a lane lost meanwhile,
// changes nothing, as before).
const insertAttempt = new Statement(
  'insert into webhook_attempts (delivery_id, n, at, status, ok, latency_ms, error) values (?, ?, ?, ?, ?, ?, ?)',
);
const markDelivered = new Statement(
  `update webhook_deliveries set state = 'delivered', attempts = attempts + 1, last_status = ?, last_error = null,
   finished_at = ? where id = ? and state = 'queued'`,
);
const keepLane = new Statement(
  'update webhooks set dead_streak = 0, last_success_at = ?, lane_until = ? where id = ? and lane_holder = ?',
);
const markRetry = new Statement(
  `update webhook_deliveries set attempts = attempts + 1, failures = failures + 1, next_attempt_at = ?,
   last_status = ?, last_error = ? where id = ? and state = 'queued'`,
);
const waitLane = new Statement(
  'update webhooks set next_at = ?, lane_holder = null, lane_until = 0 where id = ? and lane_holder = ?',
);

const attemptWrite = (a: AttemptResult, ok: boolean): Write => ({
  statement: insertAttempt,
  params: [a.deliveryId, a.n, a.at, a.status, ok ? 1 : 0, Math.round(a.latencyMs), a.error],
});

// Every routing pass that found events reads the endpoints they may go to: written once.
const activeEndpoints = new Statement<{ id: string; tenant: string; events: string; created_at: number }>(
  'select id, tenant, events, created_at from webhooks where active = 1',
);

interface RoutingPlan {
  routed: Array<{ seq: number; endpoints: number }>;
  deliveries: Insertable<WebhookDeliveriesTable>[];
  endpoints: number;
}

// PostgreSQL: a routing batch's deliveries, however many, in one insert of arrays, queued in the
// order given. A pair made already (another process routed the event first) is left as it is: the
// batch's guard on the marks then undoes the whole batch.
const insertDeliveries = new Statement(
  `insert into webhook_deliveries
     (id, webhook_id, tenant, event_id, event_type, payload, state, attempts, failures, next_attempt_at, created_at)
   select d.id, d.webhook_id, d.tenant, d.event_id, d.event_type, d.payload, 'queued', 0, 0, ?::bigint, ?::bigint
   from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
     with ordinality as d(id, webhook_id, tenant, event_id, event_type, payload, ord)
   order by d.ord
   on conflict (webhook_id, event_id) do nothing`,
);

const deliveriesWrite = (deliveries: readonly Insertable<WebhookDeliveriesTable>[], now: number): Write => ({
  statement: insertDeliveries,
  params: [
    now,
    now,
    ...(['id', 'webhook_id', 'tenant', 'event_id', 'event_type', 'payload'] as const).map((c) => deliveries.map((d) => d[c])),
  ],
});

/**
 * The dispatcher's side of webhooks (docs/webhooks.md, "How delivery works"): routing outbox
 * events into deliveries, and the lanes. A lane is one endpoint's queue, sent by one process at a
 * time: the process holds the endpoint's lease (`lane_holder`, `lane_until`) and sends the
 * endpoint's queued deliveries one by one, oldest first.
 */
export class SqlWebhookLanes implements WebhookLanes {
  private readonly postgres: boolean;

  constructor(private readonly db: Db) {
    this.postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  }

  /**
   * Makes the deliveries of up to `limit` unrouted events, oldest first, and marks each event with
   * how many it got: every event of the batch and its deliveries, or none. Answers how many events
   * it routed (0 when another process routed them first), and how many active endpoints there are
   * (null when it did not look).
   *
   * - On PostgreSQL the events and endpoints are read first, then the marks and the deliveries
   *   written as one statement (write-batch.ts), so no transaction is held open across round
   *   trips. Its guard wants every event it read still unrouted: two processes that read the same
   *   events make one batch and one refusal, and since each takes the oldest unrouted events,
   *   deliveries are still numbered in the order events were routed.
   * - On SQLite the routing is a transaction of its own, which holds the only write lock from its
   *   first read, opened only once a read outside it found an event to route.
   */
  async route(now: number, limit: number): Promise<{ events: number; endpoints: number | null }> {
    if (!this.postgres) {
      // A read first, so that a pass with nothing to route takes no write lock.
      if (!(await routingDue(this.db))) return { events: 0, endpoints: null };
      return atomically(this.db, async () => this.inTransaction(await this.plan(now, limit)));
    }
    const plan = await this.plan(now, limit);
    if (!plan) return { events: 0, endpoints: null };
    const writes: Write[] = [markRoutedWrite(plan.routed)];
    if (plan.deliveries.length > 0) writes.push(deliveriesWrite(plan.deliveries, now));
    const refused = await applyAll(this.db, writes);
    return refused === undefined ? { events: plan.routed.length, endpoints: plan.endpoints } : { events: 0, endpoints: null };
  }

  /** SQLite, inside the routing's transaction: the deliveries in rows of 200, the marks one statement per count. */
  private async inTransaction(plan: RoutingPlan | undefined) {
    if (!plan) return { events: 0, endpoints: null };
    for (let i = 0; i < plan.deliveries.length; i += 200) {
      await this.db
        .insertInto('webhook_deliveries')
        .values(plan.deliveries.slice(i, i + 200))
        .execute();
    }
    const routedTo = new Map<number, number[]>();
    for (const r of plan.routed) {
      const seqs = routedTo.get(r.endpoints) ?? [];
      seqs.push(r.seq);
      routedTo.set(r.endpoints, seqs);
    }
    for (const [count, seqs] of routedTo) await markRouted(this.db, count, seqs);
    return { events: plan.routed.length, endpoints: plan.endpoints };
  }

  /** The oldest unrouted events (up to `limit`), each with the deliveries it gets; undefined when none waits. */
  private async plan(now: number, limit: number): Promise<RoutingPlan | undefined> {
    const events = await unroutedEvents(this.db, limit);
    if (events.length === 0) return undefined;
    const endpoints = (await activeEndpoints.rows(this.db, [])).map((w) => ({
      id: w.id,
      tenant: w.tenant,
      since: Number(w.created_at),
      events: new Set(JSON.parse(w.events) as string[]),
    }));
    const deliveries: Insertable<WebhookDeliveriesTable>[] = [];
    const routed: RoutingPlan['routed'] = [];
    for (const e of events) {
      const createdAt = Number(e.created_at);
      // A ping goes to the endpoint it tests, whatever that endpoint subscribed to; other events to
      // the tenant's endpoints that subscribe to them and existed when the event was written.
      const targets =
        endpoints.length === 0
          ? []
          : e.type === 'webhook.ping'
            ? endpoints.filter(
                (w) => w.id === (JSON.parse(e.data) as EventPayloads['webhook.ping']).webhookId && w.tenant === e.tenant,
              )
            : endpoints.filter((w) => w.tenant === e.tenant && w.events.has(e.type) && w.since <= createdAt);
      for (const w of targets) {
        const id = systemIds.mint('delivery');
        deliveries.push({
          id,
          webhook_id: w.id,
          tenant: e.tenant,
          event_id: e.id,
          event_type: e.type,
          payload: envelope(id, e.type, Number(e.created_at), e.tenant, e.data),
          state: 'queued',
          attempts: 0,
          failures: 0,
          next_attempt_at: now,
          created_at: now,
        });
      }
      routed.push({ seq: Number(e.seq), endpoints: targets.length });
    }
    return { routed, deliveries, endpoints: endpoints.length };
  }

  /** Whether some active endpoint has a queued delivery and a free lane now (a read). */
  async lanesDue(now: number): Promise<boolean> {
    return (await anyLaneDue.first(this.db, [now, now])) !== undefined;
  }

  private dueLanes(now: number) {
    return this.db
      .selectFrom('webhooks as w')
      .where('w.active', '=', 1)
      .where('w.lane_until', '<=', now)
      .where('w.next_at', '<=', now)
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('webhook_deliveries as d')
            .select('d.seq')
            .whereRef('d.webhook_id', '=', 'w.id')
            .where('d.state', '=', 'queued'),
        ),
      );
  }

  /**
   * Takes the lanes of up to `max` due endpoints until `until`. One conditional write: of several
   * processes claiming at once, each lane goes to one. On PostgreSQL the candidates are chosen
   * FOR UPDATE SKIP LOCKED, so claimers pass each other by instead of queueing on the same rows.
   */
  async claim(holder: string, now: number, until: number, max: number): Promise<string[]> {
    let candidates = this.dueLanes(now).select('w.id').orderBy('w.next_at').limit(max);
    if (this.postgres) candidates = candidates.forUpdate().skipLocked();
    const rows = await this.db
      .updateTable('webhooks')
      .set({ lane_holder: holder, lane_until: until })
      .where('id', 'in', candidates)
      .where('lane_until', '<=', now)
      .returning('id')
      .execute();
    return rows.map((r) => r.id);
  }

  /** The endpoint's address and secret, while `holder` holds its lane and it is active. */
  async target(webhookId: string, holder: string): Promise<LaneTarget | undefined> {
    const row = await this.db
      .selectFrom('webhooks')
      .select(['url', 'sealed_secret'])
      .where('id', '=', webhookId)
      .where('lane_holder', '=', holder)
      .where('active', '=', 1)
      .executeTakeFirst();
    return row && { url: row.url, sealedSecret: row.sealed_secret };
  }

  /** The endpoint's queued deliveries, oldest first. */
  async queue(webhookId: string, limit: number): Promise<LaneDelivery[]> {
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'payload', 'event_type', 'attempts', 'failures'])
      .where('webhook_id', '=', webhookId)
      .where('state', '=', 'queued')
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      id: r.id,
      payload: r.payload,
      eventType: r.event_type,
      attempts: Number(r.attempts),
      failures: Number(r.failures),
    }));
  }

  /**
   * The delivery is delivered and the lane kept until `leaseUntil`: the attempt, the delivery and
   * the endpoint written all or nothing, in one statement on PostgreSQL (a round trip per
   * delivery; docs/scaling.md).
   */
  async delivered(a: AttemptResult, leaseUntil: number): Promise<void> {
    await applyAll(this.db, [
      attemptWrite(a, true),
      { statement: markDelivered, params: [a.status, a.at, a.deliveryId] },
      { statement: keepLane, params: [a.at, leaseUntil, a.webhookId, a.holder] },
    ]);
  }

  /**
   * The attempt failed and the delivery is tried again at `retryAt`, all or nothing as above. The
   * lane is released and the endpoint waits until then: nothing later overtakes the delivery.
   */
  async retryLater(a: AttemptResult, retryAt: number): Promise<void> {
    await applyAll(this.db, [
      attemptWrite(a, false),
      { statement: markRetry, params: [retryAt, a.status, a.error, a.deliveryId] },
      { statement: waitLane, params: [retryAt, a.webhookId, a.holder] },
    ]);
  }

  /**
   * Inside a transaction: the delivery's retries are spent and it is dead-lettered. The endpoint's
   * streak of dead letters grows; at `disableAt` the endpoint is disabled, and the answer is its
   * tenant (null otherwise).
   */
  async deadLetter(a: AttemptResult, leaseUntil: number, disableAt: number): Promise<string | null> {
    const attempt = attemptWrite(a, false);
    await attempt.statement.changes(this.db, attempt.params);
    await this.db
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        state: 'dead',
        attempts: eb('attempts', '+', 1),
        failures: eb('failures', '+', 1),
        last_status: a.status,
        last_error: a.error,
        finished_at: a.at,
      }))
      .where('id', '=', a.deliveryId)
      .where('state', '=', 'queued')
      .execute();
    const row = await this.db
      .updateTable('webhooks')
      .set((eb) => ({ dead_streak: eb('dead_streak', '+', 1), lane_until: leaseUntil }))
      .where('id', '=', a.webhookId)
      .where('lane_holder', '=', a.holder)
      .returning(['dead_streak', 'tenant'])
      .executeTakeFirst();
    if (!row || Number(row.dead_streak) < disableAt) return null;
    await this.db
      .updateTable('webhooks')
      .set({ active: 0, inactive_reason: 'failing', updated_at: a.at, lane_holder: null, lane_until: 0 })
      .where('id', '=', a.webhookId)
      .execute();
    return row.tenant;
  }

  /**
   * Deletes up to `batch` finished deliveries (delivered or dead) that finished before `cutoff`,
   * with their attempts, and up to `batch` routed events written before it. Answers how many rows
   * of each it deleted, so a caller can go on while there were as many as it asked for.
   */
  async prune(cutoff: number, batch: number): Promise<{ deliveries: number; events: number }> {
    const finished = this.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('state', 'in', ['delivered', 'dead'])
      .where('finished_at', '<', cutoff)
      .limit(batch);
    const ids = (await finished.execute()).map((r) => r.id);
    if (ids.length > 0) {
      await this.db.deleteFrom('webhook_attempts').where('delivery_id', 'in', ids).execute();
      await this.db.deleteFrom('webhook_deliveries').where('id', 'in', ids).execute();
    }
    return { deliveries: ids.length, events: await pruneRoutedEvents(this.db, cutoff, batch) };
  }

  /** Gives the lane back (a process stopping, or a lane with nothing left to send). */
  async release(webhookId: string, holder: string): Promise<void> {
    await this.db
      .updateTable('webhooks')
      .set({ lane_holder: null, lane_until: 0 })
      .where('id', '=', webhookId)
      .where('lane_holder', '=', holder)
      .execute();
  }
}

/**
 * The envelope's exact bytes (domain model, fixed: `{id, type, createdAt, tenant, data}`), `id`
 * being the delivery's. `data` is the outbox's JSON text as written, not parsed and re-serialised.
 */
function envelope(id: string, type: string, createdAt: number, tenant: string, data: string): string {
  const at = new Date(createdAt).toISOString();
  return `{"id":${JSON.stringify(id)},"type":${JSON.stringify(type)},"createdAt":${JSON.stringify(at)},"tenant":${JSON.stringify(tenant)},"data":${data}}`;
}
