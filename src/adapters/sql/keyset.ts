import { type Expression, type SqlBool, sql } from 'kysely';
import type { TimeKeyset } from '../../ports/view-records.ts';

/** The condition of a TimeKeyset on a time column and an id column: the rows before it, in (time, id) descending order. */
export function beforeKeyset(time: string, id: string, keyset: TimeKeyset): Expression<SqlBool> {
  if (keyset.op === 'tie') return sql<SqlBool>`(${sql.ref(time)}, ${sql.ref(id)}) < (${keyset.at}, ${keyset.id})`;
  return keyset.op === 'le' ? sql<SqlBool>`${sql.ref(time)} <= ${keyset.at}` : sql<SqlBool>`${sql.ref(time)} < ${keyset.at}`;
}
