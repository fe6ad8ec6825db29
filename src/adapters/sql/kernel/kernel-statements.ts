import type { EventInput } from '../../../core/events.ts';
import { systemIds } from '../../crypto/ids.ts';
import type { Db } from '../connect.ts';
import { Statement } from '../statement.ts';
import type { GuardedWrite } from '../write-batch.ts';

/**
 * The kernel's parts of other owners' statements (docs/architecture.md, "Tables, owners and
 * views"): the outbox row a hot path writes in its own one-statement batch (write-batch.ts), the
 * wake-up of delivery once that batch committed, the webhook dispatcher's routing and pruning
 * of the outbox, which the webhooks module's lanes compose into their own batches and
 * transactions, and a new tenant's signing keys, which the tenants module's store inserts with
 * the tenant.
 */

export { insertSigningKey } from './sql-signing-key-store.ts';

/**
 * Where every key that may sign is (not retired), and the platform authority's: what a backup's
 * manifest names, so a restore knows which token objects it needs (docs/keys.md, "Backups").
 */
export const KEY_REFERENCES = `select tenant, kid, purpose, key_backend, token_label, object_label from signing_keys
  where retired_at is null
  union all select null, null, 'certificate-authority', key_backend, token_label, object_label from certificate_authority
  where retired_at is null
  order by 1, 3, 2`;

/** An outbox row's insert, whose parameters `outboxWrite` gives (sql-audit-trail.ts composes it too). */
export const outboxInsert = new Statement('insert into outbox (id, type, tenant, created_at, data) values (?, ?, ?, ?, ?)');

/** The outbox row of `event`, as one write of a batch (write-batch.ts) that must insert it. */
export const outboxWrite = (event: EventInput, now: number) => ({
  statement: outboxInsert,
  params: [systemIds.mint('event'), event.type, event.tenant, now, JSON.stringify(event.data)] as [
    id: string,
    type: string,
    tenant: string,
    createdAt: number,
    data: string,
  ],
  expect: 1,
  refusal: 'outbox',
});

const committedListeners = new Set<() => void>();

/**
 * Calls `listener` after every unit of work of this process that committed events, so delivery
 * can start at once instead of at its next poll. Answers the function that removes it.
 */
export function onEventsCommitted(listener: () => void): () => void {
  committedListeners.add(listener);
  return () => committedListeners.delete(listener);
}

/** Wakes delivery: events were just committed (a unit of work, or a batch of writes, write-batch.ts). */
export function wakeDelivery(): void {
  for (const listener of committedListeners) listener();
}

// SQLite's router reads this before it takes the write lock, twice a second and after its own commits.
const anyUnrouted = new Statement<{ seq: number }>('select seq from outbox where routed_to is null limit 1');

/** Whether an event waits for routing (a read, so an idle poll writes nothing). */
export async function routingDue(db: Db): Promise<boolean> {
  return (await anyUnrouted.first(db, [])) !== undefined;
}

// Every routing pass starts with this read (on PostgreSQL, an idle pass is this read alone): written once.
const oldestUnrouted = new Statement<{
  seq: number;
  id: string;
  type: string;
  tenant: string;
  created_at: number;
  data: string;
}>('select seq, id, type, tenant, created_at, data from outbox where routed_to is null order by seq limit ?');

/** Up to `limit` events not routed yet, oldest first (`data` is the JSON text as written). */
export function unroutedEvents(db: Db, limit: number) {
  return oldestUnrouted.rows(db, [limit]);
}

/** Marks the events `seqs` routed, each to `count` endpoints. */
export async function markRouted(db: Db, count: number, seqs: readonly number[]): Promise<void> {
  await db
    .updateTable('outbox')
    .set({ routed_to: count })
    .where('seq', 'in', [...seqs])
    .execute();
}

// PostgreSQL: each event marked with its own count, all in one write however many counts there are.
const markEachRouted = new Statement(
  'update outbox set routed_to = r.n from unnest(?::bigint[], ?::int[]) as r(seq, n) ' +
    'where outbox.seq = r.seq and outbox.routed_to is null',
);

/**
 * PostgreSQL: marks each event routed to its count of endpoints, as the guarded write of a routing
 * batch (write-batch.ts): every event still unrouted, or the batch is undone (another process
 * routed one of them meanwhile).
 */
export const markRoutedWrite = (routed: ReadonlyArray<{ seq: number; endpoints: number }>): GuardedWrite => ({
  statement: markEachRouted,
  params: [routed.map((r) => r.seq), routed.map((r) => r.endpoints)],
  expect: routed.length,
  refusal: 'routed meanwhile',
});

/** Deletes up to `batch` routed events written before `cutoff`; answers how many. */
export async function pruneRoutedEvents(db: Db, cutoff: number, batch: number): Promise<number> {
  const old = db
    .selectFrom('outbox')
    .select('seq')
    .where('created_at', '<', cutoff)
    .where('routed_to', 'is not', null)
    .limit(batch);
  const events = await db.deleteFrom('outbox').where('seq', 'in', old).executeTakeFirst();
  return Number(events.numDeletedRows);
}
