import type { EventType } from '../core/events.ts';

/**
 * Webhook endpoints, their deliveries and attempts (docs/webhooks.md). Every method that reads or
 * changes an endpoint or a delivery takes `within`: the tenant a scoped operator is held to, or
 * null for a platform operator. A row of another tenant is then as absent as an unknown one.
 */
export interface WebhookRecord {
  id: string;
  tenant: string;
  url: string;
  events: EventType[];
  active: boolean;
  /** Why it is inactive: `operator` (deactivated) or `failing` (disabled by the dispatcher). */
  inactiveReason: 'operator' | 'failing' | null;
  /** The signing secret, sealed under the master key. */
  sealedSecret: string;
  createdBy: string;
  createdAt: number;
  updatedAt: number;
  deadStreak: number;
  lastSuccessAt: number | null;
}

/** As the API shows it: `pending` (not yet attempted), `failed` (a retry is scheduled), `delivered`, `dead`. */
export type DeliveryState = 'pending' | 'failed' | 'delivered' | 'dead';

export interface DeliveryRecord {
  id: string;
  webhookId: string;
  tenant: string;
  eventId: string;
  eventType: string;
  state: DeliveryState;
  attempts: number;
  /** When the next attempt is due; null once delivered or dead. */
  nextAttemptAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: number;
  finishedAt: number | null;
}

export interface AttemptRecord {
  n: number;
  at: number;
  /** The HTTP status the target answered; null when it did not answer (refused, timeout, network). */
  status: number | null;
  ok: boolean;
  latencyMs: number;
  error: string | null;
}

/** A page of endpoints, newest first: (createdAt, id) descending; the window is `createdAt` (ms). */
export interface WebhookPage {
  since?: number;
  until?: number;
  /** The last endpoint of the page before: [createdAt, id]. */
  after?: readonly [number, string];
  limit: number;
}

/** A page of deliveries, newest first (by `seq`); the window is `createdAt` (ms). */
export interface DeliveryFilter {
  webhookId?: string;
  state?: DeliveryState;
  since?: number;
  until?: number;
  /** The last delivery of the page before: its seq. */
  afterSeq?: number;
  limit: number;
}

/** @tenantOwned */
export interface WebhookStore {
  /**
   * Writes the endpoint unless its tenant has `max` endpoints already (false: nothing written).
   * The count and the insert are one operation of the store, under the tenant's row: endpoints
   * registered at once cannot both pass the limit.
   */
  create(webhook: WebhookRecord, max: number): Promise<boolean>;
  get(id: string, within: string | null): Promise<WebhookRecord | undefined>;
  list(within: string | null, page: WebhookPage): Promise<WebhookRecord[]>;
  /** Active endpoints only, of every tenant `within` allows. */
  listActive(within: string | null): Promise<WebhookRecord[]>;
  /** Activating also clears the dead-letter streak and lets the lane send at once. Answers false when unknown. */
  setActive(id: string, within: string | null, active: boolean, now: number): Promise<boolean>;
  setSecret(id: string, within: string | null, sealedSecret: string, now: number): Promise<boolean>;

  deliveries(within: string | null, filter: DeliveryFilter): Promise<Array<DeliveryRecord & { seq: number }>>;
  delivery(id: string, within: string | null): Promise<(DeliveryRecord & { attemptLog: AttemptRecord[] }) | undefined>;
  /** A dead or failed delivery is due again now, as a fresh one (its attempts so far stay logged). */
  redrive(id: string, within: string | null, now: number): Promise<boolean>;
}
