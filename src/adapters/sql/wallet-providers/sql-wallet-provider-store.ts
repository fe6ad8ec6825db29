import type { PageWindow } from '../../../core/page.ts';
import type { ProviderState, WalletProviderRecord, WalletProviderStore } from '../../../ports/wallet-provider-store.ts';
import type { Db } from '../connect.ts';
import { insertOnce } from '../insert-once.ts';
import { rowCodec } from '../row-codec.ts';
import type { WalletProvidersTable } from '../schema.ts';
import { newestFirst } from '../windowed.ts';

const providers = rowCodec<WalletProviderRecord, WalletProvidersTable>()(
  'id name homepage contact state reason createdAt updatedAt',
  {},
);
const toProvider = providers.record;

export class SqlWalletProviderStore implements WalletProviderStore {
  constructor(private readonly db: Db) {}

  async add(p: WalletProviderRecord): Promise<boolean> {
    return insertOnce(this.db, 'wallet_providers', providers.row(p), ['homepage']);
  }

  async get(id: string): Promise<WalletProviderRecord | undefined> {
    const row = await this.db.selectFrom('wallet_providers').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toProvider(row);
  }

  async list(state: ProviderState | undefined, page: PageWindow<readonly [number, string]>): Promise<WalletProviderRecord[]> {
    let query = this.db.selectFrom('wallet_providers').selectAll();
    if (state !== undefined) query = query.where('state', '=', state);
    return (await newestFirst(query, ['created_at', 'id'], page).execute()).map(toProvider);
  }

  async move(id: string, from: readonly ProviderState[], to: ProviderState, reason: string | null, now: number) {
    const result = await this.db
      .updateTable('wallet_providers')
      .set({ state: to, reason, updated_at: now })
      .where('id', '=', id)
      .where('state', 'in', [...from])
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }
}
