import type { Selectable } from 'kysely';
import type { PageWindow } from '../../core/page.ts';
import type { ProviderState, WalletProviderRecord, WalletProviderStore } from '../../ports/wallet-provider-store.ts';
import type { Db } from './connect.ts';
import type { WalletProvidersTable } from './schema.ts';
import { inWindow, pastCursor } from './windowed.ts';

const toProvider = (row: Selectable<WalletProvidersTable>): WalletProviderRecord => ({
  id: row.id,
  name: row.name,
  homepage: row.homepage,
  contact: row.contact,
  state: row.state as ProviderState,
  reason: row.reason,
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

export class SqlWalletProviderStore implements WalletProviderStore {
  constructor(private readonly db: Db) {}

  async add(p: WalletProviderRecord): Promise<boolean> {
    const result = await this.db
      .insertInto('wallet_providers')
      .values({
        id: p.id,
        name: p.name,
        homepage: p.homepage,
        contact: p.contact,
        state: p.state,
        reason: p.reason,
        created_at: p.createdAt,
        updated_at: p.updatedAt,
      })
      .onConflict((oc) => oc.column('homepage').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async get(id: string): Promise<WalletProviderRecord | undefined> {
    const row = await this.db.selectFrom('wallet_providers').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toProvider(row);
  }

  async list(state: ProviderState | undefined, page: PageWindow<readonly [number, string]>): Promise<WalletProviderRecord[]> {
    let query = this.db
      .selectFrom('wallet_providers')
      .selectAll()
      .where(inWindow('created_at', page))
      .where(pastCursor(['created_at', 'id'], page.after, 'desc'));
    if (state !== undefined) query = query.where('state', '=', state);
    return (await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).execute()).map(toProvider);
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
