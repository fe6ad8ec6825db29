/**
 * The operations group's read models (docs/operations.md): read-only queries over tables other
 * modules keep, for health, comms health, keys and status lists. Nothing here writes, and nothing
 * here reads a claim value, an address or a secret. Times are milliseconds.
 */

import type { PageWindow } from '../core/page.ts';

export interface JobLeaseRow {
  name: string;
  holder: string;
  leaseUntil: number;
  startedAt: number;
  finishedAt: number | null;
  lastError: string | null;
}

export interface WebhookBacklog {
  /** Deliveries waiting for a first attempt or a retry. */
  pending: number;
  oldestPendingAt: number | null;
  /** Events written to the outbox and not yet routed to endpoints. */
  unrouted: number;
  oldestUnroutedAt: number | null;
}

export interface MailRates {
  sent: number;
  refused: number;
  /** Refusals by failure class (an SMTP reply code or a transport error code). */
  failures: Record<string, number>;
  lastRefusedAt: number | null;
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

export interface KeyRow {
  tenant: string;
  kid: string;
  purpose: 'issuer' | 'verifier';
  createdAt: number;
  /** Replaced by a rotation: still published, no longer signing. */
  supersededAt: number | null;
  retiredAt: number | null;
}

export interface StatusListRow {
  tenant: string;
  seq: number;
  size: number;
  capacity: number;
  allocated: number;
  revoked: number;
  revision: number;
  createdAt: number;
}

/** An audit entry of one action, as the ops lists show it (revocations, rotations). */
export interface AuditRow {
  seq: number;
  at: number;
  actor: string;
  tenant: string;
  target: string;
  detail: Record<string, unknown>;
}

/** What may be stuck (docs/operations.md, "Stuck work"). */
export type StuckKind = 'presentation' | 'offer' | 'delivery' | 'lane' | 'request' | 'approval';

/** One piece of work past the time it should have moved by. */
export interface StuckRow {
  kind: StuckKind;
  id: string;
  tenant: string | null;
  /** When it should have moved. */
  dueAt: number;
}

/** A breach of the demo-tenant law found in the data (docs/tenants.md). */
export interface DemoBreach {
  rule: 'demo-name' | 'marked-real' | 'demo-item-flag';
  tenant: string;
  /** The rows that break it (items), or the name that does. */
  subject: string;
}

/**
 * Narrows to a tenant where a method takes one (null: every tenant); the health reads are the
 * platform's.
 * @tenantOwned
 */
export interface OpsViews {
  jobLeases(): Promise<JobLeaseRow[]>;
  webhookBacklog(): Promise<WebhookBacklog>;
  mailRates(since: number): Promise<MailRates>;
  webhookRates(since: number): Promise<WebhookRates>;
  /** Signing keys (no private part), of one tenant or all, newest first. */
  keys(tenant: string | null, page: PageWindow<readonly [number, string]>): Promise<KeyRow[]>;
  /** Credentials a tenant issued in [from, to) (to null: up to now): a key's share is its time as the active key. */
  issuedBetween(tenant: string, from: number, to: number | null): Promise<number>;
  /** Of those, the ones neither revoked nor expired at `now`: what a superseded key must stay published for. */
  outstandingBetween(tenant: string, from: number, to: number, now: number): Promise<number>;
  /** Issuer keys superseded by a rotation and not retired yet, of every tenant, oldest first (at most `limit`). */
  supersededKeys(limit: number): Promise<KeyRow[]>;

  /** Status lists, of one tenant or all, by tenant and number; `revoked` is the count of revoked entries. */
  statusLists(tenant: string | null, page: PageWindow<readonly [string, number]>): Promise<StatusListRow[]>;
  /** Work of one kind past its time by more than its grace, oldest first, at most `limit`; of one tenant or all. */
  stuck(kind: StuckKind, tenant: string | null, before: number, limit: number): Promise<StuckRow[]>;
  /** Breaches of the demo-tenant law, at most `limit`. */
  demoBreaches(limit: number): Promise<DemoBreach[]>;
  /** The audit entries of one action (`credential.revoked`, `key.rotated`), newest first (cursor: the seq). */
  auditEntries(action: string, tenant: string | null, page: PageWindow<readonly [number]>): Promise<AuditRow[]>;
  /**
   * Unrevoked credentials (`credentials`) or uncollected offers (`offers`) that expire in
   * [from, to), per tenant and type, soonest first, at most `limit` groups; of one tenant or all.
   */
  expiring(
    what: 'credentials' | 'offers',
    tenant: string | null,
    from: number,
    to: number,
    limit: number,
  ): Promise<ExpiringGroup[]>;
  /** Issuer keys that sign now (not superseded or retired) created before `before`, oldest first, at most `limit`. */
  signingKeysOlderThan(tenant: string | null, before: number, limit: number): Promise<KeyRow[]>;
  /**
   * Offers created since `since`, per tenant and type: how many, how many were redeemed for a
   * token and how many collected (at most `limit` groups, the busiest first).
   */
  issuanceFunnel(tenant: string | null, since: number, limit: number): Promise<FunnelRow[]>;
  /**
   * Hosted presentations opened since `since` (a day's midnight), per tenant and type: the
   * swept ones' daily counts and the live ones together (at most `limit` groups, the busiest first).
   */
  verificationFunnel(tenant: string | null, since: number, limit: number): Promise<FunnelRow[]>;
}

/** One funnel of a tenant and type: its steps' counts, in order (offer, token, credential; request, response, accepted). */
export interface FunnelRow {
  tenant: string;
  typeId: string;
  steps: [number, number, number];
}

/** What expires in a window, of one tenant and type. */
export interface ExpiringGroup {
  tenant: string;
  typeId: string;
  count: number;
  firstAt: number;
}
