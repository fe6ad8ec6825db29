import type { DemoFixtureStore } from '../../../ports/demo-fixtures.ts';
import type { Db } from '../connect.ts';
import { clearDemoRows } from '../demo-fixtures.ts';

/** What clearing a demonstration tenant deletes of membership: its members' votes, proposals and coin entries, and its members. */
export const MEMBERSHIP_DEMO_DATA = ['votes', 'proposals', 'coin_entries', 'members'] as const;

/** The membership module's part of clearing demonstration data (ports/demo-fixtures.ts). */
export class SqlMembershipDemoFixtures implements DemoFixtureStore {
  constructor(private readonly db: Db) {}

  clear(tenant: string): Promise<Record<string, number>> {
    return clearDemoRows(this.db, tenant, MEMBERSHIP_DEMO_DATA);
  }
}
