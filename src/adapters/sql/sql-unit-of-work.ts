import { sql } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import type { Recorders, UnitOfWork } from '../../ports/unit-of-work.ts';
import { transactionally } from './ambient.ts';
import type { Db } from './connect.ts';
import { SqlAuditTrail } from './kernel/sql-audit-trail.ts';
import { eventsCommitted, SqlEventOutbox } from './kernel/sql-event-outbox.ts';

/**
 * One database transaction per unit of work. The function is handed the audit trail and the event
 * outbox on the transaction; the stores a service holds, built once on the ambient database,
 * join it by themselves (ambient.ts). Called from inside another unit of work, it joins it instead
 * of nesting: a service of another module called from a use case writes in the use case's
 * transaction.
 */
export class SqlUnitOfWork implements UnitOfWork {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async run<T>(work: (recorders: Recorders) => Promise<T>): Promise<T> {
    const joined = this.db.isTransaction;
    let used: Db | undefined;
    const result = await transactionally(this.db, (trx) => {
      used = trx;
      const events = new SqlEventOutbox(trx, this.clock);
      return work({ audit: new SqlAuditTrail(trx, this.clock, events), events });
    });
    if (!joined && used) eventsCommitted(used);
    return result;
  }
}

let savepoints = 0;

/**
 * Runs a store operation of several statements all or nothing. On its own it is a transaction;
 * inside a unit of work it is a savepoint of that transaction, so that when the operation throws
 * (a refusal, a failure) its own writes are undone, and the unit of work decides about the rest.
 * A savepoint is never released: its writes join the transaction either way, and the commit (or
 * the rollback) ends it, so a RELEASE would only cost a round trip to PostgreSQL.
 */
export async function atomically<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  if (!db.isTransaction) return transactionally(db, work);
  const name = sql.id(`sp_${++savepoints}`);
  await sql`savepoint ${name}`.execute(db);
  try {
    return await work(db);
  } catch (err) {
    await sql`rollback to savepoint ${name}`.execute(db);
    throw err;
  }
}

/** Refuses a write that must share its change's transaction (an audit entry, an event, a routing) when there is none. */
export function inTransactionOnly(db: Db, what: string): void {
  if (!db.isTransaction) throw new Error(`${what} is written inside a unit of work only`);
}
