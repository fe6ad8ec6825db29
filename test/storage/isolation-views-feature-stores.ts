/**
 * The isolation cases of the views the feature stores read another owner's tables through
 * (docs/architecture.md, "Tables, owners and views"), registered into the isolation suite
 * (isolation.test.ts) with its `isolated`: the outbox's coverage the webhooks module shows.
 */
import assert from 'node:assert/strict';
import type { Db } from '../../src/adapters/sql/connect.ts';
import { SqlKernelViews } from '../../src/adapters/sql/kernel/sql-kernel-views.ts';

/** The time the seeded rows are made at, apart from the rest of the suite's. */
const AT = 1_780_000_000_000;

export const FEATURE_STORE_CASES = {
  coverage:
    'KernelViews.eventCoverage: a tenant sees its own events and where they went only; within null is the platform’s view, by design',
} as const;

export function featureStoresIsolation(isolated: (name: string, fn: () => Promise<void>) => void, db: () => Db): void {
  isolated(FEATURE_STORE_CASES.coverage, async () => {
    const views = new SqlKernelViews(db());
    // Alpha's event went to one endpoint, beta's to none, and beta has one waiting: a count that reached across would show.
    const events = [
      { id: 'evt-cov-alpha', tenant: 'alpha', routed_to: 1 },
      { id: 'evt-cov-beta', tenant: 'beta', routed_to: 0 },
      { id: 'evt-cov-beta-2', tenant: 'beta', routed_to: null },
    ];
    for (const e of events) {
      await db()
        .insertInto('outbox')
        .values({ ...e, type: 'coverage.probe', created_at: AT, data: '{}' })
        .execute();
    }
    const probe = (rows: Awaited<ReturnType<SqlKernelViews['eventCoverage']>>) => rows.filter((r) => r.type === 'coverage.probe');
    assert.deepEqual(probe(await views.eventCoverage('beta', AT)), [
      { tenant: 'beta', type: 'coverage.probe', events: 2, unrouted: 1, waiting: 1 },
    ]);
    assert.deepEqual(probe(await views.eventCoverage('alpha', AT)), [
      { tenant: 'alpha', type: 'coverage.probe', events: 1, unrouted: 0, waiting: 0 },
    ]);
    assert.deepEqual(
      probe(await views.eventCoverage(null, AT)).map((r) => r.tenant),
      ['alpha', 'beta'],
    );
    assert.deepEqual(probe(await views.eventCoverage('beta', AT + 1)), [], 'since is inclusive of its own time only');
    await db().deleteFrom('outbox').where('type', '=', 'coverage.probe').execute();
  });
}
