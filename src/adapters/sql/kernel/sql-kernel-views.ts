import { sql } from 'kysely';
import type { AuditEntry } from '../../../core/audit-chain.ts';
import type { KernelViews } from '../../../ports/kernel-views.ts';
import type { Db } from '../connect.ts';
import { readAuditLog } from './sql-audit-trail.ts';

/** A row of `collate`'s query: the position it was given. */
type Positioned = { column1: number | string };

/** The kernel's published views (ports/kernel-views.ts), on the ambient database. */
export class SqlKernelViews implements KernelViews {
  constructor(private readonly db: Db) {}

  auditEntries(fromSeq: number, limit: number): Promise<AuditEntry[]> {
    return readAuditLog(this.db, fromSeq, limit);
  }

  async lastSignIn(username: string): Promise<number | null> {
    // The action is a literal so that both engines read the partial index of sign-ins.
    const row = await this.db
      .selectFrom('audit_log')
      .select('at')
      .where('action', '=', sql.lit('operator.signed_in'))
      .where('target', '=', username)
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? Number(row.at) : null;
  }

  async collate(keys: readonly (readonly string[])[]): Promise<number[]> {
    const width = keys[0]?.length ?? 0;
    if (keys.length < 2 || width === 0) return keys.map((_, i) => i);
    // VALUES names its columns column1, column2, … on both engines; column1 is the position.
    const rows = keys.map((k, i) => sql`(${sql.lit(i)}, ${sql.join(k.map((v) => sql`${v}`))})`);
    const order = Array.from({ length: width }, (_, c) => sql.ref(`column${c + 2}`));
    const values = sql.join(rows);
    const query = sql<Positioned>`select column1 from (values ${values}) as keyed order by ${sql.join(order)}`;
    return (await query.execute(this.db)).rows.map((r) => Number(r.column1));
  }
}
