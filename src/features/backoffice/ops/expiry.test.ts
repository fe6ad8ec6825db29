import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import { type TestDatabase, testDatabases } from '../../../../test/helpers/databases.ts';
import { createOffer, issueOne, PASS_SUBJECT, registerType } from '../../../../test/helpers/issuance.ts';
import { signedInOperator } from '../../../../test/helpers/operators.ts';
import { verifiedOn } from '../../../../test/helpers/presentation.ts';
import { owner, startRail, type TestRail } from '../../../../test/helpers/rail.ts';
import type { Clock } from '../../../core/clock.ts';
import { CLOCK_SKEW_S } from '../../../core/verifier/verify-presentation.ts';
import { VALIDITY_TTL_MS } from '../../credential-types/type-service.ts';

const DAY_S = 86_400;
const payloadOf = (credential: string) =>
  decodeJwt(credential.split('~')[0] as string) as { iat: number; exp?: number; vct: string };

for (const factory of testDatabases()) {
  describe(`expiry: a type's validity, and what expires soon (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let ops: { authorization: string };
    let now = Date.now();
    const clock: Clock = { now: () => now };
    const post = (url: string, payload: unknown, headers: Record<string, string> = ops) =>
      rail.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });
    const expiry = async (query = '') => {
      const res = await rail.app.inject({ method: 'GET', url: `/api/admin/ops/expiry${query}`, headers: ops });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    const verifies = (issued: Awaited<ReturnType<typeof issueOne>>) => verifiedOn(rail.app, issued);

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, { OPENRAIL_DEMO: 'off' }, clock, { runJobs: false });
      assert.equal((await post('/api/tenants', { name: 'Alpha' }, owner)).statusCode, 201);
      await registerType(rail.app, 'alpha', 'pass');
      ops = await signedInOperator(rail.app, 'ops-one', ['ops']);
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('a validity set through ops gives new credentials an exp; past it they no longer verify', async () => {
      const before = await issueOne(rail.app, 'alpha', 'pass', PASS_SUBJECT);
      assert.equal(payloadOf(before.credential).exp, undefined, 'without a validity, no exp');

      for (const [body, status, code] of [
        [{ tenant: 'alpha', typeId: 'pass', validityDays: 0 }, 400, 'invalid_request'],
        [{ tenant: 'alpha', typeId: 'pass', validityDays: 3651 }, 400, 'invalid_request'],
        [{ tenant: 'alpha', typeId: 'nope', validityDays: 2 }, 404, 'unknown_type'],
        [{ tenant: 'nobody', typeId: 'pass', validityDays: 2 }, 404, 'unknown_tenant'],
      ] as const) {
        const refused = await post('/api/admin/ops/expiry-dates', body);
        assert.equal(refused.statusCode, status, refused.body);
        assert.equal(refused.json().error, code);
      }
      const asAuditor = await post(
        '/api/admin/ops/expiry-dates',
        { tenant: 'alpha', typeId: 'pass', validityDays: 2 },
        await signedInOperator(rail.app, 'auditor-one', ['auditor']),
      );
      assert.equal(asAuditor.statusCode, 403);
      assert.deepEqual((await expiry()).types, [], 'a refused change writes nothing');

      const set = await post('/api/admin/ops/expiry-dates', { tenant: 'alpha', typeId: 'pass', validityDays: 2 });
      assert.equal(set.statusCode, 200, set.body);
      assert.deepEqual(
        { ...(set.json() as Record<string, unknown>), auditSeq: 0 },
        {
          ok: true,
          auditSeq: 0,
          tenant: 'alpha',
          typeId: 'pass',
          validityDays: 2,
          previousDays: null,
        },
      );
      const entry = (
        await rail.app.inject({ method: 'GET', url: `/api/admin/audit/${set.json().auditSeq}`, headers: ops })
      ).json();
      assert.equal(entry.action, 'type.validity.set');
      assert.deepEqual(entry.detail, { validityDays: 2, previousDays: null });

      const issued = await issueOne(rail.app, 'alpha', 'pass', PASS_SUBJECT);
      const { exp } = payloadOf(issued.credential);
      const latest = Math.floor(now / 1000) + 2 * DAY_S;
      assert.ok(
        exp !== undefined && exp <= latest && exp > latest - 600,
        `exp ${exp} is two days on, set back by at most the jitter`,
      );
      assert.equal((await verifies(issued)).ok, true);
      assert.equal((await verifies(before)).ok, true);

      const soon = await expiry('?withinDays=3');
      assert.deepEqual(
        soon.credentials.map((g: { tenant: string; typeId: string; count: number }) => [g.tenant, g.typeId, g.count]),
        [['alpha', 'pass', 1]],
      );
      assert.deepEqual(
        soon.types.map((t: { typeId: string; validityDays: number; setBy: string }) => [t.typeId, t.validityDays, t.setBy]),
        [['pass', 2, 'operator:ops-one']],
      );
      assert.deepEqual((await expiry('?withinDays=1')).credentials, [], 'nothing expires within a day');

      // Past the exp, and past the clock skew every verifier grants in a credential's favour.
      now += (2 * DAY_S + CLOCK_SKEW_S + 1) * 1000;
      // The operator's session ended meanwhile.
      ops = await signedInOperator(rail.app, 'ops-two', ['ops']);
      const expired = await verifies(issued);
      assert.equal(expired.ok, false);
      assert.equal((await verifies(before)).ok, true, 'a credential issued without expiry still verifies');
      assert.deepEqual((await expiry('?withinDays=3')).credentials, [], 'an expired credential is no longer expiring');

      const cleared = await post('/api/admin/ops/expiry-dates', { tenant: 'alpha', typeId: 'pass', validityDays: null });
      assert.equal(cleared.json().previousDays, 2);
      assert.deepEqual((await expiry()).types, []);
      now += VALIDITY_TTL_MS;
      assert.equal(payloadOf((await issueOne(rail.app, 'alpha', 'pass', PASS_SUBJECT)).credential).exp, undefined);
    });

    test('offers not collected and signing keys due for rotation are listed with the window', async () => {
      const offer = await createOffer(rail.app, { tenant: 'alpha', typeId: 'pass', subject: PASS_SUBJECT });
      assert.ok(offer.code);
      const soon = await expiry('?tenant=alpha&withinDays=365');
      assert.ok(
        soon.offers.some((g: { tenant: string; typeId: string; count: number }) => g.tenant === 'alpha' && g.count >= 1),
        'the uncollected offer expires within the window',
      );
      const [key] = soon.keys;
      assert.equal(key.tenant, 'alpha');
      assert.equal(key.overdue, false);
      assert.equal(Date.parse(key.rotateBy) - Date.parse(key.createdAt), 365 * DAY_S * 1000);
      assert.deepEqual((await expiry('?tenant=alpha&withinDays=30')).keys, [], 'a new key is not due within a month');
      const refused = await rail.app.inject({ method: 'GET', url: '/api/admin/ops/expiry?withinDays=366', headers: ops });
      assert.equal(refused.statusCode, 400);
    });
  });
}
