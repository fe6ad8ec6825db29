import { type Expression, type SqlBool, sql } from 'kysely';
import type { AuditEntry } from '../../../core/audit-chain.ts';
import type { AuditHead, AuditListQuery, AuditMark } from '../../../ports/kernel-views.ts';
import type { SourcePage } from '../../../ports/timeline-page.ts';
import type { Db } from '../connect.ts';
import { mentions } from '../text-match.ts';
import { sourcePage } from '../timeline-page.ts';
import { inTenant, inWindow } from '../windowed.ts';
import { toAuditEntry } from './sql-audit-trail.ts';

/**
 * The kernel's reads of the audit chain that it publishes (ports/kernel-views.ts, through
 * SqlKernelViews): the back office's log and its pages, one entry, the head, the entry that marks
 * an object, and the entries a timeline shows. Every query is bounded by a limit or a key.
 */

/** `substr(expr, 1, len(prefix)) = prefix`: a prefix test without LIKE, whose `_` would be a wildcard in an action. */
export const hasPrefix = (expr: Expression<unknown>, prefix: string) =>
  sql<SqlBool>`substr(${expr}, 1, ${sql.lit(prefix.length)}) = ${prefix}`;

export async function auditHead(db: Db): Promise<AuditHead> {
  const row = await db.selectFrom('audit_head').select(['seq', 'hash']).where('id', '=', 1).executeTakeFirstOrThrow();
  return { seq: Number(row.seq), hash: row.hash };
}

export async function auditEntry(db: Db, seq: number): Promise<AuditEntry | undefined> {
  const row = await db.selectFrom('audit_log').selectAll().where('seq', '=', seq).executeTakeFirst();
  return row ? toAuditEntry(row) : undefined;
}

export async function auditPage(db: Db, q: AuditListQuery): Promise<AuditEntry[]> {
  let query = db.selectFrom('audit_log').selectAll().where(inTenant(q.tenant));
  if (q.actor !== undefined) query = query.where('actor', '=', q.actor);
  if (q.action !== undefined) {
    query = q.action.endsWith('.') ? query.where(hasPrefix(sql.ref('action'), q.action)) : query.where('action', '=', q.action);
  }
  query = query.where(inWindow('at', q));
  if (q.afterSeq !== undefined) query = query.where('seq', q.order === 'desc' ? '<' : '>', q.afterSeq);
  const rows = await query.orderBy('seq', q.order).limit(q.limit).execute();
  return rows.map(toAuditEntry);
}

export async function auditMark(db: Db, action: string, target: string, tenant: string | null): Promise<AuditMark | undefined> {
  const row = await db
    .selectFrom('audit_log')
    .select(['seq', 'at', 'actor'])
    .where('target', '=', target)
    .where('action', '=', action)
    .where(inTenant(tenant))
    .orderBy('seq')
    .limit(1)
    .executeTakeFirst();
  return row && { seq: Number(row.seq), at: Number(row.at), actor: row.actor };
}

export async function auditNaming(db: Db, key: string, tenant: string | null, page: SourcePage): Promise<AuditEntry[]> {
  const query = db
    .selectFrom('audit_log')
    .selectAll()
    .where((eb) => eb.or([eb('target', '=', key), mentions('detail', key)]))
    .where(inTenant(tenant));
  return (await sourcePage(query, 'at', 'seq', page)).map(toAuditEntry);
}
