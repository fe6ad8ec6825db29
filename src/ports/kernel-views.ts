import type { AuditEntry } from '../core/audit-chain.ts';
import type { EventOf } from '../core/events.ts';
import type { PageWindow } from '../core/page.ts';
import type { KeyPurpose } from './signing-key-store.ts';
import type { SourcePage } from './timeline-page.ts';

/**
 * What the kernel's own tables (adapters/sql/owners.ts, `kernel`: the audit chain, the outbox, job
 * leases, signing keys, mail outcomes) publish to modules: reads only, each method with its SQL in
 * `adapters/sql/kernel/` (docs/architecture.md, "Tables, owners and views"). A module reaches them
 * as `ctx.views`; what writes these tables is the kernel's (units of work, the job runner, the key
 * store, the mailer). A read that takes a tenant narrows to it (null: every tenant's).
 * @tenantOwned
 */
export interface KernelViews {
  /** Audit entries from `fromSeq` on, in chain order, at most `limit`. */
  auditEntries(fromSeq: number, limit: number): Promise<AuditEntry[]>;
  /**
   * Audit entries of any of `actions`, about `target` when it is given, newest first (cursor: the
   * seq), within the window on `at`; of every tenant.
   */
  auditOfActions(
    actions: readonly string[],
    target: string | undefined,
    page: PageWindow<readonly [number]>,
  ): Promise<AuditEntry[]>;
  /** The head row every append moves: the last entry's seq and hash. */
  auditHead(): Promise<AuditHead>;
  /** One audit entry by its seq, whatever its tenant (the caller judges who may see it). */
  auditEntry(seq: number): Promise<AuditEntry | undefined>;
  /** A page of the audit log, in either order, narrowed as the query says. */
  auditPage(query: AuditListQuery): Promise<AuditEntry[]>;
  /** The first audit entry of `action` naming `target`. */
  auditMark(action: string, target: string, tenant: string | null): Promise<AuditMark | undefined>;
  /** Audit entries whose target is `key` or whose detail mentions it, for a timeline: in (at, seq) order. */
  auditNaming(key: string, tenant: string | null, page: SourcePage): Promise<AuditEntry[]>;
  /** A page of the outbox, newest first, as the activity feed reads it. */
  activity(query: ActivityQuery): Promise<OutboxRow[]>;
  /** Outbox events whose payload mentions `key`, for a timeline: in (createdAt, id) order. */
  eventsNaming(key: string, tenant: string | null, page: SourcePage): Promise<OutboxRow[]>;
  /**
   * Hosted-verification outcomes per UTC day and vct (the `presentation.*` events, written to
   * `root`); `vct` narrows to one type's vct, `vctPrefix` to a tenant's.
   */
  verificationsPerDay(window: {
    since: number;
    until: number;
    vct?: string;
    vctPrefix?: string;
  }): Promise<VerificationDayCount[]>;
  /** The audit entries of one action (`credential.revoked`, `key.rotated`), newest first (cursor: the seq). */
  auditOfAction(action: string, tenant: string | null, page: PageWindow<readonly [number]>): Promise<ActionEntry[]>;
  /** Every job's lease, by job name. */
  jobLeases(): Promise<JobLeaseRow[]>;
  /** Events written to the outbox and not yet routed to endpoints: how many, and the oldest one's time. */
  unroutedEvents(): Promise<{ count: number; oldestAt: number | null }>;
  /** What the mail transport sent and refused since `since`. */
  mailRates(since: number): Promise<MailRates>;
  /** Signing keys (no private part), of one tenant or all, newest first ([createdAt, kid] descending). */
  signingKeys(tenant: string | null, page: PageWindow<readonly [number, string]>): Promise<KeyRow[]>;
  /** Issuer keys superseded by a rotation and not retired yet, of every tenant, oldest superseded first (at most `limit`). */
  supersededKeys(limit: number, purpose: KeyPurpose): Promise<KeyRow[]>;
  /** The keys that sign now (neither superseded nor retired), of every tenant, by tenant and purpose: at most `limit`. */
  activeKeys(limit: number): Promise<KeyRow[]>;
  /** Issuer keys that sign now (not superseded or retired) created before `before`, oldest first, at most `limit`. */
  signingKeysOlderThan(tenant: string | null, before: number, limit: number): Promise<KeyRow[]>;
  /** The issuer keys among `keys` (each named by its tenant and kid), found or not, in no order. */
  issuerKeys(keys: readonly { tenant: string; kid: string }[]): Promise<KeyRow[]>;
  /** The time of the operator's newest sign-in (`operator.signed_in`), null if it never signed in. */
  lastSignIn(username: string): Promise<number | null>;
  /**
   * The positions of `keys` (rows of text, each as long as the first) in the order the database
   * sorts them, column by column: how an ORDER BY over those columns would list them, under the
   * database's collation. Reads no table; it lets a list merged from two owners' views page as
   * each owner's query does.
   */
  collate(keys: readonly (readonly string[])[]): Promise<number[]>;
  /**
   * Per tenant and event type, the events written since `since`, how many went to no endpoint and
   * how many wait for routing; of one tenant (`within`) or, null, every tenant's.
   */
  eventCoverage(within: string | null, since: number): Promise<EventCoverageRow[]>;
}

/** An audit entry of one action, as the ops lists show it (revocations, rotations). */
export interface ActionEntry {
  seq: number;
  at: number;
  actor: string;
  /** '' for the platform's entries. */
  tenant: string;
  target: string;
  detail: Record<string, unknown>;
}

export interface JobLeaseRow {
  name: string;
  holder: string;
  leaseUntil: number;
  startedAt: number;
  finishedAt: number | null;
  lastError: string | null;
}

export interface MailRates {
  sent: number;
  refused: number;
  /** Refusals by failure class (an SMTP reply code or a transport error code). */
  failures: Record<string, number>;
  lastRefusedAt: number | null;
}

export interface KeyRow {
  tenant: string;
  kid: string;
  purpose: 'issuer' | 'verifier';
  createdAt: number;
  /** Replaced by a rotation: still published, no longer signing. */
  supersededAt: number | null;
  retiredAt: number | null;
  /** Where its private part is, for a key in a PKCS#11 token (docs/keys.md); null for a sealed key. */
  keyObject: { token: string; label: string; id: string } | null;
}

/** A page of the audit log: newest first (`desc`) or oldest first (`asc`), after the cursor's seq. */
export interface AuditListQuery {
  /** The tenant shown; null for every tenant (entries of no tenant included). */
  tenant: string | null;
  /** Exact actor label (`operator:ana`). */
  actor?: string;
  /** Exact action (`org.created`), or a prefix ending in `.` (`org.`). */
  action?: string;
  /** On `at`, milliseconds: since inclusive, until exclusive. */
  since?: number;
  until?: number;
  order: 'asc' | 'desc';
  /** The seq of the last entry of the page before. */
  afterSeq?: number;
  /** Rows to read (the page size plus one). */
  limit: number;
}

/** The head row every append moves (docs/audit.md): the last entry's seq and hash. */
export interface AuditHead {
  seq: number;
  hash: string;
}

/** Who wrote an audit entry, and when: the entry that marks a moment of an object's life. */
export interface AuditMark {
  seq: number;
  at: number;
  actor: string;
}

/** One outbox row: an event as the map types it (core/events.ts), its time in milliseconds. */
export type OutboxRow = EventOf<{ seq: number; id: string; createdAt: number }>;

export interface ActivityQuery {
  /**
   * The tenant shown; null for every tenant. A tenant's feed holds its own events and the
   * `presentation.*` events (written to `root`) whose `vct` starts with `vctPrefix`.
   */
  tenant: string | null;
  /** The tenant's `<issuer>/types/`, when `tenant` is set. */
  vctPrefix?: string;
  /** Event types shown; all when absent. */
  types?: readonly string[];
  since?: number;
  until?: number;
  /** The seq of the last row of the page before; newest first. */
  beforeSeq?: number;
  limit: number;
}

/** Hosted-verification outcomes per day and `vct`: the caller maps the vct to its tenant and type. */
export interface VerificationDayCount {
  day: number;
  vct: string;
  completed: number;
  failed: number;
}

/** The events of one tenant and type since a time, and what routing made of them. */
export interface EventCoverageRow {
  tenant: string;
  type: string;
  events: number;
  /** Routed to no endpoint. */
  unrouted: number;
  /** Not routed yet: the dispatcher has not reached them. */
  waiting: number;
}
