import { actorLabel } from '../../../core/actor.ts';
import { type AuditEntry, auditHash } from '../../../core/audit-chain.ts';
import type { Clock } from '../../../core/clock.ts';
import type { AuditInput, AuditTrail } from '../../../ports/audit-trail.ts';
import type { Db } from '../connect.ts';
import { json, rowCodec } from '../row-codec.ts';
import type { AuditLogTable } from '../schema.ts';
import { inTransactionOnly } from '../sql-unit-of-work.ts';
import { Statement } from '../statement.ts';
import { writeTogether } from '../write-batch.ts';

const entries = rowCodec<AuditEntry, AuditLogTable>()('seq at actor action tenant target prevHash hash', { detail: json });
const ENTRY_COLUMNS = entries.columns;
const insertEntry = new Statement(
  `insert into audit_log (${ENTRY_COLUMNS.join(', ')}) values (${ENTRY_COLUMNS.map(() => '?').join(', ')})`,
);
const setHeadHash = new Statement('update audit_head set hash = ? where id = 1');

/**
 * Appends to the hash-chained audit log. Must run inside a transaction (SqlUnitOfWork): the head
 * row is updated first, which on PostgreSQL locks it until commit, so concurrent appends from
 * any process take consecutive numbers and link in commit order; a rolled-back append leaves
 * neither a gap nor an entry. The entry and the head's new hash are then one statement (two
 * round trips in all).
 */
export class SqlAuditTrail implements AuditTrail {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async append(input: AuditInput): Promise<number> {
    inTransactionOnly(this.db, 'an audit entry');
    const head = await this.db
      .updateTable('audit_head')
      .set((eb) => ({ seq: eb('seq', '+', 1) }))
      .where('id', '=', 1)
      .returning(['seq', 'hash'])
      .executeTakeFirstOrThrow();
    const unhashed: Omit<AuditEntry, 'hash'> = {
      seq: Number(head.seq),
      at: this.clock.now(),
      actor: actorLabel(input.actor),
      action: input.action,
      tenant: input.tenant,
      target: input.target ?? null,
      detail: input.detail ?? {},
      prevHash: head.hash,
    };
    const hash = auditHash(unhashed);
    const row = entries.row({ ...unhashed, hash }) as Record<string, unknown>;
    await writeTogether(this.db, [
      { statement: insertEntry, params: ENTRY_COLUMNS.map((c) => row[c]) },
      { statement: setHeadHash, params: [hash], expect: 1, refusal: 'audit head' },
    ]);
    return unhashed.seq;
  }
}

/** Reads of the audit log (tests and, later, the back office). */
export async function readAuditLog(db: Db, fromSeq = 1, limit = 1000): Promise<AuditEntry[]> {
  const rows = await db.selectFrom('audit_log').selectAll().where('seq', '>=', fromSeq).orderBy('seq').limit(limit).execute();
  return rows.map(toAuditEntry);
}

/** An audit_log row as an entry of the chain. */
export const toAuditEntry = entries.record;
