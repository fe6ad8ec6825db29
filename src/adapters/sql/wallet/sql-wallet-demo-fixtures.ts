import type { DemoFixtureStore } from '../../../ports/demo-fixtures.ts';
import type { Db } from '../connect.ts';
import { clearDemoRows } from '../demo-fixtures.ts';

/** What clearing a demonstration tenant deletes of the wallet: its holders' sharing log and settings, its channels and the items it gave. */
export const WALLET_DEMO_DATA = ['sharing_log', 'share_settings', 'channels', 'wallet_items'] as const;

/** The wallet module's part of clearing demonstration data (ports/demo-fixtures.ts). */
export class SqlWalletDemoFixtures implements DemoFixtureStore {
  constructor(private readonly db: Db) {}

  clear(tenant: string): Promise<Record<string, number>> {
    return clearDemoRows(this.db, tenant, WALLET_DEMO_DATA);
  }
}
