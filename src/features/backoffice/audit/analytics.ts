import { type Static, type TObject, Type } from '@sinclair/typebox';
import { ServiceError } from '../../../core/errors.ts';
import type { IssuerUrls } from '../../../core/issuer-urls.ts';
import { Nullable } from '../../../http/schemas/common.ts';
import type { CountWindow } from '../../../ports/day-counts.ts';
import type { IssuanceViews } from '../../../ports/issuance-views.ts';
import type { KernelViews } from '../../../ports/kernel-views.ts';
import type { MembershipViews } from '../../../ports/membership-views.ts';
import type { OffersViews } from '../../../ports/offers-views.ts';

/**
 * Issuance, verification, enrolment and offer conversion over time (docs/backoffice/audit.md,
 * "Analytics"). Each owner counts its rows per UTC day and per tenant (and type) in SQL, in one
 * query each (issuance, offers, membership, the kernel's outbox); this rolls the days up into the
 * buckets asked for, and keeps the SERIES_MAX busiest series of each list, folding the rest into
 * `others`. The cost is bounded by the window (at most WINDOW_MAX_DAYS days).
 */

export const DAY_MS = 86_400_000;
export const WINDOW_DEFAULT_DAYS = 30;
export const WINDOW_MAX_DAYS = 366;
export const SERIES_MAX = 20;

export const BUCKETS = ['day', 'week', 'month'] as const;
export type Bucket = (typeof BUCKETS)[number];

const Count = Type.Integer({ minimum: 0 });
const CountFields = {
  issued: Count,
  verified: Count,
  verificationsFailed: Count,
  /** Null where enrolments cannot be told apart (a type's series, a query narrowed to a type). */
  enrolled: Nullable(Count),
  offersCreated: Count,
  offersRedeemed: Count,
  offersCollected: Count,
};
export const PointView = Type.Object({ start: Type.String({ description: 'YYYY-MM-DD, UTC' }), ...CountFields });
export const TotalsView = Type.Object({
  ...CountFields,
  /** offersCollected / offersCreated, to four decimals; null when no offer was created. */
  conversion: Nullable(Type.Number()),
});
export const SeriesView = Type.Object({
  tenant: Type.String(),
  typeId: Nullable(Type.String()),
  totals: TotalsView,
  points: Type.Array(PointView),
});
/** The series beyond the busiest, folded into one; `series` is how many. */
export const RemainderView = Type.Object({ series: Type.Integer(), totals: TotalsView, points: Type.Array(PointView) });

export type Counts = Static<TObject<typeof CountFields>>;
export type Totals = Static<typeof TotalsView>;
export type Point = Static<typeof PointView>;
export type Series = Static<typeof SeriesView>;
export type Remainder = Static<typeof RemainderView>;

export interface Analytics {
  since: number;
  until: number;
  bucket: Bucket;
  tenant: string | null;
  typeId: string | null;
  totals: Totals;
  points: Point[];
  tenants: { series: Series[]; others: Remainder | null };
  types: { series: Series[]; others: Remainder | null };
}

export interface AnalyticsQuery {
  tenant: string | null;
  typeId?: string;
  since?: number;
  until?: number;
  bucket?: Bucket;
}

const zero = (enrolled: boolean): Counts => ({
  issued: 0,
  verified: 0,
  verificationsFailed: 0,
  enrolled: enrolled ? 0 : null,
  offersCreated: 0,
  offersRedeemed: 0,
  offersCollected: 0,
});

function add(into: Counts, from: Partial<Counts>): void {
  into.issued += from.issued ?? 0;
  into.verified += from.verified ?? 0;
  into.verificationsFailed += from.verificationsFailed ?? 0;
  if (into.enrolled !== null) into.enrolled += from.enrolled ?? 0;
  into.offersCreated += from.offersCreated ?? 0;
  into.offersRedeemed += from.offersRedeemed ?? 0;
  into.offersCollected += from.offersCollected ?? 0;
}

const totals = (c: Counts): Totals => ({
  ...c,
  conversion: c.offersCreated === 0 ? null : Math.round((c.offersCollected / c.offersCreated) * 10_000) / 10_000,
});

const activityOf = (c: Counts) => c.issued + c.verified + c.verificationsFailed + c.offersCreated + (c.enrolled ?? 0);

const dayString = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The first day of the bucket holding `day`: the day, its ISO week's Monday, or its month's first. */
function bucketStart(day: number, bucket: Bucket): number {
  if (bucket === 'day') return day;
  // 1970-01-01 was a Thursday, three days after a Monday.
  if (bucket === 'week') return day - ((((day + 3) % 7) + 7) % 7);
  const d = new Date(day * DAY_MS);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / DAY_MS;
}

function nextBucket(start: number, bucket: Bucket): number {
  if (bucket === 'day') return start + 1;
  if (bucket === 'week') return start + 7;
  const d = new Date(start * DAY_MS);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / DAY_MS;
}

/** One row of a day's counts, attributed to a tenant and (when it has one) a type. */
interface DayRow {
  day: number;
  tenant: string;
  typeId: string | null;
  counts: Partial<Counts>;
}

/** The owners' day counts the analytics read. */
export interface AnalyticsReads {
  issuance: Pick<IssuanceViews, 'issuedPerDay'>;
  offers: Pick<OffersViews, 'offersPerDay'>;
  membership: Pick<MembershipViews, 'enrolledPerDay'>;
  kernel: Pick<KernelViews, 'verificationsPerDay'>;
}

export class AnalyticsService {
  constructor(
    private readonly reads: AnalyticsReads,
    private readonly urls: IssuerUrls,
    private readonly now: () => number,
  ) {}

  /** The window asked for, checked: since before until, at most WINDOW_MAX_DAYS long. */
  window(q: AnalyticsQuery): { since: number; until: number } {
    // Until defaults to just after now, so what happened this millisecond is counted.
    const until = q.until ?? this.now() + 1;
    const since = q.since ?? until - WINDOW_DEFAULT_DAYS * DAY_MS;
    if (since >= until) throw new ServiceError('invalid_request', 'since must be before until.');
    if (until - since > WINDOW_MAX_DAYS * DAY_MS) {
      throw new ServiceError('invalid_request', `The window is at most ${WINDOW_MAX_DAYS} days.`);
    }
    return { since, until };
  }

  async counts(q: AnalyticsQuery): Promise<Analytics> {
    if (q.typeId !== undefined && q.tenant === null) {
      throw new ServiceError('invalid_request', 'typeId narrows one tenant: name the tenant too.');
    }
    const { since, until } = this.window(q);
    const bucket = q.bucket ?? 'day';
    const typeId = q.typeId ?? null;
    const w: CountWindow = { since, until, tenant: q.tenant, typeId };
    const byType = typeId !== null;
    const [issued, offers, enrolled, verifications] = await Promise.all([
      this.reads.issuance.issuedPerDay(w),
      this.reads.offers.offersPerDay(w),
      byType ? Promise.resolve([]) : this.reads.membership.enrolledPerDay(w),
      this.reads.kernel.verificationsPerDay({
        since,
        until,
        ...(q.tenant === null
          ? {}
          : typeId === null
            ? { vctPrefix: `${this.urls.issuer(q.tenant)}/types/` }
            : { vct: this.urls.vct(q.tenant, typeId) }),
      }),
    ]);

    const rows: DayRow[] = [
      ...issued.map((r) => ({ day: r.day, tenant: r.tenant, typeId: r.typeId, counts: { issued: r.n } })),
      ...offers.map((r) => ({
        day: r.day,
        tenant: r.tenant,
        typeId: r.typeId,
        counts: { offersCreated: r.created, offersRedeemed: r.redeemed, offersCollected: r.collected },
      })),
      ...enrolled.map((r) => ({ day: r.day, tenant: r.tenant, typeId: null, counts: { enrolled: r.n } })),
    ];
    for (const v of verifications) {
      const named = this.urls.parseVct(v.vct);
      if (!named) continue;
      rows.push({ day: v.day, ...named, counts: { verified: v.completed, verificationsFailed: v.failed } });
    }

    // The buckets of the window, every one listed (zeros included).
    const starts: number[] = [];
    const lastDay = Math.floor((until - 1) / DAY_MS);
    for (let s = bucketStart(Math.floor(since / DAY_MS), bucket); s <= lastDay; s = nextBucket(s, bucket)) starts.push(s);
    const indexOf = new Map<number, number>();
    const slot = (day: number) => {
      const start = bucketStart(day, bucket);
      let i = indexOf.get(start);
      if (i === undefined) {
        i = starts.indexOf(start);
        indexOf.set(start, i);
      }
      return i;
    };
    const points = (withEnrolled: boolean) => starts.map((s) => ({ start: dayString(s), ...zero(withEnrolled) }));

    const overall = { counts: zero(!byType), points: points(!byType) };
    for (const r of rows) {
      add(overall.counts, r.counts);
      const i = slot(r.day);
      if (i >= 0) add(overall.points[i] as Point, r.counts);
    }

    const tenants = this.series(rows, slot, points, (r) => [r.tenant, null], !byType);
    const types = this.series(
      rows.filter((r) => r.typeId !== null),
      slot,
      points,
      (r) => [r.tenant, r.typeId],
      false,
    );
    return {
      since,
      until,
      bucket,
      tenant: q.tenant,
      typeId,
      totals: totals(overall.counts),
      points: overall.points.map((p) => ({ ...p })),
      tenants,
      types,
    };
  }

  /** The busiest SERIES_MAX series by `keyOf`, with their points, and the rest folded into one remainder. */
  private series(
    rows: readonly DayRow[],
    slot: (day: number) => number,
    points: (withEnrolled: boolean) => Point[],
    keyOf: (r: DayRow) => [string, string | null],
    withEnrolled: boolean,
  ): { series: Series[]; others: Remainder | null } {
    const key = (r: DayRow) => keyOf(r).join('\u0000');
    const sums = new Map<string, { tenant: string; typeId: string | null; counts: Counts }>();
    for (const r of rows) {
      const k = key(r);
      let s = sums.get(k);
      if (!s) {
        const [tenant, typeId] = keyOf(r);
        s = { tenant, typeId, counts: zero(withEnrolled) };
        sums.set(k, s);
      }
      add(s.counts, r.counts);
    }
    const ranked = [...sums.entries()].sort(
      ([ka, a], [kb, b]) => activityOf(b.counts) - activityOf(a.counts) || (ka < kb ? -1 : ka > kb ? 1 : 0),
    );
    const kept = new Map(ranked.slice(0, SERIES_MAX).map(([k, s]) => [k, { ...s, points: points(withEnrolled) }]));
    const folded = ranked.slice(SERIES_MAX);
    const others =
      folded.length === 0 ? null : { series: folded.length, counts: zero(withEnrolled), points: points(withEnrolled) };
    for (const r of rows) {
      const target = kept.get(key(r))?.points ?? others?.points;
      const i = slot(r.day);
      if (target && i >= 0) add(target[i] as Point, r.counts);
      if (others && !kept.has(key(r))) add(others.counts, r.counts);
    }
    return {
      series: [...kept.values()].map((s) => ({ tenant: s.tenant, typeId: s.typeId, totals: totals(s.counts), points: s.points })),
      others: others && { series: others.series, totals: totals(others.counts), points: others.points },
    };
  }
}
