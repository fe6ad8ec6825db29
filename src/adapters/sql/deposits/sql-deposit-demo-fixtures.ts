import type { DemoFixtureStore } from '../../../ports/demo-fixtures.ts';
import type { Db } from '../connect.ts';
import { clearDemoRows } from '../demo-fixtures.ts';

/** What clearing a demonstration tenant deletes of the deposit rail: its deposits and their chain head. */
export const DEPOSIT_DEMO_DATA = ['deposits', 'deposit_heads'] as const;

/** The deposits module's part of clearing demonstration data (ports/demo-fixtures.ts). */
export class SqlDepositDemoFixtures implements DemoFixtureStore {
  constructor(private readonly db: Db) {}

  clear(tenant: string): Promise<Record<string, number>> {
    return clearDemoRows(this.db, tenant, DEPOSIT_DEMO_DATA);
  }
}
