import { AsyncLocalStorage } from 'node:async_hooks';
import type { Kysely } from 'kysely';
import { ServiceError } from '../../core/errors.ts';
import type { Database } from './schema.ts';

/**
 * The ambient transaction (decision 0020). Every database handle the service hands out is a view
 * of its root that, from inside the work of a transaction opened through `transactionally`, is
 * that transaction: a store built once on the root, a service of another module, a read or a
 * write, called from a unit of work's function, runs in the unit of work's transaction. There is
 * no handle left that reaches the database beside it, so a query can neither escape the
 * transaction (PostgreSQL) nor wait for the connection the transaction holds (SQLite) — by
 * construction, not by a guard.
 *
 * Work started inside a transaction and still running after it ended (a promise nobody awaited)
 * no longer sees it and goes to the root.
 */
type Raw = Kysely<Database>;

interface Scope {
  readonly root: Raw;
  readonly trx: Raw;
  open: boolean;
  readonly outer: Scope | undefined;
  /** What waits for the commit (afterCommit). */
  readonly committed: Array<() => void>;
}

const scopes = new AsyncLocalStorage<Scope>();
const roots = new WeakMap<object, Raw>();

/** The transaction this handle stands for here and now, if any. */
function current(root: Raw): Raw | undefined {
  for (let scope = scopes.getStore(); scope; scope = scope.outer) {
    if (scope.root === root && scope.open) return scope.trx;
  }
  return undefined;
}

/** The ambient view of a freshly opened database: the only handle the service uses. */
export function ambient(raw: Raw): Raw {
  const bound = new Map<PropertyKey, unknown>();
  const view = new Proxy(raw, {
    get(target, prop) {
      const trx = current(target);
      if (trx) {
        const value = Reflect.get(trx, prop, trx);
        return typeof value === 'function' ? value.bind(trx) : value;
      }
      let value = bound.get(prop);
      if (value === undefined) {
        value = Reflect.get(target, prop, target);
        if (typeof value === 'function') value = value.bind(target);
        bound.set(prop, value);
      }
      return value;
    },
  });
  roots.set(view, raw);
  return view;
}

/**
 * Runs `work` in a transaction on `db`. Inside one already (the ambient scope, or `db` being a
 * transaction itself) it joins it; otherwise it opens one, which is ambient for everything `work`
 * calls until it returns.
 *
 * A transaction it opened that loses its database before its commit (503 database_unavailable:
 * the primary died, a switchover, a standby answering) is run once more after RETRY_PAUSE_MS:
 * nothing of it was made, and a unit of work's function holds no effect outside the database
 * (docs/architecture.md), so running it again is safe. One lost during its commit may have been
 * made: that is `commit_unknown`, never run again (docs/high-availability.md).
 */
export async function transactionally<T>(db: Raw, work: (trx: Raw) => Promise<T>): Promise<T> {
  const raw = roots.get(db);
  const joined = raw ? current(raw) : db.isTransaction ? db : undefined;
  if (joined) return work(joined);
  const root = raw ?? db;
  try {
    return await openTransaction(root, work);
  } catch (err) {
    if (!lostBeforeCommit(err)) throw err;
    await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
    return openTransaction(root, work);
  }
}

/** How long a transaction that lost its database before its commit waits before its one more run. */
export const RETRY_PAUSE_MS = 1000;

const lostBeforeCommit = (err: unknown) => err instanceof ServiceError && err.code === 'database_unavailable';

/** The refusal for a change whose commit was sent and never answered: it may have been made. */
export const commitUnknown = (cause: unknown) =>
  new ServiceError('commit_unknown', undefined, { headers: { 'retry-after': '5' }, cause });

async function openTransaction<T>(root: Raw, work: (trx: Raw) => Promise<T>): Promise<T> {
  const outer = scopes.getStore();
  const waiting: Array<() => void> = [];
  let committing = false;
  const result = await root
    .transaction()
    .execute(async (trx) => {
      const scope: Scope = { root, trx, open: true, outer, committed: waiting };
      try {
        const done = await scopes.run(scope, () => work(trx));
        committing = true;
        return done;
      } finally {
        scope.open = false;
      }
    })
    .catch((err: unknown) => {
      // The work was done and the commit sent: whatever broke the connection now, it may have committed.
      if (committing && lostBeforeCommit(err)) throw commitUnknown(err);
      throw err;
    });
  // Committed: execute resolves only then. Inside another database's transaction (tests open
  // two), what waits is handed to that one, which may still roll back.
  const enclosing = openScope(outer);
  if (enclosing) enclosing.committed.push(...waiting);
  else for (const run of waiting) run();
  return result;
}

function openScope(from: Scope | undefined): Scope | undefined {
  for (let scope = from; scope; scope = scope.outer) if (scope.open) return scope;
  return undefined;
}

/** Whether this code runs inside a transaction's work (on any database). */
export function insideTransaction(): boolean {
  return openScope(scopes.getStore()) !== undefined;
}

/**
 * Runs `fill` once the transaction this code runs in has committed, at once outside one, never
 * when it rolls back: for in-memory caches of what a transaction wrote or read, which must not
 * remember a row that a rollback took back.
 */
export function afterCommit(fill: () => void): void {
  const scope = openScope(scopes.getStore());
  if (scope) scope.committed.push(fill);
  else fill();
}
