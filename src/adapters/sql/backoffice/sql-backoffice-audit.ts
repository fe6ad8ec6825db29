import { type Expression, PostgresAdapter, type RawBuilder, sql } from 'kysely';
import type { AuditEntry } from '../../../core/audit-chain.ts';
import type {
  ActivityQuery,
  ActivityReader,
  AnalyticsReader,
  AuditHead,
  AuditListQuery,
  AuditLogReader,
  CountWindow,
  DayCount,
  OfferDayCount,
  OutboxRow,
  VerificationDayCount,
} from '../../../ports/backoffice-audit.ts';
import type { Db } from '../connect.ts';
import { toAuditEntry } from '../kernel/sql-audit-trail.ts';
import { inTenant, inWindow } from '../windowed.ts';

/**
 * The back office's reads of the audit log, the outbox and the tables its analytics count
 * (docs/backoffice/audit.md). Every query is bounded: by a page size, a batch size, or a window
 * of at most 366 days counted per day in SQL.
 */

const DAY_MS = 86_400_000;

/** The events of hosted verification: written to `root`, their tenant is in the `vct`. */
export const PRESENTATION_EVENTS = ['presentation.completed', 'presentation.failed'] as const;

/** `substr(expr, 1, len(prefix))`: a prefix test without LIKE, whose `_` would be a wildcard in an action. */
const startsWith = (expr: Expression<unknown>, prefix: string) => sql<string>`substr(${expr}, 1, ${sql.lit(prefix.length)})`;

/** The UTC day (days since the epoch) of a millisecond column; a literal divisor, so GROUP BY matches the SELECT on PostgreSQL. */
const dayOf = (column: string) => sql<number | string>`cast(${sql.ref(column)} / ${sql.lit(DAY_MS)} as bigint)`;

export class SqlBackofficeAudit implements AuditLogReader, ActivityReader, AnalyticsReader {
  private readonly postgres: boolean;

  constructor(private readonly db: Db) {
    this.postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  }

  /** The `vct` of an outbox row's data, on either engine. */
  private vct(): RawBuilder<string | null> {
    return this.postgres ? sql`(${sql.ref('data')}::json ->> 'vct')` : sql`json_extract(${sql.ref('data')}, '$.vct')`;
  }

  async list(q: AuditListQuery): Promise<AuditEntry[]> {
    let query = this.db.selectFrom('audit_log').selectAll();
    query = query.where(inTenant(q.tenant));
    if (q.actor !== undefined) query = query.where('actor', '=', q.actor);
    if (q.action !== undefined) {
      query = q.action.endsWith('.')
        ? query.where(startsWith(sql.ref('action'), q.action), '=', q.action)
        : query.where('action', '=', q.action);
    }
    query = query.where(inWindow('at', q));
    if (q.afterSeq !== undefined) query = query.where('seq', q.order === 'desc' ? '<' : '>', q.afterSeq);
    const rows = await query.orderBy('seq', q.order).limit(q.limit).execute();
    return rows.map(toAuditEntry);
  }

  async entry(seq: number): Promise<AuditEntry | undefined> {
    const row = await this.db.selectFrom('audit_log').selectAll().where('seq', '=', seq).executeTakeFirst();
    return row ? toAuditEntry(row) : undefined;
  }

  async run(fromSeq: number, toSeq: number, limit: number): Promise<AuditEntry[]> {
    const rows = await this.db
      .selectFrom('audit_log')
      .selectAll()
      .where('seq', '>=', fromSeq)
      .where('seq', '<=', toSeq)
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map(toAuditEntry);
  }

  async head(): Promise<AuditHead> {
    const row = await this.db.selectFrom('audit_head').select(['seq', 'hash']).where('id', '=', 1).executeTakeFirstOrThrow();
    return { seq: Number(row.seq), hash: row.hash };
  }

  async activity(q: ActivityQuery): Promise<OutboxRow[]> {
    let query = this.db.selectFrom('outbox').select(['seq', 'id', 'type', 'tenant', 'created_at', 'data']);
    const tenant = q.tenant;
    const prefix = q.vctPrefix;
    if (tenant !== null) {
      query = query.where((eb) =>
        prefix === undefined
          ? eb('tenant', '=', tenant)
          : eb.or([
              eb.and([eb('tenant', '=', tenant), eb('type', 'not in', [...PRESENTATION_EVENTS])]),
              eb.and([
                eb('tenant', '=', 'root'),
                eb('type', 'in', [...PRESENTATION_EVENTS]),
                eb(startsWith(this.vct(), prefix), '=', prefix),
              ]),
            ]),
      );
    }
    if (q.types !== undefined) query = query.where('type', 'in', [...q.types]);
    query = query.where(inWindow('created_at', q));
    if (q.beforeSeq !== undefined) query = query.where('seq', '<', q.beforeSeq);
    const rows = await query.orderBy('seq', 'desc').limit(q.limit).execute();
    return rows.map((r) => ({
      seq: Number(r.seq),
      id: r.id,
      type: r.type,
      tenant: r.tenant,
      createdAt: Number(r.created_at),
      data: JSON.parse(r.data) as Record<string, unknown>,
    }));
  }

  async issued(w: CountWindow): Promise<DayCount[]> {
    const day = dayOf('issued_at');
    let query = this.db
      .selectFrom('issued_credentials')
      .select((eb) => ['tenant', 'type_id', day.as('day'), eb.fn.countAll().as('n')])
      .where('issued_at', '>=', w.since)
      .where('issued_at', '<', w.until);
    query = query.where(inTenant(w.tenant));
    if (w.typeId !== null) query = query.where('type_id', '=', w.typeId);
    const rows = await query.groupBy(['tenant', 'type_id', day]).execute();
    return rows.map((r) => ({ day: Number(r.day), tenant: r.tenant, typeId: r.type_id, n: Number(r.n) }));
  }

  async offers(w: CountWindow): Promise<OfferDayCount[]> {
    const day = dayOf('created_at');
    let query = this.db
      .selectFrom('offers')
      .select((eb) => [
        'tenant',
        'type_id',
        day.as('day'),
        eb.fn.countAll().as('created'),
        eb.fn.count('redeemed_at').as('redeemed'),
        eb.fn.count('collected_at').as('collected'),
      ])
      .where('created_at', '>=', w.since)
      .where('created_at', '<', w.until);
    query = query.where(inTenant(w.tenant));
    if (w.typeId !== null) query = query.where('type_id', '=', w.typeId);
    const rows = await query.groupBy(['tenant', 'type_id', day]).execute();
    return rows.map((r) => ({
      day: Number(r.day),
      tenant: r.tenant,
      typeId: r.type_id,
      created: Number(r.created),
      redeemed: Number(r.redeemed),
      collected: Number(r.collected),
    }));
  }

  async enrolled(w: CountWindow): Promise<DayCount[]> {
    const day = dayOf('joined_at');
    let query = this.db
      .selectFrom('members')
      .select((eb) => ['tenant', day.as('day'), eb.fn.countAll().as('n')])
      .where('joined_at', '>=', w.since)
      .where('joined_at', '<', w.until);
    query = query.where(inTenant(w.tenant));
    const rows = await query.groupBy(['tenant', day]).execute();
    return rows.map((r) => ({ day: Number(r.day), tenant: r.tenant, typeId: null, n: Number(r.n) }));
  }

  async verifications(w: { since: number; until: number; vct?: string; vctPrefix?: string }): Promise<VerificationDayCount[]> {
    const day = dayOf('created_at');
    const vct = this.vct();
    let query = this.db
      .selectFrom('outbox')
      .select((eb) => ['type', vct.as('vct'), day.as('day'), eb.fn.countAll().as('n')])
      .where('tenant', '=', 'root')
      .where('type', 'in', [...PRESENTATION_EVENTS])
      .where('created_at', '>=', w.since)
      .where('created_at', '<', w.until);
    if (w.vct !== undefined) query = query.where(vct, '=', w.vct);
    if (w.vctPrefix !== undefined) query = query.where(startsWith(vct, w.vctPrefix), '=', w.vctPrefix);
    const rows = await query.groupBy(['type', vct, day]).execute();
    const merged = new Map<string, VerificationDayCount>();
    for (const r of rows) {
      if (typeof r.vct !== 'string') continue;
      const key = `${r.day}|${r.vct}`;
      const row = merged.get(key) ?? { day: Number(r.day), vct: r.vct, completed: 0, failed: 0 };
      if (r.type === 'presentation.completed') row.completed += Number(r.n);
      else row.failed += Number(r.n);
      merged.set(key, row);
    }
    return [...merged.values()];
  }
}
