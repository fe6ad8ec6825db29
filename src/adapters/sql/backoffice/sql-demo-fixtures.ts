import { DEMO_PREFIX, isDemoSlug } from '../../../core/slug.ts';
import type { DemoFixtureStore } from '../../../ports/demo-fixtures.ts';
import type { Db } from '../connect.ts';
import type { Database } from '../schema.ts';
import { startsWith } from './sql-backoffice-rows.ts';

/**
 * What clearing a demonstration tenant deletes, in an order no reference between them objects
 * to: its members' votes, proposals and coin entries, its members, its holders' sharing settings
 * and log, its channels, the wallet items it gave, and its deposits with their chain head.
 */
export const DEMO_DATA = [
  'votes',
  'proposals',
  'coin_entries',
  'members',
  'sharing_log',
  'share_settings',
  'channels',
  'wallet_items',
  'deposits',
  'deposit_heads',
] as const satisfies ReadonlyArray<keyof Database>;

export class SqlDemoFixtures implements DemoFixtureStore {
  constructor(private readonly db: Db) {}

  async clear(tenant: string): Promise<Record<string, number>> {
    if (!isDemoSlug(tenant)) throw new Error(`${tenant} is not a demonstration tenant`);
    const cleared: Record<string, number> = {};
    for (const table of DEMO_DATA) {
      const result = await this.db.deleteFrom(table).where('tenant', '=', tenant).executeTakeFirst();
      cleared[table] = Number(result.numDeletedRows);
    }
    return cleared;
  }

  async demoTenants(): Promise<string[]> {
    const rows = await this.db
      .selectFrom('tenants')
      .select('slug')
      .where(startsWith('slug', DEMO_PREFIX))
      .orderBy('slug')
      .execute();
    return rows.map((r) => r.slug).filter(isDemoSlug);
  }
}
