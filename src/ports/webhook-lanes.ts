/**
 * The dispatcher's side of webhooks (docs/webhooks.md, "How delivery works"): routing outbox
 * events into deliveries, and the lanes, each one endpoint's queue sent by one process at a time.
 */
export interface LaneDelivery {
  id: string;
  payload: string;
  eventType: string;
  attempts: number;
  failures: number;
}

export interface LaneTarget {
  url: string;
  sealedSecret: string;
}

export interface AttemptResult {
  deliveryId: string;
  webhookId: string;
  holder: string;
  /** The attempt's number: the delivery's attempts so far plus one. */
  n: number;
  at: number;
  status: number | null;
  latencyMs: number;
  error: string | null;
}

export interface WebhookLanes {
  /**
   * Routes the oldest unrouted events, up to `limit`, into deliveries, all or nothing on its own
   * (called outside a unit of work; with nothing to route, one read that writes nothing): how many
   * (0 when none waited, or another process routed them first), and how many active endpoints
   * (null: not looked).
   */
  route(now: number, limit: number): Promise<{ events: number; endpoints: number | null }>;
  /** Whether some active endpoint has a queued delivery and a free lane now (a read). */
  lanesDue(now: number): Promise<boolean>;
  /** Takes the lanes of up to `max` due endpoints until `until`, in one conditional write (atomic on its own). */
  claim(holder: string, now: number, until: number, max: number): Promise<string[]>;
  /** The endpoint's address and secret, while `holder` holds its lane and it is active. */
  target(webhookId: string, holder: string): Promise<LaneTarget | undefined>;
  /** The endpoint's queued deliveries, oldest first. */
  queue(webhookId: string, limit: number): Promise<LaneDelivery[]>;
  /** Delivered; the lane is kept until `leaseUntil`. All or nothing, on its own (one round trip on PostgreSQL). */
  delivered(a: AttemptResult, leaseUntil: number): Promise<void>;
  /** Tried again at `retryAt`, the lane released. All or nothing, on its own. */
  retryLater(a: AttemptResult, retryAt: number): Promise<void>;
  /** Inside a transaction: dead-lettered; answers the tenant of an endpoint this disabled, else null. */
  deadLetter(a: AttemptResult, leaseUntil: number, disableAt: number): Promise<string | null>;
  /** Deletes finished deliveries and routed events older than `cutoff`, up to `batch` of each. */
  prune(cutoff: number, batch: number): Promise<{ deliveries: number; events: number }>;
  /** Gives the lane back. */
  release(webhookId: string, holder: string): Promise<void>;
}
