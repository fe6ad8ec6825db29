import { PostgresAdapter, type RawBuilder, type Selectable, sql } from 'kysely';
import type { ActivityQuery, OutboxRow, VerificationDayCount } from '../../../ports/kernel-views.ts';
import type { SourcePage } from '../../../ports/timeline-page.ts';
import type { Db } from '../connect.ts';
import type { OutboxTable } from '../schema.ts';
import { mentions } from '../text-match.ts';
import { sourcePage } from '../timeline-page.ts';
import { dayOf, inTenant, inWindow } from '../windowed.ts';
import { hasPrefix } from './sql-audit-reads.ts';

/**
 * The kernel's reads of the outbox that it publishes (ports/kernel-views.ts, through
 * SqlKernelViews): the activity feed's pages, the events a timeline shows, and the hosted
 * verifier's outcomes counted per day (at most the window's days, in SQL).
 */

/** The events of hosted verification: written to `root`, their tenant is in the `vct`. */
export const PRESENTATION_EVENTS = ['presentation.completed', 'presentation.failed'] as const;

/** The `vct` of an outbox row's data, on either engine. */
const vctOf = (db: Db): RawBuilder<string | null> =>
  db.getExecutor().adapter instanceof PostgresAdapter
    ? sql`(${sql.ref('data')}::json ->> 'vct')`
    : sql`json_extract(${sql.ref('data')}, '$.vct')`;

const OUTBOX_COLUMNS = ['seq', 'id', 'type', 'tenant', 'created_at', 'data'] as const;

/** A row as its type's event: the outbox holds only what `emit` wrote, which the map typed. */
const toOutboxRow = (r: Selectable<Pick<OutboxTable, (typeof OUTBOX_COLUMNS)[number]>>) =>
  ({
    seq: Number(r.seq),
    id: r.id,
    type: r.type,
    tenant: r.tenant,
    createdAt: Number(r.created_at),
    data: JSON.parse(r.data),
  }) as OutboxRow;

export async function activity(db: Db, q: ActivityQuery): Promise<OutboxRow[]> {
  let query = db.selectFrom('outbox').select(OUTBOX_COLUMNS);
  const tenant = q.tenant;
  const prefix = q.vctPrefix;
  if (tenant !== null) {
    query = query.where((eb) =>
      prefix === undefined
        ? eb('tenant', '=', tenant)
        : eb.or([
            eb.and([eb('tenant', '=', tenant), eb('type', 'not in', [...PRESENTATION_EVENTS])]),
            eb.and([eb('tenant', '=', 'root'), eb('type', 'in', [...PRESENTATION_EVENTS]), hasPrefix(vctOf(db), prefix)]),
          ]),
    );
  }
  if (q.types !== undefined) query = query.where('type', 'in', [...q.types]);
  query = query.where(inWindow('created_at', q));
  if (q.beforeSeq !== undefined) query = query.where('seq', '<', q.beforeSeq);
  const rows = await query.orderBy('seq', 'desc').limit(q.limit).execute();
  return rows.map(toOutboxRow);
}

export async function eventsNaming(db: Db, key: string, tenant: string | null, page: SourcePage): Promise<OutboxRow[]> {
  const query = db.selectFrom('outbox').select(OUTBOX_COLUMNS).where(mentions('data', key)).where(inTenant(tenant));
  return (await sourcePage(query, 'created_at', 'id', page)).map(toOutboxRow);
}

export async function verificationsPerDay(
  db: Db,
  w: { since: number; until: number; vct?: string; vctPrefix?: string },
): Promise<VerificationDayCount[]> {
  const day = dayOf('created_at');
  const vct = vctOf(db);
  let query = db
    .selectFrom('outbox')
    .select((eb) => ['type', vct.as('vct'), day.as('day'), eb.fn.countAll().as('n')])
    .where('tenant', '=', 'root')
    .where('type', 'in', [...PRESENTATION_EVENTS])
    .where('created_at', '>=', w.since)
    .where('created_at', '<', w.until);
  if (w.vct !== undefined) query = query.where(vct, '=', w.vct);
  if (w.vctPrefix !== undefined) query = query.where(hasPrefix(vct, w.vctPrefix));
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
