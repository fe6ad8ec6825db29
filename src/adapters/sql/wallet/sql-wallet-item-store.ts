import { type ExpressionBuilder, sql } from 'kysely';
import type { PageWindow } from '../../../core/page.ts';
import type { ItemCursor, ListedItem, WalletItemRecord, WalletItemStore } from '../../../ports/wallet-item-store.ts';
import { type Db, onPostgres } from '../connect.ts';
import { enrolledMembers } from '../membership/membership-statements.ts';
import type { Database, WalletItemsTable } from '../schema.ts';
import { tenantNames } from '../tenants/tenants-statements.ts';
import { newestFirst } from '../windowed.ts';
import { addItem, itemRows } from './wallet-statements.ts';

const toItem = itemRows.record;

/**
 * The materialisation rule of the port: a channel request, or the account is an enrolled member
 * of the item's tenant (the membership module's row source).
 */
const visible = (db: Db) => (eb: ExpressionBuilder<Database & { i: WalletItemsTable }, 'i'>) =>
  eb.or([
    eb('i.kind', '=', 'channel-request'),
    eb.exists(
      eb
        .selectFrom(enrolledMembers(db).as('m'))
        .select(sql.lit(1).as('one'))
        .whereRef('m.tenant', '=', 'i.tenant')
        .whereRef('m.account_id', '=', 'i.account_id'),
    ),
  ]);

export class SqlWalletItemStore implements WalletItemStore {
  constructor(private readonly db: Db) {}

  add(item: WalletItemRecord): Promise<void> {
    return addItem(this.db, item);
  }

  private listed() {
    return this.db
      .selectFrom('wallet_items as i')
      .innerJoin(tenantNames(this.db).as('t'), 't.slug', 'i.tenant')
      .selectAll('i')
      .select('t.name as tenant_name')
      .where(visible(this.db));
  }

  async get(accountId: string, itemId: string): Promise<ListedItem | undefined> {
    const row = await this.listed().where('i.id', '=', itemId).where('i.account_id', '=', accountId).executeTakeFirst();
    return row && { ...toItem(row), tenantName: row.tenant_name };
  }

  async list(accountId: string, page: PageWindow<ItemCursor>): Promise<ListedItem[]> {
    const rows = await this.listed()
      .where('i.account_id', '=', accountId)
      .$call((q) => newestFirst(q, ['i.created_at', 'i.id'], page))
      .execute();
    return rows.map((row) => ({ ...toItem(row), tenantName: row.tenant_name }));
  }

  async decide(itemId: string, to: 'accepted' | 'declined', now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('wallet_items')
      .set({ state: to, updated_at: now })
      .where('id', '=', itemId)
      .where('state', '=', 'pending')
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }

  async hold(accountId: string, itemId: string): Promise<boolean> {
    // FOR NO KEY UPDATE on PostgreSQL (see holdTenant); SQLite's writing transaction holds the
    // database's write lock already.
    let query = this.db.selectFrom('wallet_items').select('id').where('id', '=', itemId).where('account_id', '=', accountId);
    if (onPostgres(this.db)) query = query.forNoKeyUpdate();
    return (await query.executeTakeFirst()) !== undefined;
  }
}
