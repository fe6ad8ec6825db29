import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import type { HolderKey } from '../../../test/helpers/holder.ts';
import { issueOne, registerType } from '../../../test/helpers/issuance.ts';
import { CLIENT_ID, present } from '../../../test/helpers/presentation.ts';
import { bearer, OWNER_TOKEN, owner, PUBLIC_URL, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import { rowCount } from '../../../test/helpers/refusals.ts';
import type { Clock } from '../../core/clock.ts';

/** No array claims: the verifier checks top-level disclosures only. */
const CLAIMS = ['holder_name', 'birth_date:date', 'student:bool', 'class:enum(first|second)', 'zones:array(text)'];
const SUBJECT = { holder_name: 'Ada Lovelace', birth_date: '1815-12-10', student: false, class: 'first', zones: ['A'] };

const freshNonce = () => randomBytes(18).toString('base64url');
const form = (fields: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams(fields).toString(),
});

for (const factory of testDatabases()) {
  describe(`hosted verification (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let now = Date.now();
    const clock: Clock = { now: () => now };
    let vct: string;
    let issued: { credential: string; key: HolderKey };

    before(async () => {
      db = await factory.create();
      // No jobs: the sweep would delete what a test moves past its expiry while it looks.
      rail = await startRail(db, {}, clock, { runJobs: false });
      ({ vct } = await registerType(rail.app, 'demo-transit', 'Verified Pass', CLAIMS));
      issued = await issueOne(rail.app, 'demo-transit', 'verified-pass', SUBJECT);
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    const open = async (body: Record<string, unknown> = {}) => {
      const res = await rail.app.inject({
        method: 'POST',
        url: '/verify/request',
        payload: { vct, claims: ['holder_name', 'student'], nonce: freshNonce(), aud: 'https://shop.example', ...body },
      });
      return res;
    };
    const openOk = async (body: Record<string, unknown> = {}) => {
      const res = await open(body);
      assert.equal(res.statusCode, 201, res.body);
      const created = res.json() as { requestUri: string; transactionId: string; resultToken: string; expiresAt: string };
      const requestObject = await rail.app.inject({ method: 'GET', url: `/oid4vp/request/${created.transactionId}` });
      assert.equal(requestObject.statusCode, 200, requestObject.body);
      return { ...created, request: decodeJwt(requestObject.body) as Record<string, unknown> & { nonce: string; state: string } };
    };
    const poll = async (id: string, token?: string) => {
      const res = await rail.app.inject({ method: 'GET', url: `/verify/result/${id}`, headers: token ? bearer(token) : {} });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().outcome;
    };
    /** A poll's whole answer: its status and body (GET /verify/result answers 200 whatever it reveals). */
    const pollAnswer = async (id: string, headers: Record<string, string> = {}) => {
      const res = await rail.app.inject({ method: 'GET', url: `/verify/result/${id}`, headers });
      assert.equal(res.headers['cache-control'], 'no-store', `${id}: never cached`);
      return [res.statusCode, res.json()];
    };
    /** Everything a poll could change: the transactions, the outbox and the audit log. */
    const snapshot = async () => ({
      transactions: await rail.db.selectFrom('presentation_transactions').selectAll().orderBy('id').execute(),
      outbox: await rail.db
        .selectFrom('outbox')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow(),
      audit: await rail.db
        .selectFrom('audit_log')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow(),
    });

    test('the catalog lists every type with its requestable claims', async () => {
      const res = await rail.app.inject({ method: 'GET', url: '/verify/catalog' });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['access-control-allow-origin'], '*');
      const entry = res.json().types.find((t: { vct: string }) => t.vct === vct);
      assert.deepEqual(entry, {
        id: 'verified-pass',
        name: 'Verified Pass',
        vct,
        tenant: 'demo-transit',
        tenantName: 'Metro Transit (Demo)',
        claims: ['holder_name', 'birth_date', 'student', 'class'],
        claimLabels: { holder_name: 'Holder name', birth_date: 'Birth date', student: 'Student', class: 'Class' },
      });
    });

    test('a request yields an openid4vp URI with request_uri and never the result token', async () => {
      const created = await openOk();
      const uri = new URL(created.requestUri);
      assert.equal(uri.protocol, 'openid4vp:');
      assert.equal(uri.searchParams.get('client_id'), CLIENT_ID);
      assert.equal(uri.searchParams.get('request_uri'), `${PUBLIC_URL}/oid4vp/request/${created.transactionId}`);
      assert.ok(!created.requestUri.includes(created.resultToken));
      assert.equal(await poll(created.transactionId, created.resultToken), null, 'pending');
    });

    test('the request object is signed by the platform verifier key, re-fetchable, with a DCQL query', async () => {
      const created = await openOk({ nonce: 'caller-nonce-0123456789' });
      const first = await rail.app.inject({ method: 'GET', url: `/oid4vp/request/${created.transactionId}` });
      const second = await rail.app.inject({ method: 'GET', url: `/oid4vp/request/${created.transactionId}` });
      for (const res of [first, second]) {
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['content-type'], 'application/oauth-authz-req+jwt');
      }
      const header = decodeProtectedHeader(first.body);
      assert.equal(header.typ, 'oauth-authz-req+jwt');
      assert.equal(header.alg, 'ES256');
      const did = await rail.app.inject({ method: 'GET', url: '/.well-known/did.json' });
      assert.ok(did.json().authentication.includes(header.kid), 'the kid is the platform verifier key');
      const payload = decodeJwt(first.body);
      assert.equal(payload.client_id, CLIENT_ID);
      assert.equal(payload.response_type, 'vp_token');
      assert.equal(payload.response_mode, 'direct_post');
      assert.equal(payload.response_uri, `${PUBLIC_URL}/oid4vp/response`);
      assert.equal(payload.nonce, 'caller-nonce-0123456789');
      assert.equal(typeof payload.state, 'string');
      assert.equal(payload.client_id_scheme, undefined);
      assert.equal(payload.redirect_uri, undefined);
      assert.deepEqual(payload.dcql_query, {
        credentials: [
          {
            id: 'credential',
            format: 'dc+sd-jwt',
            meta: { vct_values: [vct] },
            claims: [{ path: ['holder_name'] }, { path: ['student'] }],
          },
        ],
      });
    });

    test('an accepted presentation yields exactly the requested claims, the nonce and the audience', async () => {
      const created = await openOk();
      const vp = await present(issued.credential, issued.key, ['holder_name', 'student', 'class'], {
        nonce: created.request.nonce,
      });
      const res = await rail.app.inject({
        method: 'POST',
        url: '/oid4vp/response',
        ...form({ vp_token: JSON.stringify({ credential: [vp] }), state: created.request.state }),
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), {});
      const outcome = await poll(created.transactionId, created.resultToken);
      assert.deepEqual(outcome, {
        ok: true,
        presentation: {
          claims: { holder_name: 'Ada Lovelace', student: false },
          vct,
          issuer: 'did:web:rail.example.test:t:demo-transit',
        },
        presentedNonce: created.request.nonce,
        presentedAud: 'https://shop.example',
      });
      assert.ok(!JSON.stringify(outcome).includes(String(issued.key.publicJwk.x)), 'no holder key');
      // A second response to the completed transaction is refused and changes nothing.
      const again = await rail.app.inject({
        method: 'POST',
        url: '/oid4vp/response',
        ...form({ vp_token: JSON.stringify({ credential: [vp] }), state: created.request.state }),
      });
      assert.equal(again.statusCode, 400);
      assert.equal(again.json().error, 'invalid_request');
      assert.deepEqual(await poll(created.transactionId, created.resultToken), outcome);
    });

    test('the poll answers as the interface fixes it: 200 with outcome null and a reason for no token, a wrong token, an unknown and an expired transaction, and nothing changes', async () => {
      const created = await openOk();
      const other = await openOk();
      const id = created.transactionId;
      const unknown = 'vtx_unknownunknownunknow';
      const held = (reason: string) => [200, { outcome: null, reason }];
      const withheld = async () => {
        assert.deepEqual(await pollAnswer(id), held('result_token_required'), 'no Authorization');
        assert.deepEqual(await pollAnswer(id, { authorization: `Basic ${created.resultToken}` }), held('result_token_required'));
        assert.deepEqual(await pollAnswer(id, bearer(`vrt_${'A'.repeat(43)}`)), held('wrong_result_token'));
        assert.deepEqual(await pollAnswer(id, bearer(other.resultToken)), held('wrong_result_token'), "another's token");
        assert.deepEqual(await pollAnswer(id, bearer('vrt_wrong')), held('wrong_result_token'), 'not shaped like one');
        assert.deepEqual(await pollAnswer(id, bearer(OWNER_TOKEN)), held('wrong_result_token'), "another plane's bearer");
        assert.deepEqual(await pollAnswer(unknown, bearer(created.resultToken)), held('unknown_transaction'));
        assert.deepEqual(await pollAnswer('nonsense', bearer(created.resultToken)), held('unknown_transaction'));
        assert.deepEqual(await pollAnswer(unknown), held('result_token_required'), 'no token: nothing is looked up');
      };

      const before = await snapshot();
      await withheld();
      assert.deepEqual(await pollAnswer(id, bearer(created.resultToken)), held('pending'));
      assert.deepEqual(await snapshot(), before, 'polls change nothing');

      const vp = await present(issued.credential, issued.key, ['holder_name', 'student'], { nonce: created.request.nonce });
      const answered = await rail.app.inject({
        method: 'POST',
        url: '/oid4vp/response',
        ...form({ vp_token: JSON.stringify({ credential: [vp] }), state: created.request.state }),
      });
      assert.equal(answered.statusCode, 200, answered.body);
      const completed = await snapshot();
      await withheld();
      assert.deepEqual(await snapshot(), completed, 'refused polls of a completed transaction change nothing');
      const [status, body] = await pollAnswer(id, bearer(created.resultToken));
      assert.equal(status, 200);
      assert.deepEqual(Object.keys(body as object), ['outcome'], 'a revealed outcome carries no reason');
      assert.equal((body as { outcome: { ok: boolean } }).outcome.ok, true);

      now += 21 * 60 * 1000;
      try {
        assert.deepEqual(await pollAnswer(id, bearer(created.resultToken)), held('unknown_transaction'), 'expired');
        assert.deepEqual(await pollAnswer(id), held('result_token_required'), 'expired, no token');
        assert.deepEqual(await snapshot(), completed, 'the poll of an expired transaction deletes nothing');
      } finally {
        now = Date.now();
      }
    });

    test('/openapi.json describes the poll as it answers: the result token optional, 200 with a reason, no refusal', async () => {
      const doc = (await rail.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      const op = doc.paths['/verify/result/{transactionId}'].get;
      assert.deepEqual(op.security, [{ resultToken: [] }, {}]);
      assert.deepEqual(Object.keys(op.responses), ['200']);
      const reason = op.responses['200'].content['application/json'].schema.properties.reason;
      assert.deepEqual(
        reason.anyOf.map((r: { const: string }) => r.const),
        [
          'pending',
          'result_token_required',
          'wrong_result_token',
          'unknown_transaction',
          'response_code_required',
          'wrong_response_code',
        ],
      );
      const relay = doc.paths['/verify/response/{transactionId}'].post;
      assert.deepEqual(relay.security, [{ resultToken: [] }], 'the DC API relay still requires its token');
    });

    test("presentedAud is the caller's aud and presentedNonce the caller's nonce; the key binding still names our client identifier", async () => {
      const nonce = freshNonce();
      const created = await openOk({ aud: 'https://rp.example/x', nonce });
      const vp = await present(issued.credential, issued.key, ['holder_name', 'student'], { nonce: created.request.nonce });
      const res = await rail.app.inject({
        method: 'POST',
        url: '/oid4vp/response',
        ...form({ vp_token: JSON.stringify({ credential: [vp] }), state: created.request.state }),
      });
      assert.equal(res.statusCode, 200, res.body);
      const outcome = await poll(created.transactionId, created.resultToken);
      assert.equal(outcome.presentedAud, 'https://rp.example/x');
      assert.equal(outcome.presentedNonce, nonce);
      // A key binding made out to the caller's aud instead of our client identifier is refused (OID4VP 1.0 §8.6, B.3).
      const misaddressed = await openOk({ aud: 'https://rp.example/x' });
      const wrongAud = await present(issued.credential, issued.key, ['holder_name', 'student'], {
        nonce: misaddressed.request.nonce,
        aud: 'https://rp.example/x',
      });
      const refused = await rail.app.inject({
        method: 'POST',
        url: '/oid4vp/response',
        ...form({ vp_token: JSON.stringify({ credential: [wrongAud] }), state: misaddressed.request.state }),
      });
      assert.equal(refused.statusCode, 400);
      assert.equal(refused.json().error, 'audience_mismatch');
    });

    test('older vp_token shapes are accepted: an object of strings and a bare string', async () => {
      for (const shape of [(vp: string) => JSON.stringify({ credential: vp }), (vp: string) => vp]) {
        const created = await openOk();
        const vp = await present(issued.credential, issued.key, ['holder_name', 'student'], { nonce: created.request.nonce });
        const res = await rail.app.inject({
          method: 'POST',
          url: '/oid4vp/response',
          ...form({ vp_token: shape(vp), state: created.request.state }),
        });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal((await poll(created.transactionId, created.resultToken)).ok, true);
      }
    });

    test('a failing presentation completes the transaction with the failing link', async () => {
      const cases: Array<[string, (n: string) => Promise<string>, string, string]> = [
        [
          'wrong nonce',
          () => present(issued.credential, issued.key, ['holder_name', 'student'], { nonce: freshNonce() }),
          'nonce_mismatch',
          'freshness',
        ],
        [
          'wrong audience',
          (n) =>
            present(issued.credential, issued.key, ['holder_name', 'student'], { nonce: n, aud: 'https://elsewhere.example' }),
          'audience_mismatch',
          'audience',
        ],
        [
          'claim withheld',
          (n) => present(issued.credential, issued.key, ['holder_name'], { nonce: n }),
          'required_claim_missing',
          'required_claims',
        ],
        ['not a presentation', async () => 'garbage~', 'malformed_presentation', 'structure'],
      ];
      for (const [name, build, error, link] of cases) {
        const created = await openOk();
        const res = await rail.app.inject({
          method: 'POST',
          url: '/oid4vp/response',
          ...form({
            vp_token: JSON.stringify({ credential: [await build(created.request.nonce)] }),
            state: created.request.state,
          }),
        });
        assert.equal(res.statusCode, 400, name);
        assert.equal(res.json().error, error, name);
        const outcome = await poll(created.transactionId, created.resultToken);
        assert.equal(outcome.ok, false, name);
        assert.equal(outcome.error, error, name);
        assert.equal(outcome.link, link, name);
      }
    });

    test('a vp_token with two presentations or another query id is malformed', async () => {
      const created = await openOk();
      const vp = await present(issued.credential, issued.key, ['holder_name', 'student'], { nonce: created.request.nonce });
      const res = await rail.app.inject({
        method: 'POST',
        url: '/oid4vp/response',
        ...form({ vp_token: JSON.stringify({ credential: [vp, vp] }), state: created.request.state }),
      });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().error, 'malformed_presentation');
    });

    test('a wallet error response completes the transaction as declined', async () => {
      const created = await openOk();
      const res = await rail.app.inject({
        method: 'POST',
        url: '/oid4vp/response',
        ...form({ error: 'access_denied', error_description: 'The holder said no', state: created.request.state }),
      });
      assert.equal(res.statusCode, 400);
      const outcome = await poll(created.transactionId, created.resultToken);
      assert.equal(outcome.ok, false);
      assert.equal(outcome.error, 'wallet_error');
      assert.match(outcome.detail, /access_denied/);
    });

    test('a response with an unknown or missing state changes nothing', async () => {
      const bad: Record<string, string>[] = [{ state: 'nope', vp_token: 'x~' }, { vp_token: 'x~' }];
      for (const fields of bad) {
        const res = await rail.app.inject({ method: 'POST', url: '/oid4vp/response', ...form(fields) });
        assert.equal(res.statusCode, 400);
        assert.equal(res.json().error, 'invalid_request');
      }
      const dup = await rail.app.inject({
        method: 'POST',
        url: '/oid4vp/response',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'state=a&state=b',
      });
      assert.equal(dup.statusCode, 400);
    });

    test('requests are refused with a named error and write nothing', async () => {
      const count = () => rowCount(rail.db, 'presentation_transactions');
      const before = await count();
      const refusals: Array<[Record<string, unknown>, number, string]> = [
        [{ vct: `${PUBLIC_URL}/types/nothing` }, 404, 'unknown_type'],
        [{ vct: 'https://elsewhere.example/types/verified-pass' }, 404, 'unknown_type'],
        [{ claims: ['shoe_size'] }, 400, 'unknown_claim'],
        [{ claims: ['zones'] }, 400, 'unsupported_claim'],
        [{ claims: ['student', 'student'] }, 400, 'invalid_request'],
        [{ nonce: 'short' }, 400, 'invalid_request'],
        [{ nonce: 'has spaces in it, sixteen+' }, 400, 'invalid_request'],
        [{ aud: '' }, 400, 'invalid_request'],
        [{ extra: true }, 400, 'invalid_request'],
      ];
      for (const [body, status, error] of refusals) {
        const res = await open(body);
        assert.equal(res.statusCode, status, `${JSON.stringify(body)}: ${res.body}`);
        assert.equal(res.json().error, error, JSON.stringify(body));
      }
      assert.equal(await count(), before);
      const nonce = freshNonce();
      await openOk({ nonce });
      const reused = await open({ nonce });
      assert.equal(reused.statusCode, 409);
      assert.equal(reused.json().error, 'nonce_reused');
      assert.equal(await count(), before + 1);
    });

    test('the operator plane opens the same request, and needs the operator bearer', async () => {
      const body = { vct, claims: ['holder_name'], nonce: freshNonce(), aud: 'https://shop.example' };
      const anonymous = await rail.app.inject({ method: 'POST', url: '/api/requests', payload: body });
      assert.equal(anonymous.statusCode, 401);
      const res = await rail.app.inject({ method: 'POST', url: '/api/requests', headers: owner, payload: body });
      assert.equal(res.statusCode, 201, res.body);
      assert.match(res.json().requestUri, /^openid4vp:\/\//);
      const row = await rail.db
        .selectFrom('presentation_transactions')
        .select('requested_by')
        .where('id', '=', res.json().transactionId)
        .executeTakeFirstOrThrow();
      assert.equal(row.requested_by, 'owner-token');
    });

    test('transactions expire: request object 404, result outcome null, response refused', async () => {
      const created = await openOk();
      now += 11 * 60 * 1000;
      try {
        const requestObject = await rail.app.inject({ method: 'GET', url: `/oid4vp/request/${created.transactionId}` });
        assert.equal(requestObject.statusCode, 404);
        assert.equal(requestObject.json().error, 'unknown_transaction');
        assert.deepEqual(await pollAnswer(created.transactionId, bearer(created.resultToken)), [
          200,
          { outcome: null, reason: 'unknown_transaction' },
        ]);
        const res = await rail.app.inject({
          method: 'POST',
          url: '/oid4vp/response',
          ...form({ vp_token: 'x~', state: created.request.state }),
        });
        assert.equal(res.statusCode, 400);
      } finally {
        now = Date.now();
      }
    });
  });
}
