import { PostgresAdapter } from 'kysely';
import { actorLabel } from '../../../core/actor.ts';
import { type AuditEntry, auditHash, auditHashText } from '../../../core/audit-chain.ts';
import type { Clock } from '../../../core/clock.ts';
import type { EventInput } from '../../../core/events.ts';
import type { AuditInput, AuditTrail } from '../../../ports/audit-trail.ts';
import type { EventOutbox } from '../../../ports/event-outbox.ts';
import type { Db } from '../connect.ts';
import { json, rowCodec } from '../row-codec.ts';
import type { AuditLogTable } from '../schema.ts';
import { inTransactionOnly } from '../sql-unit-of-work.ts';
import { Statement } from '../statement.ts';
import { writeTogether } from '../write-batch.ts';
import { outboxInsert, outboxWrite } from './kernel-statements.ts';
import { eventsWrittenIn } from './sql-event-outbox.ts';

const entries = rowCodec<AuditEntry, AuditLogTable>()('seq at actor action tenant target prevHash hash', { detail: json });
const ENTRY_COLUMNS = entries.columns;
const insertEntry = new Statement(
  `insert into audit_log (${ENTRY_COLUMNS.join(', ')}) values (${ENTRY_COLUMNS.map(() => '?').join(', ')})`,
);
const setHeadHash = new Statement('update audit_head set hash = ? where id = 1');

/** The columns of an entry the statement is given; seq, prev_hash and hash come from the head. */
const GIVEN = ['at', 'actor', 'action', 'tenant', 'target', 'detail'] as const;
const GIVEN_TYPES = { at: 'bigint', actor: 'text', action: 'text', tenant: 'text', target: 'text', detail: 'text' } as const;

type Appended = { seq: string; prev_hash: string; hash: string; entries: string; events: string };

/**
 * PostgreSQL: an append and its events as one statement, by the number of events. `prior` locks
 * the head row (waiting, as any update of it does, for the transaction that holds it, then reading
 * what that one committed); `head` moves it on, to the next seq and the new entry's hash, which
 * sha256 makes from the head's own hash and seq and the entry's text cut around them
 * (auditHashText); `entry` inserts the entry with the hash `prior` read as its prevHash; `events`
 * inserts the events as one multi-row insert, whose rows take their outbox seq in the order given
 * (one insert, not one data-modifying clause each, whose order PostgreSQL leaves open).
 */
const appends = new Map<number, Statement<Appended>>();
/**
 * At most this many events go in the statement (and so at most this many statements are
 * prepared); the rest of a longer list is emitted after it, in the same transaction and order.
 */
const EVENTS_IN_STATEMENT = 8;

function appendStatement(events: number): Statement<Appended> {
  let statement = appends.get(events);
  if (statement) return statement;
  const rows = Array.from({ length: events }, () => '(?, ?, ?, ?, ?)').join(', ');
  const oneRow = /values \(.*\)$/;
  if (!oneRow.test(outboxInsert.text)) throw new Error('the outbox insert no longer ends in one values row');
  const insertEvents = outboxInsert.text.replace(oneRow, `values ${rows}`);
  statement = new Statement<Appended>(
    [
      'with prior as (select hash from audit_head where id = 1 for update),',
      'head as (update audit_head set seq = audit_head.seq + 1,',
      "  hash = encode(sha256(convert_to(?::text || audit_head.hash || ?::text || (audit_head.seq + 1)::text || ?::text, 'UTF8')), 'hex')",
      '  from prior where audit_head.id = 1 returning audit_head.seq, prior.hash as prev_hash, audit_head.hash),',
      `entry as (insert into audit_log (seq, ${GIVEN.join(', ')}, prev_hash, hash)`,
      `  select seq, ${GIVEN.map((c) => `?::${GIVEN_TYPES[c]}`).join(', ')}, prev_hash, hash from head returning 1)`,
      ...(events > 0 ? [`, events as (${insertEvents} returning 1)`] : []),
      'select seq, prev_hash, hash, (select count(*) from entry) as entries,',
      `  ${events === 0 ? '0' : '(select count(*) from events)'} as events`,
      'from head',
    ].join('\n'),
  );
  appends.set(events, statement);
  return statement;
}

/**
 * Appends to the hash-chained audit log (docs/audit.md, "Sequence numbers"). Must run inside a
 * transaction (SqlUnitOfWork): the head row is updated first, which on PostgreSQL locks it until
 * commit, so concurrent appends from any process take consecutive numbers and link in commit
 * order; a rolled-back append leaves neither a gap nor an entry.
 *
 * - On PostgreSQL the head's move, the entry and the events given with it are one statement (one
 *   round trip), whose hash is checked here against `auditHash` before the append answers: a
 *   hash made otherwise throws, and the unit of work rolls back.
 * - On SQLite, where a statement costs no network, the head is moved, the hash made here, then the
 *   entry and the head's new hash written together, and each event emitted.
 */
export class SqlAuditTrail implements AuditTrail {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly outbox: EventOutbox,
  ) {}

  async append(input: AuditInput, events: readonly EventInput[] = []): Promise<number> {
    inTransactionOnly(this.db, 'an audit entry');
    const given: Omit<AuditEntry, 'seq' | 'prevHash' | 'hash'> = {
      at: this.clock.now(),
      actor: actorLabel(input.actor),
      action: input.action,
      tenant: input.tenant,
      target: input.target ?? null,
      detail: input.detail ?? {},
    };
    if (this.db.getExecutor().adapter instanceof PostgresAdapter) return this.inOneStatement(given, events);
    const head = await this.db
      .updateTable('audit_head')
      .set((eb) => ({ seq: eb('seq', '+', 1) }))
      .where('id', '=', 1)
      .returning(['seq', 'hash'])
      .executeTakeFirstOrThrow();
    const unhashed: Omit<AuditEntry, 'hash'> = { seq: Number(head.seq), ...given, prevHash: head.hash };
    const hash = auditHash(unhashed);
    const row = entries.row({ ...unhashed, hash }) as Record<string, unknown>;
    await writeTogether(this.db, [
      { statement: insertEntry, params: ENTRY_COLUMNS.map((c) => row[c]) },
      { statement: setHeadHash, params: [hash], expect: 1, refusal: 'audit head' },
    ]);
    for (const event of events) await this.outbox.emit(event, given.at);
    return unhashed.seq;
  }

  private async inOneStatement(given: Omit<AuditEntry, 'seq' | 'prevHash' | 'hash'>, events: readonly EventInput[]) {
    const { before, between, after } = auditHashText(given);
    const row = entries.row({ ...given, seq: 0, prevHash: '', hash: '' }) as Record<string, unknown>;
    const inStatement = events.slice(0, EVENTS_IN_STATEMENT);
    const outbox = inStatement.map((e) => outboxWrite(e, given.at).params);
    const done = await appendStatement(inStatement.length).first(this.db, [
      before,
      between,
      after,
      ...GIVEN.map((c) => row[c]),
      ...outbox.flat(),
    ]);
    if (!done || Number(done.entries) !== 1) throw new Error('the audit head row is missing: no entry was appended');
    if (Number(done.events) !== inStatement.length) throw new Error('an event given with an audit entry was not written');
    const entry = { seq: Number(done.seq), ...given, prevHash: done.prev_hash };
    if (auditHash(entry) !== done.hash) throw new Error(`audit entry ${entry.seq}: PostgreSQL's hash is not auditHash's`);
    if (inStatement.length > 0) eventsWrittenIn(this.db);
    for (const event of events.slice(EVENTS_IN_STATEMENT)) await this.outbox.emit(event, given.at);
    return entry.seq;
  }
}

/** Reads of the audit log (tests and, later, the back office). */
export async function readAuditLog(db: Db, fromSeq = 1, limit = 1000): Promise<AuditEntry[]> {
  const rows = await db.selectFrom('audit_log').selectAll().where('seq', '>=', fromSeq).orderBy('seq').limit(limit).execute();
  return rows.map(toAuditEntry);
}

/** An audit_log row as an entry of the chain. */
export const toAuditEntry = entries.record;
