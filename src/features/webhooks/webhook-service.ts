import { isIP } from 'node:net';
import type { Static } from '@sinclair/typebox';
import { type Actor, actorLabel } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import type { EventType } from '../../core/events.ts';
import type { Ids } from '../../core/ids.ts';
import { isPublicAddress } from '../../core/public-address.ts';
import type { Random } from '../../core/random.ts';
import { cursorOf, type ListParams, page, windowOf } from '../../http/admin/kit.ts';
import type { KernelViews } from '../../ports/kernel-views.ts';
import type { KeyVault } from '../../ports/key-vault.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.ts';
import type { AttemptRecord, DeliveryRecord, DeliveryState, WebhookRecord, WebhookStore } from '../../ports/webhook-store.ts';
import type { Delivery, Webhook } from './schemas.ts';

/** Endpoints one tenant may register (docs/webhooks.md). */
export const MAX_WEBHOOKS_PER_TENANT = 20;
const MAX_URL_LENGTH = 2048;
/** How far back coverage looks, at most. */
export const MAX_COVERAGE_DAYS = 30;

export type WebhookView = Static<typeof Webhook>;

export type DeliveryView = Static<typeof Delivery>;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const webhookView = (w: WebhookRecord): WebhookView => ({
  id: w.id,
  tenant: w.tenant,
  url: w.url,
  events: w.events,
  active: w.active,
  inactiveReason: w.inactiveReason,
  createdAt: new Date(w.createdAt).toISOString(),
  createdBy: w.createdBy,
  lastSuccessAt: iso(w.lastSuccessAt),
  deadStreak: w.deadStreak,
});

const deliveryView = (d: DeliveryRecord): DeliveryView => ({
  id: d.id,
  webhookId: d.webhookId,
  tenant: d.tenant,
  eventId: d.eventId,
  eventType: d.eventType,
  state: d.state,
  attempts: d.attempts,
  nextAttemptAt: iso(d.nextAttemptAt),
  lastStatus: d.lastStatus,
  lastError: d.lastError,
  createdAt: new Date(d.createdAt).toISOString(),
  finishedAt: iso(d.finishedAt),
});

const attemptView = (a: AttemptRecord) => ({ ...a, at: new Date(a.at).toISOString() });

/**
 * Registration rules (docs/webhooks.md, "Endpoints"): https, no credentials or fragment, and not a
 * private address written literally, unless the origin is one OPENRAIL_OUTBOUND_ALLOW lists. A
 * name is not resolved here: DNS can change, so every attempt judges the address it connects to.
 */
export function checkWebhookUrl(raw: string, allowOrigins: readonly string[]): string {
  const refuse = (why: string) => new ServiceError('invalid_webhook_url', `The webhook URL ${why}.`);
  if (raw.length > MAX_URL_LENGTH) throw refuse(`is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('does not parse');
  }
  const allowed = allowOrigins.includes(url.origin);
  if (url.protocol !== 'https:' && !(allowed && url.protocol === 'http:')) throw refuse('must use https');
  if (url.username !== '' || url.password !== '') throw refuse('must not carry credentials');
  if (url.hash !== '') throw refuse('must not carry a fragment');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!allowed && isIP(host) !== 0 && !isPublicAddress(host)) throw refuse('names an address that is not public');
  return url.href;
}

export interface WebhookServiceDeps {
  store: WebhookStore;
  /** The kernel's view of the outbox: which events each tenant wrote, and where they went. */
  events: Pick<KernelViews, 'eventCoverage'>;
  uow: UnitOfWork;
  vault: KeyVault;
  clock: Clock;
  random: Random;
  ids: Ids;
  tenantExists: (slug: string) => Promise<boolean>;
  allowOrigins: readonly string[];
  /** Wakes the dispatcher, so a ping or a re-drive goes out at once. */
  wake: () => void;
}

/** The operator's side of webhooks: endpoints, their secrets, deliveries and re-drives. */
export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  private newSecret(id: string): { secret: string; sealed: string } {
    const secret = `whsec_${this.deps.random.text(32)}`;
    return { secret, sealed: this.deps.vault.seal(secret, `webhook:${id}`) };
  }

  async register(actor: Actor, input: { tenant: string; url: string; events: EventType[] }) {
    const url = checkWebhookUrl(input.url, this.deps.allowOrigins);
    if (!(await this.deps.tenantExists(input.tenant))) {
      throw new ServiceError('unknown_tenant', `No tenant has the slug "${input.tenant}".`);
    }
    const events = [...new Set(input.events)].sort();
    const id = this.deps.ids.mint('webhook');
    const { secret, sealed } = this.newSecret(id);
    const now = this.deps.clock.now();
    const record: WebhookRecord = {
      id,
      tenant: input.tenant,
      url,
      events,
      active: true,
      inactiveReason: null,
      sealedSecret: sealed,
      createdBy: actorLabel(actor),
      createdAt: now,
      updatedAt: now,
      deadStreak: 0,
      lastSuccessAt: null,
    };
    const auditSeq = await this.deps.uow.run(async ({ audit }) => {
      // The store counts and writes as one operation: a count read here first would let
      // registrations at once all pass it.
      if (!(await this.deps.store.create(record, MAX_WEBHOOKS_PER_TENANT))) {
        throw new ServiceError('webhook_limit', `A tenant may have ${MAX_WEBHOOKS_PER_TENANT} webhook endpoints.`);
      }
      // The first event an endpoint receives tests it, and its secret.
      return audit.append({ actor, action: 'webhook.registered', tenant: input.tenant, target: id, detail: { events } }, [
        { type: 'webhook.ping', tenant: input.tenant, data: { webhookId: id, reason: 'registered' } },
      ]);
    });
    this.deps.wake();
    return { ok: true as const, auditSeq, webhook: { ...webhookView(record), secret } };
  }

  async get(within: string | null, id: string): Promise<WebhookView> {
    return webhookView(await this.found(within, id));
  }

  private async found(within: string | null, id: string): Promise<WebhookRecord> {
    const webhook = await this.deps.store.get(id, within);
    if (!webhook) throw new ServiceError('unknown_webhook', 'No webhook endpoint you may see has this id.');
    return webhook;
  }

  /** Newest first, on the back office's list convention (docs/backoffice.md, "Conventions"). */
  async list(p: ListParams) {
    const after = cursorOf(p.after, ['number', 'string']);
    const rows = await this.deps.store.list(p.tenant, { limit: p.limit + 1, ...windowOf(p), ...(after ? { after } : {}) });
    const shown = page(rows, p.limit, (w) => [w.createdAt, w.id], webhookView);
    return { webhooks: shown.rows, nextCursor: shown.nextCursor };
  }

  /**
   * Activates or deactivates an endpoint. Activating one that is inactive sends its held
   * deliveries in order; asking to activate one that is already active sends a `webhook.ping`.
   */
  async setActive(actor: Actor, within: string | null, id: string, active: boolean) {
    const before = await this.found(within, id);
    const auditSeq = await this.deps.uow.run(async ({ audit }) => {
      if (!(await this.deps.store.setActive(id, within, active, this.deps.clock.now())))
        throw new ServiceError('unknown_webhook');
      const reason = before.active ? 'ping' : 'activated';
      return audit.append(
        { actor, action: active ? 'webhook.activated' : 'webhook.deactivated', tenant: before.tenant, target: id },
        active ? [{ type: 'webhook.ping', tenant: before.tenant, data: { webhookId: id, reason } }] : [],
      );
    });
    this.deps.wake();
    return { ok: true as const, auditSeq, webhook: webhookView(await this.found(within, id)) };
  }

  /** A new secret, shown this once; every attempt from now on is signed with it. */
  async rotateSecret(actor: Actor, within: string | null, id: string) {
    const before = await this.found(within, id);
    const { secret, sealed } = this.newSecret(id);
    const auditSeq = await this.deps.uow.run(async ({ audit }) => {
      if (!(await this.deps.store.setSecret(id, within, sealed, this.deps.clock.now())))
        throw new ServiceError('unknown_webhook');
      return audit.append(
        { actor, action: 'webhook.secret_rotated', tenant: before.tenant, target: id },
        before.active ? [{ type: 'webhook.ping', tenant: before.tenant, data: { webhookId: id, reason: 'secret-rotated' } }] : [],
      );
    });
    this.deps.wake();
    return { ok: true as const, auditSeq, webhook: { ...webhookView(before), secret } };
  }

  /** Newest first, on the back office's list convention, with the endpoint and state filters. */
  async deliveries(p: ListParams, filter: { webhookId?: string; state?: DeliveryState }) {
    const after = cursorOf(p.after, ['number']);
    const rows = await this.deps.store.deliveries(p.tenant, {
      ...filter,
      ...windowOf(p),
      limit: p.limit + 1,
      ...(after ? { afterSeq: after[0] } : {}),
    });
    const shown = page(rows, p.limit, (d) => [d.seq], deliveryView);
    return { deliveries: shown.rows, nextCursor: shown.nextCursor };
  }

  async delivery(within: string | null, id: string) {
    const found = await this.deps.store.delivery(id, within);
    if (!found) throw new ServiceError('unknown_delivery', 'No webhook delivery you may see has this id.');
    return { ...deliveryView(found), attemptLog: found.attemptLog.map(attemptView) };
  }

  /** A dead delivery, or a failed one waiting for its retry, is sent again now, ahead of later ones. */
  async redrive(actor: Actor, within: string | null, id: string) {
    const found = await this.deps.store.delivery(id, within);
    if (!found) throw new ServiceError('unknown_delivery', 'No webhook delivery you may see has this id.');
    const webhook = await this.found(within, found.webhookId);
    if (!webhook.active) throw new ServiceError('webhook_inactive', 'The endpoint is inactive: activate it, then re-drive.');
    const auditSeq = await this.deps.uow.run(async ({ audit }) => {
      if (!(await this.deps.store.redrive(id, within, this.deps.clock.now()))) {
        throw new ServiceError('delivery_state', `The delivery is ${found.state}: only a dead or failed delivery is re-driven.`);
      }
      return audit.append({
        actor,
        action: 'webhook.delivery_redriven',
        tenant: found.tenant,
        target: id,
        detail: { webhookId: found.webhookId, was: found.state },
      });
    });
    this.deps.wake();
    return { ok: true as const, auditSeq, delivery: await this.delivery(within, id) };
  }

  /**
   * Which event types each tenant's active endpoints cover, and, over the last `days`, which
   * events were written and how many of them went to no endpoint.
   */
  async coverage(within: string | null, days: number) {
    const since = this.deps.clock.now() - days * 86_400_000;
    const [active, seen] = await Promise.all([this.deps.store.listActive(within), this.deps.events.eventCoverage(within, since)]);
    const tenants = new Map<string, { endpoints: number; covered: Set<string>; events: typeof seen }>();
    const entry = (tenant: string) => {
      const known = tenants.get(tenant);
      if (known) return known;
      const fresh = { endpoints: 0, covered: new Set<string>(), events: [] as typeof seen };
      tenants.set(tenant, fresh);
      return fresh;
    };
    for (const w of active) {
      const e = entry(w.tenant);
      e.endpoints++;
      for (const t of w.events) e.covered.add(t);
    }
    for (const row of seen) entry(row.tenant).events.push(row);
    return {
      since: new Date(since).toISOString(),
      tenants: [...tenants.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([tenant, e]) => ({
          tenant,
          activeEndpoints: e.endpoints,
          covered: [...e.covered].sort(),
          events: e.events.map((r) => ({ type: r.type, written: r.events, wentNowhere: r.unrouted, notYetRouted: r.waiting })),
          uncovered: e.events.filter((r) => !e.covered.has(r.type) && r.type !== 'webhook.ping').map((r) => r.type),
        })),
    };
  }
}
