import type { Selectable } from 'kysely';
import type {
  AttemptRecord,
  DeliveryFilter,
  DeliveryRecord,
  DeliveryState,
  WebhookPage,
  WebhookRecord,
  WebhookStore,
} from '../../../ports/webhook-store.ts';
import type { Db } from '../connect.ts';
import { bool, json, rowCodec } from '../row-codec.ts';
import type { WebhookDeliveriesTable, WebhooksTable } from '../schema.ts';
import { atomically } from '../sql-unit-of-work.ts';
import { holdTenant } from '../tenants/tenants-statements.ts';
import { inTenant, inWindow, newestFirst } from '../windowed.ts';

type WebhookRow = Omit<Selectable<WebhooksTable>, 'lane_holder' | 'lane_until' | 'next_at'>;

const webhooks = rowCodec<WebhookRecord, WebhookRow>()(
  'id tenant url inactiveReason sealedSecret createdBy createdAt updatedAt deadStreak lastSuccessAt',
  { events: json, active: bool },
);
const toWebhook = webhooks.record;

type DeliveryRow = Omit<Selectable<WebhookDeliveriesTable>, 'payload'>;

/** The stored state (`queued`, `delivered`, `dead`) as the API names it. */
const shownState = (r: Pick<DeliveryRow, 'state' | 'failures'>): DeliveryState =>
  r.state === 'queued' ? (Number(r.failures) > 0 ? 'failed' : 'pending') : (r.state as DeliveryState);

const toDelivery = (r: DeliveryRow): DeliveryRecord & { seq: number } => ({
  seq: Number(r.seq),
  id: r.id,
  webhookId: r.webhook_id,
  tenant: r.tenant,
  eventId: r.event_id,
  eventType: r.event_type,
  state: shownState(r),
  attempts: Number(r.attempts),
  nextAttemptAt: r.state === 'queued' ? Number(r.next_attempt_at) : null,
  lastStatus: r.last_status === null ? null : Number(r.last_status),
  lastError: r.last_error,
  createdAt: Number(r.created_at),
  finishedAt: r.finished_at === null ? null : Number(r.finished_at),
});

const DELIVERY_COLUMNS = [
  'seq',
  'id',
  'webhook_id',
  'tenant',
  'event_id',
  'event_type',
  'state',
  'attempts',
  'failures',
  'next_attempt_at',
  'last_status',
  'last_error',
  'created_at',
  'finished_at',
] as const;

const WEBHOOK_COLUMNS = [
  'id',
  'tenant',
  'url',
  'events',
  'active',
  'inactive_reason',
  'sealed_secret',
  'created_by',
  'created_at',
  'updated_at',
  'dead_streak',
  'last_success_at',
] as const;

/** The admin side of webhooks; SqlWebhookLanes is the dispatcher's. */
export class SqlWebhookStore implements WebhookStore {
  constructor(private readonly db: Db) {}

  async create(w: WebhookRecord, max: number): Promise<boolean> {
    return atomically(this.db, async (trx) => {
      // Counted under the tenant's row: of registrations at once, each counts the ones committed
      // before it, as one after another would (a count read beside another's uncommitted insert
      // would let both pass the limit).
      await holdTenant(trx, w.tenant);
      const had = await trx
        .selectFrom('webhooks')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('tenant', '=', w.tenant)
        .executeTakeFirstOrThrow();
      if (Number(had.n) >= max) return false;
      await trx.insertInto('webhooks').values(webhooks.row(w)).execute();
      return true;
    });
  }

  private webhooks(within: string | null) {
    return this.db.selectFrom('webhooks').select(WEBHOOK_COLUMNS).where(inTenant(within));
  }

  async get(id: string, within: string | null): Promise<WebhookRecord | undefined> {
    const row = await this.webhooks(within).where('id', '=', id).executeTakeFirst();
    return row && toWebhook(row);
  }

  async list(within: string | null, page: WebhookPage): Promise<WebhookRecord[]> {
    const q = this.webhooks(within);
    const rows = await newestFirst(q, ['created_at', 'id'], page).execute();
    return rows.map(toWebhook);
  }

  async listActive(within: string | null): Promise<WebhookRecord[]> {
    const rows = await this.webhooks(within).where('active', '=', 1).orderBy('created_at').execute();
    return rows.map(toWebhook);
  }

  async setActive(id: string, within: string | null, active: boolean, now: number): Promise<boolean> {
    let q = this.db
      .updateTable('webhooks')
      .set(
        active
          ? { active: 1, inactive_reason: null, dead_streak: 0, next_at: 0, updated_at: now }
          : { active: 0, inactive_reason: 'operator', updated_at: now },
      )
      .where('id', '=', id);
    if (within !== null) q = q.where('tenant', '=', within);
    return Number((await q.executeTakeFirst()).numUpdatedRows) === 1;
  }

  async setSecret(id: string, within: string | null, sealedSecret: string, now: number): Promise<boolean> {
    let q = this.db.updateTable('webhooks').set({ sealed_secret: sealedSecret, updated_at: now }).where('id', '=', id);
    if (within !== null) q = q.where('tenant', '=', within);
    return Number((await q.executeTakeFirst()).numUpdatedRows) === 1;
  }

  async deliveries(within: string | null, f: DeliveryFilter): Promise<Array<DeliveryRecord & { seq: number }>> {
    let q = this.db.selectFrom('webhook_deliveries').select(DELIVERY_COLUMNS);
    q = q.where(inTenant(within)).where(inWindow('created_at', f));
    if (f.webhookId !== undefined) q = q.where('webhook_id', '=', f.webhookId);
    if (f.state === 'pending') q = q.where('state', '=', 'queued').where('failures', '=', 0);
    else if (f.state === 'failed') q = q.where('state', '=', 'queued').where('failures', '>', 0);
    else if (f.state !== undefined) q = q.where('state', '=', f.state);
    if (f.afterSeq !== undefined) q = q.where('seq', '<', f.afterSeq);
    const rows = await q.orderBy('seq', 'desc').limit(f.limit).execute();
    return rows.map(toDelivery);
  }

  async delivery(id: string, within: string | null): Promise<(DeliveryRecord & { attemptLog: AttemptRecord[] }) | undefined> {
    let q = this.db.selectFrom('webhook_deliveries').select(DELIVERY_COLUMNS).where('id', '=', id);
    if (within !== null) q = q.where('tenant', '=', within);
    const row = await q.executeTakeFirst();
    if (!row) return undefined;
    const attempts = await this.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', '=', id)
      .orderBy('n')
      .execute();
    const { seq: _seq, ...delivery } = toDelivery(row);
    return {
      ...delivery,
      attemptLog: attempts.map((a) => ({
        n: Number(a.n),
        at: Number(a.at),
        status: a.status === null ? null : Number(a.status),
        ok: Number(a.ok) === 1,
        latencyMs: Number(a.latency_ms),
        error: a.error,
      })),
    };
  }

  async redrive(id: string, within: string | null, now: number): Promise<boolean> {
    let q = this.db
      .updateTable('webhook_deliveries')
      .set({ state: 'queued', failures: 0, next_attempt_at: now, finished_at: null })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('state', '=', 'dead'), eb.and([eb('state', '=', 'queued'), eb('failures', '>', 0)])]));
    if (within !== null) q = q.where('tenant', '=', within);
    const row = await q.returning('webhook_id').executeTakeFirst();
    if (!row) return false;
    // The endpoint's lane was waiting for this delivery's retry: it may send now.
    await this.db.updateTable('webhooks').set({ next_at: 0 }).where('id', '=', row.webhook_id).execute();
    return true;
  }
}
