import type { Selectable } from 'kysely';
import type {
  IntegrationTokenRecord,
  IntegrationTokenStore,
  Page,
  RateBudget,
  RateWindow,
} from '../../ports/integration-token-store.ts';
import type { Db } from './connect.ts';
import { json, rowCodec } from './row-codec.ts';
import type { IntegrationTokensTable } from './schema.ts';
import { Statement } from './statement.ts';
import { inTenant, inWindow, pastCursor } from './windowed.ts';
import { batchesInOneStatement } from './write-batch.ts';

const tokens = rowCodec<IntegrationTokenRecord, IntegrationTokensTable>()(
  'id tenant label rateClass tokenHash state requestId createdBy createdAt rotatedAt revokedAt revokedBy partnerId',
  { scopes: json },
);
const toToken = tokens.record;

/** Every authenticated key request reads this: written once, prepared once per connection. */
const activeByHash = new Statement<Selectable<IntegrationTokensTable>>(
  "select * from integration_tokens where token_hash = ? and state = 'active'",
);

export class SqlIntegrationTokenStore implements IntegrationTokenStore {
  constructor(private readonly db: Db) {}

  async findActive(tokenHash: string): Promise<IntegrationTokenRecord | undefined> {
    const row = await activeByHash.first(this.db, [tokenHash]);
    return row && toToken(row);
  }

  async createToken(t: IntegrationTokenRecord): Promise<void> {
    await this.db
      .insertInto('integration_tokens')
      .values(tokens.row({ ...t, rotatedAt: null, revokedAt: null, revokedBy: null }))
      .execute();
  }

  async token(id: string, within: string | null): Promise<IntegrationTokenRecord | undefined> {
    let q = this.db.selectFrom('integration_tokens').selectAll().where('id', '=', id);
    if (within !== null) q = q.where('tenant', '=', within);
    const row = await q.executeTakeFirst();
    return row && toToken(row);
  }

  async tokens(within: string | null, page: Page): Promise<IntegrationTokenRecord[]> {
    let q = this.db.selectFrom('integration_tokens').selectAll().where(inTenant(within));
    if (page.tenant !== undefined) q = q.where('tenant', '=', page.tenant);
    if (page.partnerId !== undefined) q = q.where('partner_id', '=', page.partnerId);
    q = q.where(inWindow('created_at', page));
    q = q.where(pastCursor(['created_at', 'id'], page.after, 'desc'));
    const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).execute();
    return rows.map(toToken);
  }

  async activePartnerKeys(partnerId: string): Promise<number> {
    const row = await this.db
      .selectFrom('integration_tokens')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('partner_id', '=', partnerId)
      .where('state', '=', 'active')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async revoke(id: string, within: string | null, by: string, now: number): Promise<boolean> {
    let q = this.db
      .updateTable('integration_tokens')
      .set({ state: 'revoked', revoked_at: now, revoked_by: by })
      .where('id', '=', id)
      .where('state', '=', 'active');
    if (within !== null) q = q.where('tenant', '=', within);
    return Number((await q.executeTakeFirst()).numUpdatedRows) === 1;
  }

  async revokePartnerKeys(partnerId: string, by: string, now: number, keep?: (t: IntegrationTokenRecord) => boolean) {
    const active = await this.db
      .selectFrom('integration_tokens')
      .selectAll()
      .where('partner_id', '=', partnerId)
      .where('state', '=', 'active')
      .execute();
    const ids = active
      .map(toToken)
      .filter((t) => !keep?.(t))
      .map((t) => t.id);
    if (ids.length > 0) {
      await this.db
        .updateTable('integration_tokens')
        .set({ state: 'revoked', revoked_at: now, revoked_by: by })
        .where('id', 'in', ids)
        .where('state', '=', 'active')
        .execute();
    }
    return ids;
  }

  async rotate(id: string, within: string | null, tokenHash: string, now: number): Promise<boolean> {
    let q = this.db
      .updateTable('integration_tokens')
      .set({ token_hash: tokenHash, rotated_at: now })
      .where('id', '=', id)
      .where('state', '=', 'active');
    if (within !== null) q = q.where('tenant', '=', within);
    return Number((await q.executeTakeFirst()).numUpdatedRows) === 1;
  }
}

// One atomic statement per metered request: a new window starts the count again at 1.
const consume = new Statement<{ used: number }>(
  `insert into rate_windows (key, window_start, used) values (?, ?, 1)
   on conflict (key) do update set
     used = case when rate_windows.window_start = excluded.window_start then rate_windows.used + 1 else 1 end,
     window_start = excluded.window_start
   returning used`,
);

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
    const row = await this.db
      .selectFrom('rate_windows')
      .select('used')
      .where('key', '=', key)
      .where('window_start', '=', windowStart)
      .executeTakeFirst();
    return Number(row?.used ?? 0);
  }

  async prune(before: number): Promise<number> {
    const result = await this.db.deleteFrom('rate_windows').where('window_start', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
