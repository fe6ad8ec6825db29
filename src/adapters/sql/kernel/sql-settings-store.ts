import type { SettingsStore } from '../../../ports/settings-store.ts';
import type { Db } from '../connect.ts';
import { insertOnce } from '../insert-once.ts';

export class SqlSettingsStore implements SettingsStore {
  constructor(private readonly db: Db) {}

  async get(name: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirst();
    return row?.value;
  }

  async putIfAbsent(name: string, value: string): Promise<boolean> {
    return insertOnce(this.db, 'settings', { name, value });
  }
}
