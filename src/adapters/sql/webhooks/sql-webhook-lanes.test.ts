// Routing the outbox into webhook deliveries (sql-webhook-lanes.ts, `route`): all or nothing, and
// never twice, when two processes route the same events at once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openTestDb, type TestDatabase, tenantRecord, testDatabases } from '../../../../test/helpers/databases.ts';
import type { EventInput } from '../../../core/events.ts';
import { type Db, migrate } from '../connect.ts';
import { SqlEventOutbox } from '../kernel/sql-event-outbox.ts';
import { atomically } from '../sql-unit-of-work.ts';
import { SqlTenantStore } from '../tenants/sql-tenant-store.ts';
import { SqlWebhookLanes } from './sql-webhook-lanes.ts';

const EVENTS = 40;
const NOW = Date.parse('2026-11-29T12:00:00.000Z');

/** An `offer.created` event of acme's, as the offers module writes one. */
const offerCreated = (offerId: string): EventInput => ({
  type: 'offer.created',
  tenant: 'acme',
  data: { offerId, typeId: 'membership', expiresAt: new Date(NOW + 600_000).toISOString() },
});

for (const factory of testDatabases()) {
  describe(`webhook routing (${factory.name})`, () => {
    let target: TestDatabase;
    let handles: [Db, Db];

    before(async () => {
      target = await factory.create();
      handles = [openTestDb(target), openTestDb(target)];
      const [db] = handles;
      await migrate(db);
      await atomically(db, () => new SqlTenantStore(db).create(tenantRecord('acme'), []));
      // One endpoint that subscribes to the events written below, and one that does not.
      for (const [id, events] of [
        ['whk_subscribed', ['offer.created']],
        ['whk_elsewhere', ['credential.revoked']],
      ] as const) {
        await db
          .insertInto('webhooks')
          .values({
            id,
            tenant: 'acme',
            url: 'https://receiver.example/hook',
            events: JSON.stringify(events),
            active: 1,
            inactive_reason: null,
            sealed_secret: 'sealed',
            created_by: 'test',
            created_at: NOW - 1000,
            updated_at: NOW - 1000,
            last_success_at: null,
            lane_holder: null,
          })
          .execute();
      }
    });
    after(async () => {
      for (const h of handles) await h.destroy();
      await target.drop();
    });

    test('two routers at once: every event routed once, with one delivery to the endpoint that subscribed', async () => {
      const [db] = handles;
      const outbox = new SqlEventOutbox(db, { now: () => NOW });
      await atomically(db, async () => {
        for (let i = 0; i < EVENTS; i++) {
          await outbox.emit(offerCreated(`off_${i}`));
        }
      });
      const lanes = handles.map((h) => new SqlWebhookLanes(h));
      // PostgreSQL: both read the same unrouted events, and one batch wins. SQLite's driver is
      // synchronous, so two connections of one process take turns: the second finds nothing left.
      const results =
        factory.name === 'postgres'
          ? await Promise.all(lanes.map((l) => l.route(NOW, 500)))
          : [await (lanes[0] as SqlWebhookLanes).route(NOW, 500), await (lanes[1] as SqlWebhookLanes).route(NOW, 500)];
      assert.equal(
        results.reduce((n, r) => n + r.events, 0),
        EVENTS,
        `the events were routed once in all: ${JSON.stringify(results)}`,
      );
      const deliveries = await db
        .selectFrom('webhook_deliveries')
        .select(['webhook_id', 'event_id', 'payload', 'seq'])
        .orderBy('seq')
        .execute();
      assert.equal(deliveries.length, EVENTS);
      assert.ok(deliveries.every((d) => d.webhook_id === 'whk_subscribed'));
      const events = await db.selectFrom('outbox').select(['id', 'routed_to']).orderBy('seq').execute();
      assert.deepEqual(
        events.map((e) => Number(e.routed_to)),
        Array(EVENTS).fill(1),
      );
      // Queued in the order the events were written, each payload naming its own event.
      assert.deepEqual(
        deliveries.map((d) => d.event_id),
        events.map((e) => e.id),
      );
      assert.deepEqual(
        deliveries.map((d) => (JSON.parse(d.payload) as { data: { offerId: string } }).data.offerId),
        Array.from({ length: EVENTS }, (_, i) => `off_${i}`),
      );
      assert.deepEqual(
        await (lanes[0] as SqlWebhookLanes).route(NOW, 500),
        { events: 0, endpoints: null },
        'nothing is left to route',
      );
    });

    // SQLite's routing holds the only write lock from its first read, so nobody can route meanwhile there.
    test('a router that finds an event routed meanwhile writes nothing of its batch', {
      skip:
        factory.name === 'postgres' ? false : 'PostgreSQL only: on SQLite the routing holds the write lock from its first read',
    }, async () => {
      const [db, other] = handles;
      const outbox = new SqlEventOutbox(db, { now: () => NOW });
      await atomically(db, () => outbox.emit(offerCreated('off_late')));
      const before = await db.selectFrom('webhook_deliveries').select('id').execute();
      // The other process marks the event inside a transaction it keeps open while this router reads
      // the event as unrouted and sends its batch, which then waits on the marked row.
      let commit = () => {};
      const held = new Promise<void>((resolve) => {
        commit = resolve;
      });
      let marked = () => {};
      const markedYet = new Promise<void>((resolve) => {
        marked = resolve;
      });
      const theirs = other.transaction().execute(async (trx) => {
        await trx.updateTable('outbox').set({ routed_to: 0 }).where('routed_to', 'is', null).execute();
        marked();
        await held;
      });
      await markedYet;
      const routing = new SqlWebhookLanes(db).route(NOW, 500);
      await new Promise((resolve) => setTimeout(resolve, 300));
      commit();
      await theirs;
      assert.deepEqual(await routing, { events: 0, endpoints: null });
      const after = await db.selectFrom('webhook_deliveries').select('id').execute();
      assert.equal(after.length, before.length, 'no delivery of the refused batch stays');
      const late = await db
        .selectFrom('outbox')
        .select('routed_to')
        .where('data', 'like', '%off_late%')
        .executeTakeFirstOrThrow();
      assert.equal(Number(late.routed_to), 0, 'the other process’s mark stands');
    });
  });
}
