/**
 * One rule at the edge (docs/security.md, "At the edge"; issue 24, point 7): a NUL or an unpaired
 * surrogate in any string of any request, in the path, the query, a JSON or form body, or a JOSE
 * object a plane decodes, is `400 invalid_request` before anything reads it. On PostgreSQL each of
 * these requests used to answer 500 (text and jsonb refuse a NUL); nothing is written either way.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { openTestDb, type TestDatabase, testDatabases } from '../helpers/databases.ts';
import { holderJws, newHolderKey } from '../helpers/holder.ts';
import { bearer, owner, startRail, type TestRail } from '../helpers/rail.ts';
import { rowCounts } from '../helpers/refusals.ts';

const TOUCHED = ['audit_log', 'holder_jti', 'presentation_transactions', 'operators', 'operator_sessions', 'outbox'];
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

for (const factory of testDatabases()) {
  describe(`a NUL or an unpaired surrogate is refused at the edge (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let resultToken: string;
    let transactionId: string;
    const counts = () => rowCounts(openedDb, TOUCHED);
    let openedDb: ReturnType<typeof openTestDb>;

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, {}, undefined, { runJobs: false });
      openedDb = openTestDb(db);
      const opened = await rail.app.inject({
        method: 'POST',
        url: '/verify/request',
        payload: {
          vct: 'https://rail.example.test/t/demo-transit/types/transit-pass',
          claims: [],
          nonce: 'n-0123456789abcdefgh',
          aud: 'https://rp.example',
        },
      });
      assert.equal(opened.statusCode, 201, opened.body);
      ({ resultToken, transactionId } = opened.json());
    });
    after(async () => {
      await openedDb.destroy();
      await rail.stop();
      await db.drop();
    });

    const cases: { name: string; request: () => Promise<InjectOptions>; error?: string }[] = [
      {
        name: 'POST /api/login with a NUL in the username',
        request: async () => ({ method: 'POST', url: '/api/login', payload: { username: 'ana\u0000', password: 'x' } }),
      },
      {
        name: 'POST /api/login with an unpaired surrogate in the password',
        request: async () => ({ method: 'POST', url: '/api/login', payload: { username: 'ana', password: 'pass\ud800word' } }),
      },
      {
        name: 'GET /verify/result/%00',
        request: async () => ({ method: 'GET', url: '/verify/result/%00', headers: bearer(resultToken) }),
      },
      {
        name: 'GET /verify/result/<id> with an encoded surrogate in the query',
        request: async () => ({
          method: 'GET',
          url: `/verify/result/${transactionId}?x=%ED%A0%80`,
          headers: bearer(resultToken),
        }),
      },
      {
        name: 'POST /oid4vp/response with state=%00 (the OAuth surface)',
        request: async () => ({ method: 'POST', url: '/oid4vp/response', headers: FORM, payload: 'vp_token=x&state=%00' }),
      },
      {
        name: 'GET /api/admin/orgs?q=%00',
        request: async () => ({ method: 'GET', url: '/api/admin/orgs?q=%00', headers: owner }),
      },
      {
        name: 'POST /api/revoke with a NUL credential id',
        request: async () => ({
          method: 'POST',
          url: '/api/revoke',
          headers: owner,
          payload: { tenant: 'demo-transit', credentialId: 'cred\u0000' },
        }),
      },
      {
        name: 'POST /api/tenants/{tenant}/revoke with a NUL offer id',
        request: async () => ({
          method: 'POST',
          url: '/api/tenants/demo-transit/revoke',
          headers: owner,
          payload: { offerId: '\u0000' },
        }),
      },
      {
        name: 'a property name with a NUL, deep in an offer subject',
        request: async () => ({
          method: 'POST',
          url: '/api/offers',
          headers: owner,
          payload: { tenant: 'demo-transit', typeId: 'transit-pass', subject: { 'given\u0000name': 'A' } },
        }),
      },
      {
        name: 'a holder JWS whose jti holds a NUL (the holder plane decodes it before any route reads it)',
        request: async () => {
          const key = await newHolderKey();
          const jws = await holderJws({ aud: 'https://rail.example.test', jti: 'jti-0123\u0000456' }, { key });
          return { method: 'GET', url: '/member/me', headers: { authorization: `Holder ${jws}` } };
        },
        error: 'unauthorized',
      },
      {
        name: 'a body nesting deeper than 32 levels',
        request: async () => ({
          method: 'POST',
          url: '/api/login',
          headers: { 'content-type': 'application/json' },
          payload: `{"username":${'['.repeat(40)}${']'.repeat(40)},"password":"x"}`,
        }),
      },
    ];

    for (const c of cases) {
      test(c.name, async () => {
        const beforeCounts = await counts();
        const answer = await rail.app.inject(await c.request());
        const expected = c.error ?? 'invalid_request';
        assert.equal(answer.statusCode, expected === 'unauthorized' ? 401 : 400, answer.body);
        assert.equal(answer.json().error, expected, answer.body);
        assert.deepEqual(await counts(), beforeCounts, 'nothing was written');
      });
    }

    test('the refusal names where, and a well-formed request on the same routes still works', async () => {
      const refused = await rail.app.inject({
        method: 'POST',
        url: '/api/offers',
        headers: owner,
        payload: { tenant: 'demo-transit', typeId: 'transit-pass', subject: { given_name: 'A\u0000' } },
      });
      assert.match(refused.json().message, /^body\/subject\/given_name holds a NUL character/);
      const polled = await rail.app.inject({
        method: 'GET',
        url: `/verify/result/${transactionId}`,
        headers: bearer(resultToken),
      });
      assert.equal(polled.statusCode, 200);
      assert.equal(polled.json().outcome, null);
      const searched = await rail.app.inject({ method: 'GET', url: '/api/admin/orgs?q=demo', headers: owner });
      assert.equal(searched.statusCode, 200, searched.body);
    });
  });
}
