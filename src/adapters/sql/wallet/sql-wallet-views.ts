import { sql } from 'kysely';
import type { SourcePage } from '../../../ports/timeline-page.ts';
import type { AccountInTenant, TenantWindow } from '../../../ports/view-records.ts';
import type {
  ChannelRow,
  ConsentRow,
  ItemStateCount,
  WalletItemRow,
  WalletItemsOf,
  WalletViews,
} from '../../../ports/wallet-views.ts';
import { accountLists } from '../account-lists.ts';
import type { Db } from '../connect.ts';
import type { ChannelsTable } from '../schema.ts';
import { sourcePage } from '../timeline-page.ts';
import { inTenant } from '../windowed.ts';
import { consentPage } from './sql-consent-reads.ts';

const CHANNEL_COLUMNS = ['tenant', 'account_id', 'state', 'elements', 'requested_by', 'created_at', 'updated_at'] as const;

/** A channel as the views answer it: its elements parsed. */
const toChannel = (r: ChannelsTable): ChannelRow => ({
  tenant: r.tenant,
  accountId: r.account_id,
  state: r.state,
  elements: JSON.parse(r.elements) as string[],
  requestedBy: r.requested_by,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

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
      .select(CHANNEL_COLUMNS)
      .where('account_id', '=', accountId)
      .where(inTenant(tenant));
    const rows = await sourcePage(query, 'created_at', 'tenant', page);
    return rows.map(toChannel);
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

  async item(id: string, tenant: string | null): Promise<WalletItemRow | undefined> {
    const row = await this.db
      .selectFrom('wallet_items')
      .select(['id', 'tenant', 'account_id', 'kind', 'ref', 'state', 'created_at', 'updated_at'])
      .where('id', '=', id)
      .where(inTenant(tenant))
      .executeTakeFirst();
    return (
      row && {
        id: row.id,
        tenant: row.tenant,
        accountId: row.account_id,
        kind: row.kind,
        ref: row.ref,
        state: row.state,
        createdAt: Number(row.created_at),
        updatedAt: Number(row.updated_at),
      }
    );
  }

  accountsByPrefix(prefix: string, tenant: string | null, cap: number): Promise<AccountInTenant[]> {
    return accountLists(this.db, 'wallet_items', 'created_at').accountsByPrefix(prefix, tenant, cap);
  }

  accounts(window: TenantWindow, after: string | undefined, limit: number): Promise<string[]> {
    return accountLists(this.db, 'wallet_items', 'created_at').accounts(window, after, limit);
  }

  async itemCounts(accountIds: readonly string[], tenant: string | null): Promise<Array<AccountInTenant & { count: number }>> {
    if (accountIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('wallet_items')
      .select((eb) => ['account_id', 'tenant', eb.fn.countAll().as('n')])
      .where('account_id', 'in', accountIds)
      .where(inTenant(tenant))
      .groupBy(['account_id', 'tenant'])
      .execute();
    return rows.map((r) => ({ accountId: r.account_id, tenant: r.tenant, count: Number(r.n) }));
  }

  async itemStates(accountId: string, tenant: string | null, now: number): Promise<ItemStateCount[]> {
    // A pending item past its expiry reads `expired` (docs/wallet.md), as the holder sees it;
    // grouped by its output name, since the expression's parameter would not match itself.
    const state = sql<string>`case when ${sql.ref('state')} = 'pending' and ${sql.ref('expires_at')} is not null and ${sql.ref('expires_at')} <= ${now} then 'expired' else ${sql.ref('state')} end`;
    const rows = await this.db
      .selectFrom('wallet_items')
      .select(['tenant', 'kind', state.as('shown')])
      .select((eb) => eb.fn.countAll().as('n'))
      .where('account_id', '=', accountId)
      .groupBy(['tenant', 'kind', sql.ref('shown')])
      .where(inTenant(tenant))
      .execute();
    return rows.map((r) => ({ tenant: r.tenant, kind: r.kind, state: r.shown, count: Number(r.n) }));
  }

  async channelsByTenant(accountId: string, tenant: string | null): Promise<ChannelRow[]> {
    const rows = await this.db
      .selectFrom('channels')
      .select(CHANNEL_COLUMNS)
      .where('account_id', '=', accountId)
      .where(inTenant(tenant))
      .orderBy('tenant')
      .execute();
    return rows.map(toChannel);
  }

  consent(
    filter: TenantWindow & { accountId?: string },
    limit: number,
    after?: readonly [string, string, string],
  ): Promise<ConsentRow[]> {
    return consentPage(this.db, filter, limit, after);
  }

  async activeChannels(): Promise<Array<{ tenant: string; active: number }>> {
    const rows = await this.db
      .selectFrom('channels')
      .select((eb) => ['tenant', eb.fn.countAll<number>().as('n')])
      .where('state', '=', 'active')
      .groupBy('tenant')
      .orderBy('tenant')
      .execute();
    return rows.map((c) => ({ tenant: c.tenant, active: Number(c.n) }));
  }
}
