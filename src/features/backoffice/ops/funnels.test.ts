import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import { type TestDatabase, testDatabases } from '../../../../test/helpers/databases.ts';
import { accessToken, createOffer, issueOne, PASS_SUBJECT, registerType } from '../../../../test/helpers/issuance.ts';
import { signedInOperator } from '../../../../test/helpers/operators.ts';
import { formBody, openVerification, presentAndRead } from '../../../../test/helpers/presentation.ts';
import { owner, startRail, type TestRail } from '../../../../test/helpers/rail.ts';
import type { Clock } from '../../../core/clock.ts';
import { TRANSACTION_TTL_MS } from '../../verification/hosted-verifier.ts';

for (const factory of testDatabases()) {
  describe(`wire funnels (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let ops: { authorization: string };
    // The sweep below moves the clock 11 minutes on and then counts today (UTC) only: start an
    // hour back when the suite runs in the last hour of a UTC day, so both reads fall on one day.
    const HOUR_MS = 60 * 60 * 1000;
    let now = Date.now();
    if (now % (24 * HOUR_MS) >= 23 * HOUR_MS) now -= HOUR_MS;
    const clock: Clock = { now: () => now };
    const funnels = async (query = '') => {
      const res = await rail.app.inject({ method: 'GET', url: `/api/admin/ops/wire-funnels${query}`, headers: ops });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    const open = (vct: string) => openVerification(rail.app, vct);

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, { OPENRAIL_DEMO: 'off' }, clock, { runJobs: false });
      for (const name of ['Alpha', 'Beta']) {
        assert.equal(
          (await rail.app.inject({ method: 'POST', url: '/api/tenants', headers: owner, payload: { name } })).statusCode,
          201,
        );
      }
      await registerType(rail.app, 'alpha', 'pass');
      ops = await signedInOperator(rail.app, 'ops-one', ['ops']);
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('offer → token → credential and request → response → accepted, counted per tenant and type, kept after the sweep', async () => {
      const issued = await issueOne(rail.app, 'alpha', 'pass', PASS_SUBJECT);
      await accessToken(
        rail.app,
        'alpha',
        (await createOffer(rail.app, { tenant: 'alpha', typeId: 'pass', subject: PASS_SUBJECT })).code,
      );
      await createOffer(rail.app, { tenant: 'alpha', typeId: 'pass', subject: PASS_SUBJECT });

      const vct = (decodeJwt(issued.credential.split('~')[0] as string) as { vct: string }).vct;
      assert.equal((await presentAndRead(rail.app, await open(vct), issued, ['holder_name'])).ok, true);
      const refused = await open(vct);
      const request = decodeJwt(
        (await rail.app.inject({ method: 'GET', url: `/oid4vp/request/${refused.transactionId}` })).body,
      ) as { state: string };
      const answered = await rail.app.inject({
        method: 'POST',
        url: '/oid4vp/response',
        ...formBody({ error: 'access_denied', state: request.state }),
      });
      // The wallet's refusal is recorded as the transaction's outcome (a response, not accepted).
      assert.equal(answered.json().error, 'wallet_error');
      await open(vct);

      const expected = {
        issuance: [
          { tenant: 'alpha', typeId: 'pass', offers: 3, tokens: 2, credentials: 1, tokensRate: 0.667, credentialsRate: 0.5 },
        ],
        verification: [
          { tenant: 'alpha', typeId: 'pass', requests: 3, responses: 2, accepted: 1, responsesRate: 0.667, acceptedRate: 0.5 },
        ],
      };
      const live = await funnels();
      assert.deepEqual({ issuance: live.issuance, verification: live.verification }, expected);
      assert.equal(live.complete, true);

      // The sweep deletes the expired transactions; their counts stay.
      now += TRANSACTION_TTL_MS + 60_000;
      await rail.jobs.tick();
      const left = await rail.db.selectFrom('presentation_transactions').select('id').execute();
      assert.deepEqual(left, [], 'every transaction was swept');
      const swept = await funnels('?days=1');
      assert.deepEqual({ issuance: swept.issuance, verification: swept.verification }, expected);

      const beta = await funnels('?tenant=beta');
      assert.deepEqual([beta.issuance, beta.verification], [[], []], "another tenant's funnels are its own");
      for (const days of ['0', '91', 'x']) {
        const refusedQuery = await rail.app.inject({
          method: 'GET',
          url: `/api/admin/ops/wire-funnels?days=${days}`,
          headers: ops,
        });
        assert.equal(refusedQuery.statusCode, 400, days);
      }
    });
  });
}
