import type { PageWindow } from '../../../core/page.ts';
import type { ChannelRecord, ChannelState, ChannelStore, ShareLogEntry, ShareSetting } from '../../../ports/channel-store.ts';
import type { Db } from '../connect.ts';
import { json, rowCodec } from '../row-codec.ts';
import type { ChannelsTable, SharingLogTable } from '../schema.ts';
import { atomically } from '../sql-unit-of-work.ts';
import { inTenant, inWindow, pastCursor } from '../windowed.ts';

const channels = rowCodec<ChannelRecord, ChannelsTable>()('tenant accountId state requestedBy createdAt updatedAt', {
  elements: json,
});
const toChannel = channels.record;

const shareLog = rowCodec<ShareLogEntry, SharingLogTable>()('id accountId itemId tenant at', { elements: json });
const toEntry = shareLog.record;

export class SqlChannelStore implements ChannelStore {
  constructor(private readonly db: Db) {}

  async get(tenant: string, accountId: string): Promise<ChannelRecord | undefined> {
    const row = await this.db
      .selectFrom('channels')
      .selectAll()
      .where('tenant', '=', tenant)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row && toChannel(row);
  }

  async request(c: ChannelRecord): Promise<boolean> {
    const values = channels.row(c);
    const inserted = await this.db
      .insertInto('channels')
      .values(values)
      .onConflict((oc) => oc.columns(['tenant', 'account_id']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return true;
    const renewed = await this.db
      .updateTable('channels')
      .set({ state: c.state, elements: values.elements, requested_by: c.requestedBy, updated_at: c.updatedAt })
      .where('tenant', '=', c.tenant)
      .where('account_id', '=', c.accountId)
      .where('state', 'in', ['declined', 'revoked'])
      .executeTakeFirst();
    return renewed.numUpdatedRows === 1n;
  }

  async move(tenant: string, accountId: string, from: readonly ChannelState[], to: ChannelState, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('channels')
      .set({ state: to, updated_at: now })
      .where('tenant', '=', tenant)
      .where('account_id', '=', accountId)
      .where('state', 'in', [...from])
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }

  async list(
    filter: { tenant?: string | undefined; state?: ChannelState | undefined },
    page: PageWindow<readonly [string, string]>,
  ): Promise<ChannelRecord[]> {
    let query = this.db
      .selectFrom('channels')
      .selectAll()
      .where(inTenant(filter.tenant ?? null))
      .where(inWindow('created_at', page))
      .where(pastCursor(['tenant', 'account_id'], page.after, 'asc'));
    if (filter.state !== undefined) query = query.where('state', '=', filter.state);
    return (await query.orderBy('tenant').orderBy('account_id').limit(page.limit).execute()).map(toChannel);
  }

  async sharesOf(itemId: string): Promise<ShareSetting[]> {
    const rows = await this.db
      .selectFrom('share_settings')
      .select(['item_id', 'tenant', 'elements'])
      .where('item_id', '=', itemId)
      .orderBy('tenant')
      .execute();
    return rows.map((r) => ({ itemId: r.item_id, tenant: r.tenant, elements: JSON.parse(r.elements) }));
  }

  async setShares(accountId: string, itemId: string, shares: ShareSetting[], log: ShareLogEntry[]): Promise<void> {
    await atomically(this.db, async (trx) => {
      // Not delete-all-then-insert: two replacements at once would both find nothing to delete
      // and meet on the (item, tenant) key. The tenants that leave are deleted; the others are
      // written with one upsert. (The sharing use case holds the item too, so that its log
      // records each change once; this keeps the store whole without that.)
      const kept = shares.filter((s) => s.elements.length > 0);
      let leaving = trx.deleteFrom('share_settings').where('item_id', '=', itemId).where('account_id', '=', accountId);
      const staying = kept.map((s) => s.tenant);
      if (staying.length > 0) leaving = leaving.where('tenant', 'not in', staying);
      await leaving.execute();
      if (kept.length > 0) {
        await trx
          .insertInto('share_settings')
          .values(
            kept.map((s) => ({ item_id: itemId, tenant: s.tenant, account_id: accountId, elements: JSON.stringify(s.elements) })),
          )
          .onConflict((oc) =>
            oc
              .columns(['item_id', 'tenant'])
              .doUpdateSet((eb) => ({ elements: eb.ref('excluded.elements') }))
              // The key is the item's: a row of another account is never taken over.
              .where('share_settings.account_id', '=', accountId),
          )
          .execute();
      }
      if (log.length > 0) {
        await trx
          .insertInto('sharing_log')
          .values(log.map((e) => shareLog.row({ ...e, accountId, itemId })))
          .execute();
      }
    });
  }

  async sharedWith(tenant: string, accountId: string, limit: number): Promise<ShareSetting[]> {
    const rows = await this.db
      .selectFrom('share_settings')
      .select(['item_id', 'tenant', 'elements'])
      .where('tenant', '=', tenant)
      .where('account_id', '=', accountId)
      .orderBy('item_id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ itemId: r.item_id, tenant: r.tenant, elements: JSON.parse(r.elements) }));
  }

  async logOf(accountId: string, itemId: string, limit: number): Promise<ShareLogEntry[]> {
    const rows = await this.db
      .selectFrom('sharing_log')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('item_id', '=', itemId)
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toEntry);
  }
}
