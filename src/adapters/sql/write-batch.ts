import { PostgresAdapter } from 'kysely';
import type { Db } from './connect.ts';
import { atomically } from './sql-unit-of-work.ts';
import { Statement } from './statement.ts';

/** One write of a batch: an INSERT, UPDATE or DELETE (no RETURNING). */
export interface Write {
  statement: Statement;
  params: readonly unknown[];
}

/** A write, and how many rows it must change. */
export interface GuardedWrite extends Write {
  /** Rows the write must change; when it changes another number, the batch is undone. */
  expect: number;
  /** What the batch answers then. */
  refusal: string;
}

/** The SQLSTATE openrail_refuse raises (migration 0043). */
const REFUSED = 'OR001';

/**
 * Composed statements, by the texts of their writes: each composition is prepared once per
 * connection. Their number is bounded by the callers' shapes (a batch of credentials is at most
 * BATCH_SIZE), so they are kept for the life of the process.
 */
const composed = new Map<string, Statement<{ refused: number }>>();

class Refused extends Error {
  constructor(readonly refusal: string) {
    super(refusal);
  }
}

/** Whether `db` sends a batch as one statement: PostgreSQL, outside a transaction. */
export const batchesInOneStatement = (db: Db): boolean =>
  db.getExecutor().adapter instanceof PostgresAdapter && !db.isTransaction;

/**
 * Applies every write or none, and answers undefined, or the refusal of the first guarded write
 * that changed another number of rows than it must (docs/scaling.md, "Round trips").
 *
 * - On PostgreSQL the batch is one statement, so one round trip and no transaction to open or
 *   close: each write is a data-modifying CTE returning its rows, and the closing select counts
 *   them and calls openrail_refuse for the first count that is off, whose error undoes them all.
 *   Every write runs on the statement's one snapshot, so no two writes of a batch may touch the
 *   same row, and none sees another's change.
 * - On SQLite, where a statement costs no network, and inside a transaction, the writes run one
 *   by one (`atomically`: a transaction of their own, or a savepoint of the ambient one).
 */
export async function applyAll(db: Db, writes: readonly (GuardedWrite | Write)[]): Promise<string | undefined> {
  if (writes.length === 0) return undefined;
  // Inside a transaction an error would end it whole: there the writes go one by one, under a savepoint.
  if (!batchesInOneStatement(db)) {
    try {
      await atomically(db, async (trx) => {
        const refusal = await oneByOne(trx, writes);
        if (refusal !== undefined) throw new Refused(refusal);
      });
      return undefined;
    } catch (err) {
      if (err instanceof Refused) return err.refusal;
      throw err;
    }
  }
  try {
    await inOneStatement(db, writes);
    return undefined;
  } catch (err) {
    if ((err as { code?: string }).code === REFUSED) return (err as Error).message;
    throw err;
  }
}

/**
 * Writes that belong to the unit of work they run in, and whose every guard holding is an
 * invariant, not a refusal to answer: an audit entry and its chain's head, say. On PostgreSQL
 * they go as one statement, inside a transaction too, where a failure ends the transaction as
 * any failed statement does; on SQLite one by one. A guard that does not hold throws.
 */
export async function writeTogether(db: Db, writes: readonly (GuardedWrite | Write)[]): Promise<void> {
  if (writes.length === 0) return;
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) {
    const refusal = await oneByOne(db, writes);
    if (refusal !== undefined) throw new Error(`a write changed another number of rows: ${refusal}`);
    return;
  }
  try {
    await inOneStatement(db, writes);
  } catch (err) {
    if ((err as { code?: string }).code === REFUSED)
      throw new Error(`a write changed another number of rows: ${(err as Error).message}`);
    throw err;
  }
}

/** The writes one by one; the refusal of the first guarded one whose count is off (what ran before it stays, for the caller to undo). */
async function oneByOne(db: Db, writes: readonly (GuardedWrite | Write)[]): Promise<string | undefined> {
  for (const w of writes) {
    const changed = await w.statement.changes(db, w.params);
    if ('expect' in w && changed !== w.expect) return w.refusal;
  }
  return undefined;
}

/** PostgreSQL: the writes as data-modifying CTEs of one statement, whose closing select checks the guarded ones' counts. */
async function inOneStatement(db: Db, writes: readonly (GuardedWrite | Write)[]): Promise<void> {
  const guarded = writes.flatMap((w, i) => ('expect' in w ? [{ w, i }] : []));
  const key = writes.map((w) => `${'expect' in w ? 'guarded' : 'free'} ${w.statement.text}`).join('\n;\n');
  let statement = composed.get(key);
  if (!statement) {
    const ctes = writes.map((w, i) => `w${i} as (${w.statement.text} returning 1)`).join(', ');
    const checks = guarded.map(({ i }) => `when (select count(*) from w${i}) <> ? then openrail_refuse(?)`).join(' ');
    // A CTE that no one reads still runs to completion (PostgreSQL runs every data-modifying one).
    statement = new Statement<{ refused: number }>(
      `with ${ctes} select ${checks ? `case ${checks} else 0 end` : '0'} as refused`,
    );
    composed.set(key, statement);
  }
  const params = [...writes.flatMap((w) => w.params), ...guarded.flatMap(({ w }) => [w.expect, w.refusal])];
  await statement.rows(db, params);
}
