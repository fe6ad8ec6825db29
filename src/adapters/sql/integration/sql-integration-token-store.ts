import type { Selectable } from 'kysely';
import type { IntegrationTokenRecord, IntegrationTokenStore, Page } from '../../../ports/integration-token-store.ts';
import type { Db } from '../connect.ts';
import { json, rowCodec } from '../row-codec.ts';
import type { IntegrationTokensTable } from '../schema.ts';
import { Statement } from '../statement.ts';
import { inTenant, newestFirst } from '../windowed.ts';

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
    const rows = await newestFirst(q, ['created_at', 'id'], page).execute();
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
