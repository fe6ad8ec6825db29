import { sql } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import type { Recorders, UnitOfWork } from '../../ports/unit-of-work.ts';
import { type Db, holdingConnection } from './connect.ts';
import { SqlAuditTrail } from './sql-audit-trail.ts';
import { eventsCommitted, SqlEventOutbox } from './sql-event-outbox.ts';

/**
 * One database transaction per unit of work. `bind` builds the use case's stores on the
 * transaction (a Kysely transaction is a Kysely, so `new SqlOfferStore(trx)` works). Called on a
 * handle that is already a transaction, it joins it instead of nesting.
 */
export class SqlUnitOfWork<S> implements UnitOfWork<S> {
  constructor(
    private readonly db: Db,
    private readonly bind: (db: Db) => S,
    private readonly clock: Clock,
  ) {}

  async run<T>(work: (scope: S & Recorders) => Promise<T>): Promise<T> {
    let events: SqlEventOutbox | undefined;
    const inside = (trx: Db) => {
      events = new SqlEventOutbox(trx, this.clock);
      return work({ ...this.bind(trx), audit: new SqlAuditTrail(trx, this.clock), events });
    };
    if (this.db.isTransaction) return inside(this.db);
    const root = this.db;
    const result = await root.transaction().execute((trx) => holdingConnection(root, () => inside(trx)));
    if (events && events.emitted > 0) eventsCommitted();
    return result;
  }
}

let savepoints = 0;

/**
 * Runs a store operation of several statements all or nothing. On its own it is a transaction;
 * inside a unit of work it is a savepoint of that transaction, so that when the operation throws
 * (a refusal, a failure) its own writes are undone, and the unit of work decides about the rest.
 */
export async function atomically<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  if (!db.isTransaction) return db.transaction().execute((trx) => holdingConnection(db, () => work(trx)));
  const name = sql.id(`sp_${++savepoints}`);
  await sql`savepoint ${name}`.execute(db);
  try {
    const result = await work(db);
    await sql`release savepoint ${name}`.execute(db);
    return result;
  } catch (err) {
    await sql`rollback to savepoint ${name}`.execute(db);
    await sql`release savepoint ${name}`.execute(db);
    throw err;
  }
}
