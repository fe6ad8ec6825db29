import { sql } from 'kysely';
import type { SourcePage } from '../../../ports/timeline-page.ts';
import type { ChannelRow, WalletItemRow, WalletItemsOf, WalletViews } from '../../../ports/wallet-views.ts';
import type { Db } from '../connect.ts';
import { sourcePage } from '../timeline-page.ts';
import { inTenant } from '../windowed.ts';

/** The wallet module's published views of its items and channels (ports/wallet-views.ts); never an item's title. */
export class SqlWalletViews implements WalletViews {
  constructor(private readonly db: Db) {}

  async offersAddressedTo(accountId: string, tenant: string | null): Promise<string[]> {
    const rows = await this.db
      .selectFrom('wallet_items')
      .select('ref')
      .where('account_id', '=', accountId)
      .where('kind', '=', 'offer')
      .where(inTenant(tenant))
      .execute();
    return rows.map((r) => r.ref);
  }

  async itemsOf(of: WalletItemsOf, tenant: string | null, page: SourcePage): Promise<WalletItemRow[]> {
    const query = this.db
      .selectFrom('wallet_items')
      .select(['id', 'tenant', 'account_id', 'kind', 'ref', 'state', 'created_at', 'updated_at'])
      .where(inTenant(tenant))
      .$if('accountId' in of, (qb) => qb.where('account_id', '=', (of as { accountId: string }).accountId))
      .$if('offerId' in of, (qb) => qb.where('kind', '=', 'offer').where('ref', '=', (of as { offerId: string }).offerId));
    const rows = await sourcePage(query, 'created_at', 'id', page);
    return rows.map((r) => ({
      id: r.id,
      tenant: r.tenant,
      accountId: r.account_id,
      kind: r.kind,
      ref: r.ref,
      state: r.state,
      createdAt: Number(r.created_at),
      updatedAt: Number(r.updated_at),
    }));
  }

  async channelsOf(accountId: string, tenant: string | null, page: SourcePage): Promise<ChannelRow[]> {
    const query = this.db
      .selectFrom('channels')
      .select(['tenant', 'account_id', 'state', 'elements', 'requested_by', 'created_at', 'updated_at'])
      .where('account_id', '=', accountId)
      .where(inTenant(tenant));
    const rows = await sourcePage(query, 'created_at', 'tenant', page);
    return rows.map((r) => ({
      tenant: r.tenant,
      accountId: r.account_id,
      state: r.state,
      elements: JSON.parse(r.elements) as string[],
      requestedBy: r.requested_by,
      createdAt: Number(r.created_at),
      updatedAt: Number(r.updated_at),
    }));
  }

  async demoMarkMismatches(limit: number): Promise<{ id: string; tenant: string }[]> {
    return this.db
      .selectFrom('wallet_items')
      .select(['id', 'tenant'])
      .where((eb) =>
        eb.or([
          eb.and([eb('demo', '=', 1), sql<boolean>`substr(tenant, 1, 5) <> 'demo-'`]),
          eb.and([eb('demo', '=', 0), sql<boolean>`substr(tenant, 1, 5) = 'demo-'`]),
        ]),
      )
      .orderBy('tenant')
      .orderBy('id')
      .limit(limit)
      .execute();
  }
}
