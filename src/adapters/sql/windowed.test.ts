/**
 * The list conditions every SQL list shares (windowed.ts), on both engines, through a list that
 * uses all three: the partner applications (newest first by createdAt, then id).
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { migratedDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import type { ApplicationRecord } from '../../ports/partner-store.ts';
import { SqlPartnerStore } from './partners/sql-partner-store.ts';

const T0 = 1_800_000_000_000;

const application = (id: string, createdAt: number): ApplicationRecord => ({
  id,
  kind: 'issuer',
  organisation: `organisation ${id}`,
  contactName: 'contact',
  contactEmail: `${id}@example.test`,
  country: null,
  website: null,
  useCase: 'paging',
  stage: 'applied',
  stageAt: createdAt,
  statusTokenHash: `status-${id}`,
  tenant: null,
  grant: null,
  createdBy: 'public',
  createdAt,
  updatedAt: createdAt,
});

for (const factory of testDatabases()) {
  describe(`keyset paging and time windows (${factory.name})`, () => {
    const on = migratedDatabase(factory);
    let store: SqlPartnerStore;
    before(async () => {
      store = new SqlPartnerStore(on.db);
      // Two share a time: the id breaks the tie.
      for (const [id, at] of [
        ['app-a', T0],
        ['app-b', T0 + 10],
        ['app-c', T0 + 10],
        ['app-d', T0 + 20],
        ['app-e', T0 + 30],
      ] as const) {
        await store.createApplication(application(id, at));
      }
    });

    test('pages of two, each after the last row answered, list every row once, newest first', async () => {
      const seen: string[] = [];
      let cursor: readonly [number, string] | undefined;
      for (let page = 0; page < 5; page++) {
        const rows = await store.applications({ limit: 2, ...(cursor ? { after: cursor } : {}) });
        seen.push(...rows.map((r) => r.id));
        const last = rows.at(-1);
        if (rows.length < 2 || !last) break;
        cursor = [last.createdAt, last.id];
      }
      assert.deepEqual(seen, ['app-e', 'app-d', 'app-c', 'app-b', 'app-a']);
    });

    test('a cursor inside a tie continues with the rest of the tie', async () => {
      const rows = await store.applications({ limit: 10, after: [T0 + 10, 'app-c'] });
      assert.deepEqual(
        rows.map((r) => r.id),
        ['app-b', 'app-a'],
      );
    });

    test('since is inclusive, until exclusive', async () => {
      const rows = await store.applications({ limit: 10, since: T0 + 10, until: T0 + 30 });
      assert.deepEqual(
        rows.map((r) => r.id),
        ['app-d', 'app-c', 'app-b'],
      );
    });
  });
}
