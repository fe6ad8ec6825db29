/**
 * The holes a probe of the running service found (issue 9, point 7), each reproduced as it was
 * found: every one of these requests used to answer 500, leak a secret, or store what it should
 * not. Each now answers a 4xx (or a correct verdict) and leaves nothing behind.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { SqlPresentationTransactionStore } from '../../src/adapters/sql/verification/sql-presentation-transaction-store.ts';
import { createLogger } from '../../src/app/logger.ts';
import type { PresentationTransactionRecord } from '../../src/ports/presentation-transaction-store.ts';
import { type TestDatabase, testDatabases } from '../helpers/databases.ts';
import { newHolderKey } from '../helpers/holder.ts';
import {
  accessToken,
  createOffer,
  freshNonce,
  issuerId,
  PRE_AUTH,
  proofJwt,
  redeem,
  requestCredential,
} from '../helpers/issuance.ts';
import { bearer, owner, startRail, type TestRail } from '../helpers/rail.ts';

const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64url');
const deep = (n: number) => `${'['.repeat(n)}0${']'.repeat(n)}`;

/**
 * One raw HTTP/1.1 exchange: what the socket answered, as text. The request says
 * `Connection: close`, and the socket is left open for the answer (a half-close would end the
 * exchange before a slower answer is written).
 */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', (err) => (answer ? resolve(answer) : reject(err)));
  });
}

const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;

for (const factory of testDatabases()) {
  describe(`the holes found by probing the running service stay closed (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let port: number;
    const logs: string[] = [];
    let typeId: string;

    const post = (url: string, payload: unknown, headers: Record<string, string> = owner) =>
      rail.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });

    before(async () => {
      db = await factory.create();
      const logger = createLogger('trace', { write: (line: string) => void logs.push(line) });
      rail = await startRail(db, {}, undefined, { logger, runJobs: false });
      await rail.app.listen({ port: 0, host: '127.0.0.1' });
      port = (rail.app.server.address() as { port: number }).port;
      const type = await post('/api/types', {
        tenant: 'demo-transit',
        name: 'Probe Card',
        claims: ['given_name', 'items:array(object)'],
      });
      assert.equal(type.statusCode, 201, type.body);
      typeId = type.json().typeId;
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('a presentation nesting a header or payload field 20,000 deep is refused with a verdict, not a 500', async () => {
      const opened = await post('/verify/request', {
        vct: `https://rail.example.test/t/demo-transit/types/${typeId}`,
        claims: ['given_name'],
        nonce: randomBytes(18).toString('base64url'),
        aud: 'https://rp.example',
      });
      assert.equal(opened.statusCode, 201, opened.body);
      const request = await rail.app.inject({ method: 'GET', url: `/oid4vp/request/${opened.json().transactionId}` });
      const { state } = JSON.parse(Buffer.from(request.body.split('.')[1] ?? '', 'base64url').toString());
      const header = `{"alg":"ES256","typ":"dc+sd-jwt","kid":${deep(20_000)}}`;
      const vpToken = `${b64(header)}.${b64('{"iss":"did:web:x"}')}.${b64(Buffer.alloc(64))}~`;
      const answer = await rail.app.inject({
        method: 'POST',
        url: '/oid4vp/response',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ vp_token: vpToken, state }).toString(),
      });
      assert.equal(answer.statusCode, 400, answer.body);
      assert.equal(answer.json().error, 'malformed_presentation');
      const polled = await rail.app.inject({
        method: 'GET',
        url: `/verify/result/${opened.json().transactionId}`,
        headers: bearer(opened.json().resultToken),
      });
      assert.equal(polled.json().outcome.ok, false, 'the transaction completed with a verdict');
    });

    test('a by-reference offer handle never reaches the log, and the log alone cannot make its code', async () => {
      const created = await createOffer(rail.app, {
        tenant: 'demo-transit',
        typeId,
        subject: { given_name: 'A', items: [] },
        byReference: true,
      });
      const uri = decodeURIComponent(new URL(created.offerUri).searchParams.get('credential_offer_uri') ?? '');
      const handle = uri.slice(uri.lastIndexOf('/') + 1);
      const fetched = await raw(
        port,
        `GET /t/demo-transit/credential-offer/${handle} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      );
      assert.equal(statusOf(fetched), 200);
      const code = (bodyOf(fetched).grants as Record<string, { 'pre-authorized_code': string }>)[PRE_AUTH]?.[
        'pre-authorized_code'
      ];
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(logs.filter((l) => l.includes(handle)).length, 0, 'no log line carries the handle');
      assert.ok(
        logs.some((l) => l.includes('/t/:tenant/credential-offer/:handle')),
        'the request line names the route',
      );
      // The code as an unkeyed hash of the handle would have been: it is not the code.
      const guessed = `pac_${createHash('sha256').update(`openrail:pre-authorized-code:${handle}`, 'utf8').digest('base64url')}`;
      assert.notEqual(guessed, code);
      const refused = await redeem(rail.app, 'demo-transit', { grant_type: PRE_AUTH, 'pre-authorized_code': guessed });
      assert.equal(refused.statusCode, 400);
      assert.equal(refused.json().error, 'invalid_grant');
      assert.equal(
        (await redeem(rail.app, 'demo-transit', { grant_type: PRE_AUTH, 'pre-authorized_code': code ?? '' })).statusCode,
        200,
      );
    });

    test('an absolute-form request line is served as its origin form, and its query never reaches the log', async () => {
      const secret = `secret-${randomBytes(8).toString('hex')}`;
      const answer = await raw(
        port,
        `POST http://x/credential?access_token=${secret} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
      );
      assert.equal(statusOf(answer), 401, answer);
      assert.equal(bodyOf(answer).error, 'invalid_request');
      const readyz = await raw(port, 'GET http://other.example/readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      assert.equal(statusOf(readyz), 200);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(logs.filter((l) => l.includes(secret) || l.includes('other.example')).length, 0);
    });

    test('an array(object) element nested deeper than eight levels is 400 invalid_subject (beyond 32, the edge refuses the body)', async () => {
      // As JSON text: an object this deep cannot even be built by a recursive function here.
      const nest = (n: number) => `${'{"a":'.repeat(n)}0${'}'.repeat(n)}`;
      const body = (depth: number) =>
        `{"tenant":"demo-transit","typeId":"${typeId}","subject":{"given_name":"A","items":[${nest(depth)}]}}`;
      const send = (depth: number) =>
        rail.app.inject({
          method: 'POST',
          url: '/api/offers',
          headers: { ...owner, 'content-type': 'application/json' },
          payload: body(depth),
        });
      const shallow = await send(7);
      assert.equal(shallow.statusCode, 201, shallow.body);
      for (const depth of [9, 27, 3_500, 20_000]) {
        const res = await send(depth);
        assert.equal(res.statusCode, 400, `${depth}: ${res.body.slice(0, 200)}`);
        // The body nests `depth` + 4 levels: past 32 the edge's bound answers before the subject's.
        assert.equal(res.json().error, depth + 4 > 32 ? 'invalid_request' : 'invalid_subject');
      }
    });

    test('responses that carry a secret are never cached; no response may be sniffed or leak a referrer', async () => {
      const secretBearing = [
        await post('/api/offers', { tenant: 'demo-transit', typeId, subject: { given_name: 'A', items: [] } }),
        await post('/verify/request', {
          vct: `https://rail.example.test/t/demo-transit/types/${typeId}`,
          claims: ['given_name'],
          nonce: randomBytes(18).toString('base64url'),
          aud: 'https://rp.example',
        }),
        await post('/api/requests', {
          vct: `https://rail.example.test/t/demo-transit/types/${typeId}`,
          claims: ['given_name'],
          nonce: randomBytes(18).toString('base64url'),
          aud: 'https://rp.example',
        }),
        await post('/api/login', { username: 'nobody', password: 'wrong' }, {}),
        await redeem(rail.app, 'demo-transit', { grant_type: PRE_AUTH, 'pre-authorized_code': 'pac_unknown' }),
        await requestCredential(rail.app, 'demo-transit', 'oat_unknown', {}),
        await rail.app.inject({ method: 'GET', url: '/api/qr?data=openid-credential-offer%3A%2F%2Fx' }),
      ];
      for (const res of secretBearing)
        assert.equal(res.headers['cache-control'], 'no-store', `${res.statusCode} ${res.body.slice(0, 80)}`);
      for (const res of [...secretBearing, await rail.app.inject({ method: 'GET', url: '/t/demo-transit/status/1' })]) {
        assert.equal(res.headers['x-content-type-options'], 'nosniff');
        assert.equal(res.headers['referrer-policy'], 'no-referrer');
      }
      // A page sends no Referer to another site either, yet lets its forms carry their Origin: under
      // no-referrer a browser posts a form with `Origin: null`, which the form check refuses.
      for (const url of ['/', '/account/signin']) {
        const page = await rail.app.inject({ method: 'GET', url });
        assert.match(String(page.headers['content-type']), /^text\/html/);
        assert.equal(page.headers['referrer-policy'], 'same-origin', url);
      }
    });

    test('names refuse NUL, bidi overrides, zero-width characters and lone surrogates', async () => {
      for (const bad of ['Acme\u0000', 'Acme \u202Egnp.exe', 'Acme (Demo)\u200B', 'Acme \uD800']) {
        const cases = [
          ['/api/tenants', { name: bad }],
          ['/api/types', { tenant: 'demo-transit', name: bad, claims: ['x'] }],
          ['/api/types', { tenant: 'demo-transit', name: 'Enum Card', claims: [`level:enum(${bad}|b)`] }],
          ['/api/tenants/update', { tenant: 'demo-transit', description: bad }],
          [
            '/api/offers',
            { tenant: 'demo-transit', typeId, subject: { given_name: 'A', items: [] }, txCode: { description: bad } },
          ],
          [
            '/verify/request',
            {
              vct: `https://rail.example.test/t/demo-transit/types/${typeId}`,
              claims: ['given_name'],
              nonce: randomBytes(18).toString('base64url'),
              aud: bad,
            },
          ],
        ] as const;
        for (const [url, body] of cases) {
          const res = await post(url, body);
          assert.equal(res.statusCode, 400, `${url} ${JSON.stringify(bad)}: ${res.body}`);
          assert.ok(['invalid_request', 'invalid_claim_spec'].includes(res.json().error), res.body);
        }
      }
      const fine = await post('/api/tenants', { name: 'Café 👩\u200D💻 Works' });
      assert.equal(fine.statusCode, 201, fine.body);
    });

    test('the live presentation transactions are capped, the oldest evicted first', async () => {
      const store = new SqlPresentationTransactionStore(rail.db);
      const record = (i: number): PresentationTransactionRecord => ({
        id: `vtx_cap-${i}`,
        state: `cap-state-${i}`,
        nonce: `cap-nonce-${i}-0123456789`,
        resultTokenHash: 'x',
        callerAud: 'a',
        typeTenant: 'demo-transit',
        typeId,
        vct: 'v',
        claims: [],
        requestedBy: null,
        createdAt: 4_000_000_000_000 + i,
        expiresAt: 4_100_000_000_000,
        completedAt: null,
        outcome: null,
        holder: null,
        enrolledAt: null,
        issuerDid: null,
        profile: 'openid4vp',
        responseKey: null,
        dcOrigin: null,
        verifierChain: null,
        redirectUri: null,
        responseCodeHash: null,
      });
      await rail.db.deleteFrom('presentation_transactions').execute();
      for (let i = 0; i < 30; i++) assert.equal(await store.create(record(i)), true);
      assert.equal(await store.evictBeyond(20), 10);
      const left = await rail.db.selectFrom('presentation_transactions').select('id').orderBy('created_at').execute();
      assert.deepEqual(
        left.map((r) => r.id),
        Array.from({ length: 20 }, (_, i) => `vtx_cap-${i + 10}`),
      );
      assert.equal(await store.evictBeyond(20), 0, 'nothing more while at the cap');
    });

    test('a key proof whose payload is null is 400 invalid_proof', async () => {
      const offer = await createOffer(rail.app, { tenant: 'demo-transit', typeId, subject: { given_name: 'A', items: [] } });
      const { access_token } = await accessToken(rail.app, 'demo-transit', offer.code);
      const key = await newHolderKey();
      const valid = await proofJwt(key, { aud: issuerId('demo-transit'), nonce: await freshNonce(rail.app, 'demo-transit') });
      const [header] = valid.split('.');
      const { importJWK, CompactSign } = await import('jose');
      const nullPayload = await new CompactSign(new TextEncoder().encode('null'))
        .setProtectedHeader(JSON.parse(Buffer.from(header ?? '', 'base64url').toString()))
        .sign(key.privateKey);
      assert.ok(await importJWK(key.publicJwk, 'ES256'));
      const res = await requestCredential(rail.app, 'demo-transit', access_token, {
        credential_configuration_id: typeId,
        proofs: { jwt: [nullPayload] },
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(res.json(), { error: 'invalid_proof', error_description: 'The proof payload is not a JSON object.' });
    });

    test("Fastify's own refusals come in the service's envelope, with catalogue codes", async () => {
      const cases: Array<[string, number, string]> = [
        [`GET /t/${'a'.repeat(200)}/did.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 414, 'uri_too_long'],
        ['GET /t/%E0%A4%A/did.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 400, 'bad_url'],
        ['GET /% HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 400, 'bad_url'],
        [`GET /readyz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\nConnection: close\r\n\r\n`, 431, 'header_too_large'],
        [`GET /${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 431, 'header_too_large'],
        ['GET /readyz HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n', 400, 'malformed_request'],
      ];
      for (const [request, status, code] of cases) {
        const answer = await raw(port, request);
        assert.equal(statusOf(answer), status, answer.slice(0, 300));
        const body = bodyOf(answer);
        assert.deepEqual(Object.keys(body).sort(), ['error', 'message'], answer.slice(0, 300));
        assert.equal(body.error, code);
        assert.doesNotMatch(answer, /FST_ERR|statusCode/);
      }
    });

    test('a cross-origin relying party can preflight the verification requests it is allowed to make', async () => {
      const preflight = await rail.app.inject({
        method: 'OPTIONS',
        url: '/verify/request',
        headers: { origin: 'https://rp.example', 'access-control-request-method': 'POST' },
      });
      assert.equal(preflight.statusCode, 204);
      assert.equal(preflight.headers['access-control-allow-origin'], '*');
      assert.match(String(preflight.headers['access-control-allow-headers']), /content-type/);
      const notCors = await rail.app.inject({ method: 'OPTIONS', url: '/api/tenants' });
      assert.equal(notCors.statusCode, 405, 'operations that are not CORS-open have no preflight');
      assert.equal(notCors.headers.allow, 'POST');
      assert.equal(notCors.headers['access-control-allow-origin'], undefined);
    });

    test('erased offer subjects leave the SQLite file and its write-ahead log', { skip: factory.name !== 'sqlite' }, async () => {
      const collected = `COLLECTED-${randomBytes(6).toString('hex')}`;
      const expired = `EXPIRED-${randomBytes(6).toString('hex')}`;
      const offer = await createOffer(rail.app, {
        tenant: 'demo-transit',
        typeId,
        subject: { given_name: collected, items: [] },
      });
      const token = await accessToken(rail.app, 'demo-transit', offer.code);
      const key = await newHolderKey();
      const issued = await requestCredential(rail.app, 'demo-transit', token.access_token, {
        credential_configuration_id: typeId,
        proofs: {
          jwt: [await proofJwt(key, { aud: issuerId('demo-transit'), nonce: await freshNonce(rail.app, 'demo-transit') })],
        },
      });
      assert.equal(issued.statusCode, 200, issued.body);
      const lapsing = await createOffer(rail.app, {
        tenant: 'demo-transit',
        typeId,
        subject: { given_name: expired, items: [] },
      });
      await rail.db.updateTable('offers').set({ erase_after: 1 }).where('id', '=', lapsing.offerId).execute();
      const file = db.location.kind === 'sqlite' ? db.location.file : '';
      const onDisk = () => `${readFileSync(file, 'latin1')}${readFileSync(`${file}-wal`, 'latin1')}`;
      assert.ok(onDisk().includes(expired), 'the pending subject is on disk before the sweep');
      await rail.jobs.tick();
      assert.equal(onDisk().includes(collected), false, 'the collected subject is gone');
      assert.equal(onDisk().includes(expired), false, 'the erased subject is gone');
    });
  });
}
