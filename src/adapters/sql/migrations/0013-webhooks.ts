import { type Kysely, type Migration, PostgresAdapter, sql } from 'kysely';

/**
 * Webhook delivery (docs/webhooks.md): endpoints, one delivery per event and endpoint, and every
 * attempt. `outbox.routed_to` is null until the router has made the event's deliveries, then the
 * number it made (0: the event went nowhere).
 */
export const webhooks: Migration = {
  async up(db: Kysely<unknown>) {
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter;

    await db.schema.alterTable('outbox').addColumn('routed_to', 'integer').execute();
    // Only events still to route are indexed, so the index stays as small as the backlog.
    await sql`create index outbox_unrouted on outbox (seq) where routed_to is null`.execute(db);

    await db.schema
      .createTable('webhooks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('events', 'text', (c) => c.notNull())
      .addColumn('active', 'integer', (c) => c.notNull())
      // `operator` or `failing` while inactive; null while active.
      .addColumn('inactive_reason', 'text')
      .addColumn('sealed_secret', 'text', (c) => c.notNull())
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      // Deliveries dead-lettered one after another without a success between them.
      .addColumn('dead_streak', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_success_at', 'bigint')
      // The lane: which process is sending to this endpoint, until when; and when it may send next.
      .addColumn('lane_holder', 'text')
      .addColumn('lane_until', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('next_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('webhooks_by_tenant').on('webhooks').columns(['tenant', 'created_at']).execute();

    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('seq', postgres ? 'bigserial' : 'integer', (c) => c.primaryKey())
      .addColumn('id', 'text', (c) => c.notNull().unique())
      .addColumn('webhook_id', 'text', (c) => c.notNull())
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('event_id', 'text', (c) => c.notNull())
      .addColumn('event_type', 'text', (c) => c.notNull())
      // The exact bytes every attempt sends and signs.
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      // Every attempt made; failures counts those since the delivery was last (re)queued, and
      // places it on the retry schedule.
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('failures', 'integer', (c) => c.notNull())
      .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
      .addColumn('last_status', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('finished_at', 'bigint')
      .addUniqueConstraint('webhook_deliveries_once', ['webhook_id', 'event_id'])
      .execute();
    await db.schema
      .createIndex('webhook_deliveries_lane')
      .on('webhook_deliveries')
      .columns(['webhook_id', 'state', 'seq'])
      .execute();
    await db.schema.createIndex('webhook_deliveries_by_tenant').on('webhook_deliveries').columns(['tenant', 'seq']).execute();
    await db.schema.createIndex('webhook_deliveries_by_time').on('webhook_deliveries').columns(['finished_at']).execute();

    await db.schema
      .createTable('webhook_attempts')
      .addColumn('delivery_id', 'text', (c) => c.notNull())
      .addColumn('n', 'integer', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('status', 'integer')
      .addColumn('ok', 'integer', (c) => c.notNull())
      .addColumn('latency_ms', 'integer', (c) => c.notNull())
      .addColumn('error', 'text')
      .addPrimaryKeyConstraint('webhook_attempts_pk', ['delivery_id', 'n'])
      .execute();
  },
};
