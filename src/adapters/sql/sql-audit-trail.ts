import { actorLabel } from '../../core/actor.ts';
import { type AuditEntry, auditHash } from '../../core/audit-chain.ts';
import type { Clock } from '../../core/clock.ts';
import type { AuditInput, AuditTrail } from '../../ports/audit-trail.ts';
import type { Db } from './connect.ts';
import { json, rowCodec } from './row-codec.ts';
import type { AuditLogTable } from './schema.ts';
import { inTransactionOnly } from './sql-unit-of-work.ts';

const entries = rowCodec<AuditEntry, AuditLogTable>()('seq at actor action tenant target prevHash hash', { detail: json });

/**
 * Appends to the hash-chained audit log. Must run inside a transaction (SqlUnitOfWork): the head
 * row is updated first, which on PostgreSQL locks it until commit, so concurrent appends from
 * any process take consecutive numbers and link in commit order; a rolled-back append leaves
 * neither a gap nor an entry.
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
    await this.db
      .insertInto('audit_log')
      .values(entries.row({ ...unhashed, hash }))
      .execute();
    await this.db.updateTable('audit_head').set({ hash }).where('id', '=', 1).execute();
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
