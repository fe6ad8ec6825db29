import type { Clock } from '../../../core/clock.ts';
import type { EventEnvelope, EventInput } from '../../../core/events.ts';
import type { EventOutbox } from '../../../ports/event-outbox.ts';
import type { Db } from '../connect.ts';
import { inTransactionOnly } from '../sql-unit-of-work.ts';
import { outboxWrite, wakeDelivery } from './kernel-statements.ts';

export { onEventsCommitted } from './kernel-statements.ts';

/** The transactions that wrote events: the unit of work that committed one wakes delivery. */
const eventful = new WeakSet<Db>();

/** Marks the transaction `trx` as one that wrote events (an audit entry's, sql-audit-trail.ts). */
export function eventsWrittenIn(trx: Db): void {
  eventful.add(trx);
}

/** Wakes delivery when the transaction `trx`, now committed, wrote events. */
export function eventsCommitted(trx: Db): void {
  if (eventful.has(trx)) wakeDelivery();
}

/** Writes events to the outbox table; inside a transaction only (SqlUnitOfWork). */
export class SqlEventOutbox implements EventOutbox {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async emit(event: EventInput, at?: number): Promise<string> {
    inTransactionOnly(this.db, 'an event');
    const row = outboxWrite(event, at ?? this.clock.now());
    await row.statement.changes(this.db, row.params);
    eventsWrittenIn(this.db);
    return row.params[0];
  }
}

/**
 * Events in the order they were written (tests), each read as its type's payload: the outbox holds
 * only what `emit` wrote, which the map typed.
 */
export async function readOutbox(db: Db, afterSeq = 0, limit = 1000): Promise<Array<EventEnvelope & { seq: number }>> {
  const rows = await db.selectFrom('outbox').selectAll().where('seq', '>', afterSeq).orderBy('seq').limit(limit).execute();
  return rows.map(
    (r) =>
      ({
        seq: Number(r.seq),
        id: r.id,
        type: r.type,
        createdAt: new Date(Number(r.created_at)).toISOString(),
        tenant: r.tenant,
        data: JSON.parse(r.data),
      }) as EventEnvelope & { seq: number },
  );
}
