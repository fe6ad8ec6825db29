import type { Counted, Overdue } from './view-records.ts';

/**
 * What the webhooks module's tables (endpoints, deliveries, attempts) publish to other modules
 * (docs/architecture.md, "Tables, owners and views"): counts and ids, never a payload or a secret.
 * A read that takes a tenant narrows to it (null: every tenant's). Times are milliseconds.
 * @tenantOwned
 */
export interface WebhooksViews {
  /** Deliveries waiting for a first attempt or a retry: how many, and the oldest one's time. */
  backlog(): Promise<{ count: number; oldestAt: number | null }>;
  /** Attempts, dead letters and failing endpoints since `since`, over every tenant. */
  rates(since: number): Promise<WebhookRates>;
  /** Deliveries waiting whose next attempt was due before `before`, oldest first, at most `limit`. */
  overdueDeliveries(tenant: string | null, before: number, limit: number): Promise<Overdue[]>;
  /** Endpoints whose lane is held by a lease that ran out before `before`, oldest first, at most `limit`. */
  heldLanes(tenant: string | null, before: number, limit: number): Promise<Overdue[]>;
  /** Dead deliveries: how many, and the `top` last to die. */
  deadDeliveries(tenant: string | null, top: number): Promise<Counted<DeadDelivery>>;
  /** Every tenant's webhook endpoints (their address, events and whether active), by tenant and id, at most `limit`. */
  endpoints(limit: number): Promise<WebhookEndpoint[]>;
}

export interface WebhookRates {
  attempts: number;
  failed: number;
  /** Deliveries that became dead letters. */
  dead: number;
  /** Endpoints with a failed attempt, and those disabled for failing. */
  endpointsFailing: number;
  endpointsDisabled: number;
}

export interface DeadDelivery {
  deliveryId: string;
  webhookId: string;
  tenant: string;
  eventType: string;
  failures: number;
  lastStatus: number | null;
  finishedAt: number | null;
}

/** A webhook endpoint, as a record of who receives data lists it. */
export interface WebhookEndpoint {
  tenant: string;
  url: string;
  events: string[];
  active: boolean;
}
