import type { RateBudget, RateWindow } from '../../../ports/integration-token-store.ts';
import type { Db } from '../connect.ts';
import { Statement } from '../statement.ts';
import { batchesInOneStatement } from '../write-batch.ts';

/**
 * The rate windows every plane shares (the integration keys' classes, the anonymous budgets): the
 * kernel's, handed to every module as `ctx.rates`.
 */
// One atomic statement per metered request: a new window starts the count again at 1.
const consume = new Statement<{ used: number }>(
  `insert into rate_windows (key, window_start, used) values (?, ?, 1)
   on conflict (key) do update set
     used = case when rate_windows.window_start = excluded.window_start then rate_windows.used + 1 else 1 end,
     window_start = excluded.window_start
   returning used`,
);

// The ceiling's read on SQLite, once per anonymous request (consumeChain).
const windowUsed = new Statement<{ used: number }>('select used from rate_windows where key = ? and window_start = ?');

/** consumeChain's statement for a chain of `n` windows (PostgreSQL), each made once. */
const chains = new Map<number, Statement<{ open: boolean } & Record<string, number | null>>>();
function chainStatement(n: number) {
  let statement = chains.get(n);
  if (!statement) {
    // The ceiling is read on the statement's snapshot; each window counts only when the one before
    // it counted within its quota (w0 when the ceiling is open).
    const upsert = (i: number) =>
      `w${i} as (insert into rate_windows (key, window_start, used) select ?::text, ?::bigint, 1 where ${
        i === 0 ? '(select open from c)' : `(select used from w${i - 1}) <= ?`
      } on conflict (key) do update set
         used = case when rate_windows.window_start = excluded.window_start then rate_windows.used + 1 else 1 end,
         window_start = excluded.window_start
       returning used)`;
    const ctes = Array.from({ length: n }, (_, i) => upsert(i)).join(', ');
    const counts = Array.from({ length: n }, (_, i) => `(select used from w${i}) as u${i}`).join(', ');
    statement = new Statement(
      `with c as (select coalesce((select used from rate_windows where key = ? and window_start = ?), 0) < ? as open), ${ctes}
       select (select open from c) as open, ${counts}`,
    );
    chains.set(n, statement);
  }
  return statement;
}

export class SqlRateBudget implements RateBudget {
  constructor(private readonly db: Db) {}

  async consumeChain(ceiling: RateWindow, chain: readonly RateWindow[]) {
    if (!batchesInOneStatement(this.db)) {
      if ((await this.used(ceiling.key, ceiling.windowStart)) >= ceiling.quota) return { ceilingReached: true, counts: [] };
      const counts: Array<number | undefined> = [];
      for (const w of chain) {
        const used = await this.consume(w.key, w.windowStart);
        counts.push(used);
        if (used > w.quota) break;
      }
      return { ceilingReached: false, counts };
    }
    const params: unknown[] = [ceiling.key, ceiling.windowStart, ceiling.quota];
    chain.forEach((w, i) => {
      params.push(w.key, w.windowStart);
      if (i > 0) params.push((chain[i - 1] as RateWindow).quota);
    });
    const row = await chainStatement(chain.length).first(this.db, params);
    if (!row?.open) return { ceilingReached: true, counts: [] };
    const counts = chain.map((_, i) => {
      const used = row[`u${i}`];
      return used === null || used === undefined ? undefined : Number(used);
    });
    return { ceilingReached: false, counts };
  }

  async consume(key: string, windowStart: number): Promise<number> {
    const row = await consume.first(this.db, [key, windowStart]);
    return Number(row?.used ?? Number.POSITIVE_INFINITY);
  }

  async used(key: string, windowStart: number): Promise<number> {
    const row = await windowUsed.first(this.db, [key, windowStart]);
    return Number(row?.used ?? 0);
  }

  async prune(before: number): Promise<number> {
    const result = await this.db.deleteFrom('rate_windows').where('window_start', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async forget(keys: readonly string[]): Promise<number> {
    if (keys.length === 0) return 0;
    const result = await this.db
      .deleteFrom('rate_windows')
      .where('key', 'in', [...keys])
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async counted(keys: readonly string[]): Promise<number> {
    if (keys.length === 0) return 0;
    const row = await this.db
      .selectFrom('rate_windows')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('key', 'in', [...keys])
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
