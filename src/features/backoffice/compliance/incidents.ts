import { type Actor, actorLabel } from '../../../core/actor.ts';
import type { Clock } from '../../../core/clock.ts';
import { ServiceError } from '../../../core/errors.ts';
import type { Ids } from '../../../core/ids.ts';
import type { PageWindow } from '../../../core/page.ts';
import { ROOT_SLUG } from '../../../core/slug.ts';
import { iso, isoOrNull } from '../../../http/admin/kit.ts';
import type { IncidentRecord, IncidentScope, IncidentState, IncidentStore, Severity } from '../../../ports/incident-store.ts';
import type { IssuanceViews, TouchedTenant } from '../../../ports/issuance-views.ts';
import type { KernelViews, KeyRow } from '../../../ports/kernel-views.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.ts';

/** The notification clock: a supervisory authority is told within 72 hours of becoming aware (GDPR Art. 33). */
export const NOTIFY_WITHIN_MS = 72 * 3_600_000;
/** An incident may say it was detected this long before it was opened, at most. */
const DETECTED_AT_MOST_MS = 366 * 24 * 3_600_000;
const CLOCK_SKEW_MS = 5 * 60_000;

/** The moves an incident makes, and the time each stamps. */
const MOVES: Record<IncidentState, readonly IncidentState[]> = {
  open: ['assessed'],
  assessed: ['notified', 'closed'],
  notified: ['closed'],
  closed: [],
};
const STAMP = { assessed: 'assessedAt', notified: 'notifiedAt', closed: 'closedAt' } as const;

/** A scope as a request gives it: times in RFC 3339. */
export interface ScopeInput {
  since: string;
  until?: string | undefined;
  tenants?: string[] | undefined;
  keys?: { tenant: string; kid: string }[] | undefined;
  types?: { tenant: string; typeId: string }[] | undefined;
}

export interface IncidentInput {
  title: string;
  description?: string | undefined;
  severity: Severity;
  detectedAt?: string | undefined;
  scope: ScopeInput;
}

export interface IncidentChange {
  title?: string | undefined;
  description?: string | undefined;
  severity?: Severity | undefined;
  state?: IncidentState | undefined;
  scope?: ScopeInput | undefined;
}

/**
 * The breach register (docs/backoffice/compliance.md, "Incidents"): incidents open → assessed →
 * notified → closed, each with its 72-hour clock and an affected scope computed from data.
 */
export class Incidents {
  constructor(
    private readonly deps: {
      store: IncidentStore;
      /** The signing keys a scope names. */
      kernel: KernelViews;
      /** The credentials a scope touches. */
      issuance: IssuanceViews;
      uow: UnitOfWork;
      clock: Clock;
      ids: Ids;
    },
  ) {}

  async open(input: IncidentInput, actor: Actor) {
    const now = this.deps.clock.now();
    const detectedAt = input.detectedAt === undefined ? now : this.pastTime(input.detectedAt, now, 'detectedAt');
    const incident: IncidentRecord = {
      id: this.deps.ids.mint('incident'),
      title: input.title,
      description: input.description ?? null,
      severity: input.severity,
      state: 'open',
      scope: this.scopeOf(input.scope, now),
      detectedAt,
      openedAt: now,
      openedBy: actorLabel(actor),
      updatedAt: now,
      assessedAt: null,
      notifiedAt: null,
      closedAt: null,
    };
    return this.deps.uow.run(async ({ audit }) => {
      await this.deps.store.add(incident);
      const auditSeq = await audit.append(
        {
          actor,
          action: 'incident.opened',
          tenant: null,
          target: incident.id,
          detail: { severity: incident.severity, detectedAt: iso(detectedAt) },
        },
        [
          {
            type: 'incident.opened',
            tenant: ROOT_SLUG,
            data: { incidentId: incident.id, severity: incident.severity, state: 'open', detectedAt: iso(detectedAt) },
          },
        ],
      );
      return { ok: true as const, auditSeq, incident: this.view(incident, now) };
    });
  }

  async get(id: string) {
    return this.view(await this.require(id), this.deps.clock.now());
  }

  /** Incidents, newest detected first (the list convention); `views` answers them. */
  list(
    filter: { state?: IncidentState | undefined; severity?: Severity | undefined },
    window: PageWindow<readonly [number, string]>,
  ) {
    return this.deps.store.list(filter, window);
  }

  /** The incidents as they stand now, their clocks running. */
  views(rows: readonly IncidentRecord[]) {
    const now = this.deps.clock.now();
    return rows.map((i) => this.view(i, now));
  }

  /** Changes the fields given; a state moves only along open → assessed → notified → closed (or assessed → closed). */
  async update(id: string, change: IncidentChange, actor: Actor) {
    const now = this.deps.clock.now();
    const names = Object.entries(change)
      .filter(([, v]) => v !== undefined)
      .map(([k]) => k);
    if (names.length === 0) throw new ServiceError('invalid_request', 'Name at least one field to change.');
    return this.deps.uow.run(async ({ audit }) => {
      const found = await this.require(id);
      const next: Partial<IncidentRecord> = { updatedAt: now };
      if (change.title !== undefined) next.title = change.title;
      if (change.description !== undefined) next.description = change.description;
      if (change.severity !== undefined) next.severity = change.severity;
      if (change.scope !== undefined) next.scope = this.scopeOf(change.scope, now);
      if (change.state !== undefined && change.state !== found.state) {
        if (!MOVES[found.state].includes(change.state)) {
          throw new ServiceError('incident_state', `An incident ${found.state} does not move to ${change.state}.`);
        }
        next.state = change.state;
        next[STAMP[change.state as keyof typeof STAMP]] = now;
      }
      if (!(await this.deps.store.update(id, found.state, next))) {
        throw new ServiceError('incident_state', 'The incident changed meanwhile; read it again.');
      }
      const after: IncidentRecord = { ...found, ...next };
      const auditSeq = await audit.append(
        {
          actor,
          action: 'incident.updated',
          tenant: null,
          target: id,
          detail: { changed: names, ...(next.state ? { from: found.state, to: next.state } : {}) },
        },
        [
          {
            type: 'incident.updated',
            tenant: ROOT_SLUG,
            data: { incidentId: id, severity: after.severity, state: after.state, changed: names },
          },
        ],
      );
      return { ok: true as const, auditSeq, incident: this.view(after, now) };
    });
  }

  /** The incidents still running (open or assessed), their clocks first to run out first, at most `limit` of each state. */
  async running(limit: number) {
    const now = this.deps.clock.now();
    const rows = [
      ...(await this.deps.store.list({ state: 'open' }, { limit })),
      ...(await this.deps.store.list({ state: 'assessed' }, { limit })),
    ].sort((a, b) => a.detectedAt - b.detectedAt);
    return rows.map((i) => {
      const v = this.view(i, now);
      return { incidentId: v.incidentId, title: v.title, severity: v.severity, state: v.state, clock: v.clock };
    });
  }

  /**
   * The incidents whose scope names the tenant (or no tenant: every tenant), newest detected first,
   * each with what it touches of that tenant's data: an organisation's own view.
   */
  async touching(tenant: string, limit: number) {
    const now = this.deps.clock.now();
    const found = await this.deps.store.touching(tenant, limit);
    // Every key the incidents name, read once.
    const keys = await this.issuerKeys(found.flatMap((i) => i.scope.keys ?? []));
    const views = [];
    for (const i of found) {
      const [mine] = await this.touched({ ...i.scope, tenants: [tenant] }, now, keys);
      const v = this.view(i, now);
      views.push({
        incidentId: v.incidentId,
        title: v.title,
        severity: v.severity,
        state: v.state,
        detectedAt: v.detectedAt,
        clock: v.clock,
        affected: { credentials: mine?.credentials ?? 0, revoked: mine?.revoked ?? 0, accounts: mine?.accounts ?? 0 },
      });
    }
    return views;
  }

  /** What the incident's scope touches now, per tenant and in total: computed, never typed in. */
  async affected(id: string) {
    const incident = await this.require(id);
    const now = this.deps.clock.now();
    const tenants = await this.touched(incident.scope, now, await this.issuerKeys(incident.scope.keys ?? []));
    const sum = (k: 'credentials' | 'revoked' | 'accounts') => tenants.reduce((n, t) => n + t[k], 0);
    return {
      incidentId: id,
      computedAt: iso(now),
      scope: this.scopeView(incident.scope),
      totals: { tenants: tenants.length, credentials: sum('credentials'), revoked: sum('revoked'), accounts: sum('accounts') },
      tenants,
    };
  }

  /**
   * The credentials the scope touches, counted per tenant: issued in the window (until `now` when
   * it is open), of the tenants and types named, and, where keys are named, issued while one of
   * them was its tenant's issuing key (from its creation to its retirement); `keys` holds at least
   * the named ones that exist.
   */
  private touched(scope: IncidentScope, now: number, keys: readonly KeyRow[]): Promise<TouchedTenant[]> {
    const named = scope.keys ?? [];
    const signing = keys.filter((k) => named.some((n) => n.tenant === k.tenant && n.kid === k.kid));
    return this.deps.issuance.touched({
      since: scope.since,
      until: scope.until ?? now + 1,
      tenants: scope.tenants,
      types: scope.types,
      ...(named.length > 0 ? { signedIn: signing.map((k) => ({ tenant: k.tenant, from: k.createdAt, to: k.retiredAt })) } : {}),
    });
  }

  private async issuerKeys(named: readonly { tenant: string; kid: string }[]): Promise<KeyRow[]> {
    return named.length === 0 ? [] : this.deps.kernel.issuerKeys(named);
  }

  private async require(id: string): Promise<IncidentRecord> {
    const found = await this.deps.store.get(id);
    if (!found) throw new ServiceError('unknown_incident');
    return found;
  }

  private scopeOf(input: ScopeInput, now: number): IncidentScope {
    const since = this.pastTime(input.since, now, 'scope.since');
    const until = input.until === undefined ? undefined : Date.parse(input.until);
    if (until !== undefined && !(until > since))
      throw new ServiceError('invalid_request', 'scope.until must be after scope.since.');
    return {
      since,
      ...(until === undefined ? {} : { until }),
      ...(input.tenants ? { tenants: [...new Set(input.tenants)].sort() } : {}),
      ...(input.keys ? { keys: input.keys } : {}),
      ...(input.types ? { types: input.types } : {}),
    };
  }

  private pastTime(value: string, now: number, field: string): number {
    const at = Date.parse(value);
    if (!Number.isFinite(at) || at > now + CLOCK_SKEW_MS || at < now - DETECTED_AT_MOST_MS) {
      throw new ServiceError('invalid_request', `${field} is in the future or more than a year ago.`);
    }
    return at;
  }

  private scopeView(s: IncidentScope) {
    return {
      since: iso(s.since),
      until: s.until === undefined ? null : iso(s.until),
      tenants: s.tenants ?? null,
      keys: s.keys ?? null,
      types: s.types ?? null,
    };
  }

  private view(i: IncidentRecord, now: number) {
    const notifyBy = i.detectedAt + NOTIFY_WITHIN_MS;
    const stoppedAt = i.notifiedAt ?? i.closedAt;
    return {
      incidentId: i.id,
      title: i.title,
      description: i.description,
      severity: i.severity,
      state: i.state,
      detectedAt: iso(i.detectedAt),
      openedAt: iso(i.openedAt),
      openedBy: i.openedBy,
      updatedAt: iso(i.updatedAt),
      assessedAt: isoOrNull(i.assessedAt),
      notifiedAt: isoOrNull(i.notifiedAt),
      closedAt: isoOrNull(i.closedAt),
      clock: {
        notifyBy: iso(notifyBy),
        stoppedAt: isoOrNull(stoppedAt),
        hoursLeft: stoppedAt === null ? Math.floor((notifyBy - now) / 3_600_000) : null,
        // Notified late, or still running past the deadline; closed unnotified (assessed as not
        // notifiable) has no deadline left.
        overdue: i.notifiedAt !== null ? i.notifiedAt > notifyBy : i.closedAt === null && now > notifyBy,
      },
      scope: this.scopeView(i.scope),
    };
  }
}
