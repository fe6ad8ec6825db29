import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Actor } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import type { Random } from '../../core/random.ts';
import { inSpan, SpanKind } from '../../core/tracing.ts';
import { DISABLE_AFTER_DEAD_LETTERS, nextAttemptAt } from '../../core/webhook-schedule.ts';
import { signBody } from '../../core/webhook-signature.ts';
import { FetchRefused, type HttpFetcher } from '../../ports/http-fetcher.ts';
import type { KeyVault } from '../../ports/key-vault.ts';
import type { Meter } from '../../ports/meter.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.ts';
import type { AttemptResult, LaneDelivery, WebhookLanes } from '../../ports/webhook-lanes.ts';

/** Knobs of delivery (docs/webhooks.md); the defaults are the documented ones. */
export interface DispatcherOptions {
  /** Delay before each retry, in ms (OPENRAIL_WEBHOOK_RETRY_SCHEDULE). */
  schedule: readonly number[];
  /** Endpoints this process sends to at once. */
  lanes?: number;
  /** One attempt, from DNS to the response's headers. */
  attemptTimeoutMs?: number;
  /** How often a process looks for work it was not woken for (another process's events, due retries). */
  pollMs?: number;
  /** Counts each attempt's result (docs/operations.md, "Metrics"). */
  meter?: Meter;
}

export const ATTEMPT_TIMEOUT_MS = 10_000;
/** A lane is leased for an attempt's timeout plus this margin, and renewed by every delivery. */
const LEASE_MARGIN_MS = 5_000;
const ROUTE_BATCH = 500;
/** Deliveries a lane sends before it gives its endpoint back, so busy endpoints take turns. */
const LANE_BATCH = 100;
/** After a commit, the dispatcher looks again at most this often, so busy writers share its passes. */
const COMMIT_GAP_MS = 5;

export interface DispatcherDeps {
  /**
   * The lanes. Their reads, routing, and the records that are all or nothing on their own, are
   * called outside a unit of work; a dead letter (with its audit entry) inside `uow.run`.
   */
  laneStore: WebhookLanes;
  uow: UnitOfWork;
  fetcher: HttpFetcher;
  vault: KeyVault;
  clock: Clock;
  random: Random;
  log: FastifyBaseLogger;
  options: DispatcherOptions;
  /** The node this process runs on (OPENRAIL_NODE_ID): its claims on deliveries name it. */
  node?: string;
}

/**
 * Sends webhook deliveries (docs/webhooks.md, "How delivery works"). Routing turns outbox events
 * into one delivery per subscribed endpoint, in one transaction with marking the events routed.
 * Each endpoint is a lane: this process leases it, sends its queued deliveries oldest first,
 * one at a time, and records each attempt in a transaction of its own. A failure stops the lane
 * until the delivery's retry is due, so a later event never overtakes an earlier one that is
 * being retried.
 */
export class WebhookDispatcher {
  readonly holder: string;
  private readonly lanes = new Map<string, Promise<void>>();
  private readonly maxLanes: number;
  private readonly timeoutMs: number;
  private readonly pollMs: number;
  private timer: NodeJS.Timeout | undefined;
  private pumping: Promise<void> | undefined;
  private again = false;
  private stopping = false;
  /**
   * Set by start(). Until then nothing runs by itself: a committed event or a finished lane
   * wakes nothing, and only runOnce() (tests driving a test clock) sends.
   */
  private started = false;
  /** Whether the last routing saw an active endpoint; until then, assume one. */
  private endpoints = true;
  private lastPump = 0;
  private soon: NodeJS.Timeout | undefined;
  /** Events were committed during a pass: look again after it, keeping the gap. */
  private committedMeanwhile = false;
  constructor(private readonly deps: DispatcherDeps) {
    this.holder = `${deps.node ?? hostname()}:${process.pid}:${Buffer.from(deps.random.bytes(4)).toString('hex')}`;
    this.maxLanes = deps.options.lanes ?? 8;
    this.timeoutMs = deps.options.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS;
    this.pollMs = deps.options.pollMs ?? 500;
  }

  start(): void {
    this.started = true;
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
    this.wake();
  }

  /**
   * This process committed events. With no active endpoint anywhere (as of the last routing) the
   * poll routes them, in bigger batches; otherwise the dispatcher looks at once, or within
   * COMMIT_GAP_MS of its last pass.
   */
  committed(): void {
    if (!this.started || !this.endpoints || this.stopping) return;
    if (this.pumping) {
      this.committedMeanwhile = true;
      return;
    }
    const wait = this.lastPump + COMMIT_GAP_MS - Date.now();
    if (wait <= 0) this.wake();
    else {
      this.soon ??= setTimeout(() => {
        this.soon = undefined;
        this.wake();
      }, wait);
    }
  }

  /** Looks for work now (an endpoint changed, a lane finished, the poll). */
  wake(): void {
    if (!this.started || this.stopping) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = this.pump()
      .catch((err) => this.deps.log.error({ err }, 'webhook dispatch failed'))
      .finally(() => {
        this.pumping = undefined;
        if (this.committedMeanwhile) {
          this.committedMeanwhile = false;
          this.committed();
        }
      });
  }

  /** Routes what is due, sends what is due, and waits until every lane it started has finished (tests). */
  async runOnce(): Promise<void> {
    await this.pumping;
    await this.pump();
    while (this.lanes.size > 0) await Promise.all([...this.lanes.values()]);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    clearTimeout(this.soon);
    await this.pumping;
    await Promise.all([...this.lanes.values()]);
  }

  private async pump(): Promise<void> {
    do {
      this.again = false;
      this.lastPump = Date.now();
      while (!this.stopping) {
        // All or nothing on its own; a pass with nothing to route is one read.
        const routed = await this.deps.laneStore.route(this.deps.clock.now(), ROUTE_BATCH);
        if (routed.endpoints !== null) this.endpoints = routed.endpoints > 0;
        // Less than a batch: it took every event there was (a commit since wakes it again), or
        // another process routed them first.
        if (routed.events < ROUTE_BATCH) break;
      }
      await this.claimLanes();
    } while (this.again && !this.stopping);
  }

  private async claimLanes(): Promise<void> {
    const free = this.maxLanes - this.lanes.size;
    const now = this.deps.clock.now();
    if (free <= 0 || this.stopping || !(await this.deps.laneStore.lanesDue(now))) return;
    const claimed = await this.deps.laneStore.claim(this.holder, now, now + this.leaseMs(), free);
    for (const webhookId of claimed) {
      const lane = this.runLane(webhookId)
        .catch((err) => this.deps.log.error({ err, webhookId }, 'webhook lane failed'))
        .finally(() => {
          this.lanes.delete(webhookId);
          this.wake();
        });
      this.lanes.set(webhookId, lane);
    }
  }

  private leaseMs(): number {
    return this.timeoutMs + LEASE_MARGIN_MS;
  }

  /**
   * Sends the lane's queue in order until it is empty, an attempt fails, or the process stops.
   * A success is recorded while the next delivery is being sent (one record in flight, in order):
   * a failure waits for the records before it and stops the lane.
   */
  private async runLane(webhookId: string): Promise<void> {
    let sent = 0;
    let keep = true;
    while (keep && !this.stopping && sent < LANE_BATCH) {
      const target = await this.deps.laneStore.target(webhookId, this.holder);
      // The lane was lost, or the endpoint deactivated meanwhile: give back whatever is still ours.
      if (!target) return this.deps.laneStore.release(webhookId, this.holder);
      const queue = await this.deps.laneStore.queue(webhookId, Math.min(20, LANE_BATCH - sent));
      if (queue.length === 0) break;
      const secret = this.deps.vault.open(target.sealedSecret, `webhook:${webhookId}`);
      let recorded: Promise<void> = Promise.resolve();
      for (const delivery of queue) {
        const at = this.deps.clock.now();
        const outcome = await this.send(target.url, secret, delivery);
        await recorded;
        const result = { deliveryId: delivery.id, webhookId, holder: this.holder, n: delivery.attempts + 1, at, ...outcome };
        sent++;
        if (outcome.ok) {
          this.deps.options.meter?.delivery('delivered');
          recorded = this.deps.laneStore.delivered(result, this.deps.clock.now() + this.leaseMs());
          // Awaited before the next record or failure; until then a rejection must not count as unhandled.
          recorded.catch(() => {});
        } else {
          keep = await this.failed(webhookId, delivery, result);
          if (!keep) break;
        }
        if (this.stopping) break;
      }
      await recorded;
    }
    if (keep) await this.deps.laneStore.release(webhookId, this.holder);
  }

  /** Records a failed attempt: a retry later (the lane stops), or a dead letter; answers whether the lane goes on. */
  private async failed(webhookId: string, d: LaneDelivery, result: AttemptResult): Promise<boolean> {
    const retryAt = nextAttemptAt(this.deps.options.schedule, d.failures + 1, this.deps.clock.now(), this.deps.random.fraction());
    this.deps.options.meter?.delivery(retryAt === null ? 'dead' : 'failed');
    if (retryAt !== null) {
      await this.deps.laneStore.retryLater(result, retryAt);
      return false;
    }
    return this.deps.uow.run(async ({ audit }) => {
      const disabledTenant = await this.deps.laneStore.deadLetter(
        result,
        this.deps.clock.now() + this.leaseMs(),
        DISABLE_AFTER_DEAD_LETTERS,
      );
      if (disabledTenant === null) return true;
      await audit.append({
        actor: WEBHOOK_DISPATCHER,
        action: 'webhook.disabled',
        tenant: disabledTenant,
        target: webhookId,
        detail: { deadLetters: DISABLE_AFTER_DEAD_LETTERS },
      });
      return false;
    });
  }

  /** One attempt, a trace of its own (`webhook delivery`, named by the event's type), its POST under it. */
  private send(url: string, secret: string, d: LaneDelivery): ReturnType<WebhookDispatcher['attempt']> {
    return inSpan('webhook delivery', SpanKind.INTERNAL, { 'openrail.event.type': d.eventType }, () =>
      this.attempt(url, secret, d),
    );
  }

  private async attempt(
    url: string,
    secret: string,
    d: LaneDelivery,
  ): Promise<{ ok: boolean; status: number | null; latencyMs: number; error: string | null }> {
    const began = performance.now();
    try {
      const { status, latencyMs } = await this.deps.fetcher.post(url, {
        headers: {
          'content-type': 'application/json',
          'user-agent': 'openrail-webhooks/1',
          'x-svc-event': d.eventType,
          'x-svc-delivery': d.id,
          'x-svc-timestamp': String(Math.floor(this.deps.clock.now() / 1000)),
          'x-svc-signature': signBody(secret, d.payload),
        },
        body: d.payload,
        timeoutMs: this.timeoutMs,
      });
      // Only a 2xx is a delivery; a 3xx is a failure and its Location is never visited.
      const ok = status >= 200 && status < 300;
      const error = ok ? null : status >= 300 && status < 400 ? `redirect ${status} not followed` : `answered ${status}`;
      return { ok, status, latencyMs, error };
    } catch (err) {
      const error = err instanceof FetchRefused ? `${err.reason}: ${err.message}` : 'failed';
      return { ok: false, status: null, latencyMs: performance.now() - began, error };
    }
  }
}

const WEBHOOK_DISPATCHER: Actor = { kind: 'system', what: 'webhooks' };
