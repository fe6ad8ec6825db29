import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { createOffer, issueOne, registerType } from '../../../test/helpers/issuance.ts';
import { owner, railOn, stopRail, type TestRail } from '../../../test/helpers/rail.ts';
import { readOutbox } from '../../adapters/sql/kernel/sql-event-outbox.ts';

for (const factory of testDatabases()) {
  describe(`offer.expired (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let now = Date.now();
    const clock = { now: () => now };

    before(async () => {
      ({ db, rail } = await railOn(factory, { OPENRAIL_DEMO: 'off' }, clock, { runJobs: false }));
    });
    after(() => stopRail(rail, db));

    test('an offer that ends without a credential collected writes offer.expired once, with its erasure', async () => {
      const tenant = (
        await rail.app.inject({
          method: 'POST',
          url: '/api/tenants',
          headers: owner,
          payload: { name: 'Expiring Transit' },
        })
      ).json().slug as string;
      const type = await registerType(rail.app, tenant, 'Day Pass', ['holder']);
      const lapsed = await createOffer(rail.app, { tenant, typeId: type.typeId, subject: { holder: 'Ada' } });
      await issueOne(rail.app, tenant, type.typeId, { holder: 'Grace' });
      const expired = async () => (await readOutbox(rail.db)).filter((e) => e.type === 'offer.expired');

      await rail.jobs.tick();
      assert.deepEqual(await expired(), [], 'nothing ends before its time');
      now += 8 * 24 * 60 * 60 * 1000;
      await rail.jobs.tick();
      const events = await expired();
      assert.deepEqual(
        events.map((e) => [e.tenant, e.data]),
        [[tenant, { offerId: lapsed.offerId, typeId: type.typeId, redeemed: false }]],
        'the lapsed offer only: the collected one ended with its credential',
      );
      const row = await rail.db.selectFrom('offers').select('subject').where('id', '=', lapsed.offerId).executeTakeFirstOrThrow();
      assert.equal(row.subject, null, 'and its subject is erased');
      now += 60 * 60 * 1000;
      await rail.jobs.tick();
      assert.equal((await expired()).length, 1, 'once');
    });
  });
}
