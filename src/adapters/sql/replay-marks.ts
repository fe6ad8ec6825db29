import type { Db } from './connect.ts';
import { Statement } from './statement.ts';
import type { GuardedWrite } from './write-batch.ts';

/** The tables of single-use marks: a jti under its key, kept until it expires. */
type MarkTable = 'holder_jti' | 'attestation_pop_jti';

/** The key columns of each table's marks (its primary key). */
const KEYS: Record<MarkTable, readonly string[]> = {
  holder_jti: ['account_id', 'jti'],
  attestation_pop_jti: ['tenant', 'jti_hash'],
};

/**
 * Each table's burn, one statement (docs/scaling.md, "Round trips"): the mark inserted, or an
 * expired mark of the same key (not yet pruned) taken over; a live mark changes nothing. What an
 * expired mark marked is outside the freshness window anyway, so this never reopens a live jti.
 * Concurrent burns of one key change one row between them: the conflict locks it, and the others
 * then find it live.
 */
const burns = Object.fromEntries(
  (Object.keys(KEYS) as MarkTable[]).map((table) => {
    const key = KEYS[table].join(', ');
    return [
      table,
      new Statement(
        `insert into ${table} (${key}, expires_at) values (${KEYS[table].map(() => '?').join(', ')}, ?) ` +
          `on conflict (${key}) do update set expires_at = excluded.expires_at where ${table}.expires_at <= ?`,
      ),
    ];
  }),
) as Record<MarkTable, Statement>;

const paramsOf = (table: MarkTable, key: Readonly<Record<string, string>>, expiresAt: number, now: number) => [
  ...KEYS[table].map((column) => {
    const value = key[column];
    if (value === undefined) throw new Error(`a mark of ${table} names its ${column}`);
    return value;
  }),
  expiresAt,
  now,
];

/** Burns the mark `key` (its columns and values) in `table` until `expiresAt`: whether it was fresh. */
export async function burnMark(
  db: Db,
  table: MarkTable,
  key: Readonly<Record<string, string>>,
  expiresAt: number,
  now: number,
): Promise<boolean> {
  return (await burns[table].changes(db, paramsOf(table, key, expiresAt, now))) === 1;
}

/** The same burn as a write of a batch (write-batch.ts), which answers `refusal` when the mark was live. */
export function burnMarkWrite(
  table: MarkTable,
  key: Readonly<Record<string, string>>,
  expiresAt: number,
  now: number,
  refusal: string,
): GuardedWrite {
  return { statement: burns[table], params: paramsOf(table, key, expiresAt, now), expect: 1, refusal };
}

/** Drops the marks of `table` that have expired by `now`: how many. */
export async function pruneMarks(db: Db, table: MarkTable, now: number): Promise<number> {
  const result = await db.deleteFrom(table).where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
