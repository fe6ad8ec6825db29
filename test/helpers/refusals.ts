/**
 * Every refusal changes nothing (docs/architecture.md): the helpers that prove it. A test takes a
 * snapshot of what the operation could touch, sends the refused request, checks its status and
 * error code, and compares the snapshot again.
 */
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../../src/adapters/sql/connect.ts';

/** The number of rows of `table`. */
export async function rowCount(db: Db, table: string): Promise<number> {
  return (await rowCounts(db, [table]))[table] as number;
}

/** The number of rows of each table. */
export async function rowCounts(db: Db, tables: readonly string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of tables) {
    const r = await sql<{ n: number }>`select count(*) as n from ${sql.table(t)}`.execute(db);
    out[t] = Number(r.rows[0]?.n);
  }
  return out;
}

/** The JSON of an answer, once it is checked to have `status` (200 unless told). */
export function ok(res: LightMyRequestResponse, status = 200) {
  assert.equal(res.statusCode, status, res.body);
  return res.json();
}

/** Sends the request, checks it is refused with `status` and `code`, and that `snapshot` did not move. */
export async function refusedUnchanged(
  snapshot: () => Promise<unknown>,
  send: () => Promise<LightMyRequestResponse>,
  status: number,
  code: string,
): Promise<LightMyRequestResponse> {
  const before = await snapshot();
  const res = await send();
  assert.equal(res.statusCode, status, res.body);
  assert.equal(res.json().error, code, res.body);
  assert.deepEqual(await snapshot(), before, `${code} changed nothing`);
  return res;
}
