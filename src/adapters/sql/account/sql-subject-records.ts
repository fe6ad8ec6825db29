import { sql } from 'kysely';
import type { SubjectRecords } from '../../../ports/subject-records.ts';
import type { Db } from '../connect.ts';
import { ACCOUNT_COLUMNS } from '../holder-data.ts';

const camel = (column: string) => column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** A stored value as the export writes it: a time as RFC 3339, JSON text as JSON. */
function exported(column: string, value: unknown, json: readonly string[]): unknown {
  if (value === null || value === undefined) return null;
  if (column.endsWith('_at')) return new Date(Number(value)).toISOString();
  if (json.includes(column) && typeof value === 'string') return value === '' ? null : (JSON.parse(value) as unknown);
  return typeof value === 'bigint' ? Number(value) : value;
}

/** The account's records by the holder-data registry's export sections (holder-data.ts). */
export class SqlSubjectRecords implements SubjectRecords {
  constructor(private readonly db: Db) {}

  async records(accountId: string, limit: number): Promise<Record<string, Array<Record<string, unknown>>>> {
    const out: Record<string, Array<Record<string, unknown>>> = {};
    for (const c of ACCOUNT_COLUMNS) {
      if (!('columns' in c.export)) continue;
      const { section, columns, json = [] } = c.export;
      const rows = await sql<Record<string, unknown>>`select ${sql.join(columns.map((col) => sql.ref(col)))}
        from ${sql.table(c.table)} where ${sql.ref(c.column)} = ${accountId}
        order by ${sql.ref(columns[0] as string)} limit ${limit}`.execute(this.db);
      out[section] = rows.rows.map((row) =>
        Object.fromEntries(columns.map((col) => [camel(col), exported(col, row[col], json)])),
      );
    }
    return out;
  }
}
