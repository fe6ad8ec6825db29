import type { ChannelState } from '../../../ports/channel-store.ts';
import type { ItemKind, StoredItemState, WalletItemRecord } from '../../../ports/wallet-item-store.ts';
import type { Db } from '../connect.ts';
import { bool, rowCodec } from '../row-codec.ts';
import type { WalletItemsTable } from '../schema.ts';

/*
 * The wallet module's parts of other owners' units of work (docs/architecture.md, "Tables, owners
 * and views"; decision 0025): the item an offer or a deposit puts in its holder's wallet, written in
 * the offer's or the deposit's own transaction, and what a deposit reads there before it is made
 * (the account's channel with the tenant, the state of the deposit's item). The wallet decides items
 * through the offers module's service and the deposits module's views, so neither of those can use
 * the wallet: their adapters compose these, and the wallet need not be built where they are served.
 */

/** A wallet item as a row: the wallet's item store reads and writes the same. */
export const itemRows = rowCodec<WalletItemRecord, WalletItemsTable>()(
  'id tenant accountId kind ref title state createdAt updatedAt expiresAt',
  { demo: bool },
);

/** Puts an item in its account's wallet; a second item for the same record is refused (a unique key). */
export async function addItem(db: Db, item: WalletItemRecord): Promise<void> {
  await db.insertInto('wallet_items').values(itemRows.row(item)).execute();
}

/** The stored state of the tenant's item of this kind and record, visible to its account or not. */
export async function itemState(db: Db, tenant: string, kind: ItemKind, ref: string): Promise<StoredItemState | undefined> {
  const row = await db
    .selectFrom('wallet_items')
    .select('state')
    .where('tenant', '=', tenant)
    .where('kind', '=', kind)
    .where('ref', '=', ref)
    .executeTakeFirst();
  return row?.state as StoredItemState | undefined;
}

/** The state of the account's channel with the tenant, if they have one. */
export async function channelState(db: Db, tenant: string, accountId: string): Promise<ChannelState | undefined> {
  const row = await db
    .selectFrom('channels')
    .select('state')
    .where('tenant', '=', tenant)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row?.state as ChannelState | undefined;
}
