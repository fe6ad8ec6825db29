/**
 * Hosted verification through the Digital Credentials API (OID4VP 1.0 Appendix A), over real
 * HTTP: the relying party opens a transaction naming its web origin, passes the answer's
 * `dcApi.requests` to the browser, and relays the wallet's answer with its result token. The
 * wallet is oid4vc-ts (test/helpers/oid4vp-wallet.ts, `answerDcApi`), handed the request and the
 * origin as the platform would. Checked: the signed request (x509_hash, expected_origins,
 * dc_api.jwt, no response_uri, no state) and the unsigned one; the holder's key binding names
 * `origin:<origin>`; each refusal changes nothing; the QR flow of the same transaction is unchanged.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, type JWK } from 'jose';
import { testDatabases } from '../../../test/helpers/databases.ts';
import { CARD_CLAIMS } from '../../../test/helpers/issuance.ts';
import { answerDcApi, keyBindingOf, presentHolding, type WalletOverrides } from '../../../test/helpers/oid4vp-wallet.ts';
import { owner, startRail } from '../../../test/helpers/rail.ts';
import { encryptAnswer, startVerifierRail, type VerifierRail, verifierCalls } from '../../../test/helpers/verifier-rail.ts';
import { keyFromX5c } from '../../../test/helpers/x5c.ts';

const ASKED = ['holder_name', 'student'];
const SHOP = 'https://shop.example';

type DcRequest = { protocol: string; data: Record<string, unknown> };
interface Opened {
  requestUri: string;
  transactionId: string;
  resultToken: string;
  dcApi?: { requests: DcRequest[] };
}

for (const factory of testDatabases()) {
  describe(`verification through the Digital Credentials API (${factory.name})`, () => {
    let v: VerifierRail;
    let origin: string;
    let vct: string;
    let holding: VerifierRail['holding'];
    const { call, poll } = verifierCalls(() => v);

    async function open(extra: Record<string, unknown> = { origin: SHOP }): Promise<Opened> {
      const nonce = randomBytes(24).toString('base64url');
      const res = await call('POST', '/verify/request', { vct, claims: ASKED, nonce, aud: SHOP, ...extra });
      assert.equal(res.status, 201, res.text);
      return res.json as unknown as Opened;
    }

    const requestOf = (o: Opened, protocol: string) => {
      const found = o.dcApi?.requests.find((r) => r.protocol === protocol);
      assert.ok(found, `the answer offers ${protocol}`);
      return found;
    };

    const answer = (o: Opened, protocol = 'openid4vp-v1-signed', overrides?: WalletOverrides, at = SHOP) =>
      answerDcApi({
        request: requestOf(o, protocol),
        origin: at,
        credential: holding.credential,
        holderKey: holding.key,
        baseUrl: origin,
        ...(overrides ? { overrides } : {}),
      });

    const relay = (o: Opened, body: unknown, token: string | undefined = o.resultToken) =>
      call('POST', `/verify/response/${o.transactionId}`, body, token ? { authorization: `Bearer ${token}` } : {});

    before(async () => {
      v = await startVerifierRail(factory, { tenant: 'Bruges Museum', type: 'Museum Pass' });
      ({ origin, vct, holding } = v);
    });

    after(async () => {
      await v?.stop();
    });

    test('the requests: signed for the origin, and unsigned; both ask for an answer encrypted to the transaction', async () => {
      const o = await open();
      assert.deepEqual(
        o.dcApi?.requests.map((r) => r.protocol),
        ['openid4vp-v1-signed', 'openid4vp-v1-unsigned'],
      );
      const jws = String(requestOf(o, 'openid4vp-v1-signed').data.request);
      keyFromX5c(jws, v.anchorPem);
      assert.deepEqual(Object.keys(decodeProtectedHeader(jws)).sort(), ['alg', 'typ', 'x5c']);
      const signed = decodeJwt(jws);
      assert.match(String(signed.client_id), /^x509_hash:[A-Za-z0-9_-]{43}$/);
      assert.deepEqual(signed.expected_origins, [SHOP]);
      assert.equal(signed.response_mode, 'dc_api.jwt');
      for (const absent of ['response_uri', 'state', 'redirect_uri']) assert.equal(signed[absent], undefined, absent);
      const unsigned = requestOf(o, 'openid4vp-v1-unsigned').data;
      assert.equal(unsigned.client_id, undefined, 'an unsigned request names no client');
      assert.equal(unsigned.response_mode, 'dc_api.jwt');
      assert.equal(unsigned.nonce, signed.nonce);
      const key = (unsigned.client_metadata as { jwks: { keys: JWK[] } }).jwks.keys[0];
      assert.equal(key?.kid, o.transactionId);
      // The same transaction keeps its QR request, of the profile it was opened under.
      assert.match(o.requestUri, /^openid4vp:\/\/\?client_id=decentralized_identifier/);
    });

    for (const protocol of ['openid4vp-v1-signed', 'openid4vp-v1-unsigned']) {
      test(`the wallet answers ${protocol}; the relayed answer completes the transaction, bound to the origin`, async () => {
        const o = await open();
        const dc = await answer(o, protocol);
        assert.equal(keyBindingOf(dc.presentation).payload.aud, `origin:${SHOP}`);
        assert.equal(decodeProtectedHeader(String(dc.data.response)).kid, o.transactionId);
        const relayed = await relay(o, { protocol: dc.protocol, data: dc.data });
        assert.equal(relayed.status, 200, relayed.text);
        assert.equal(relayed.headers.get('cache-control'), 'no-store');
        const outcome = relayed.json.outcome as Record<string, unknown>;
        assert.equal(outcome.ok, true, JSON.stringify(outcome));
        assert.equal(outcome.presentedAud, SHOP, "the caller's aud (the key binding named origin:<origin>)");
        assert.deepEqual(await poll(o), outcome, 'the result API answers the same outcome');
        const again = await relay(o, { protocol: dc.protocol, data: dc.data });
        assert.equal(again.status, 409);
        assert.equal(again.json.error, 'transaction_complete');
      });
    }

    test('a wallet on another origin refuses the signed request (expected_origins)', async () => {
      const o = await open();
      await assert.rejects(answer(o, 'openid4vp-v1-signed', undefined, 'https://evil.example'), /expected_origins/);
    });

    test('a key binding for the client id instead of the origin completes the transaction as failed', async () => {
      const o = await open();
      const signed = decodeJwt(String(requestOf(o, 'openid4vp-v1-signed').data.request));
      const dc = await answer(o, 'openid4vp-v1-signed', { aud: String(signed.client_id) });
      const relayed = await relay(o, { protocol: dc.protocol, data: dc.data });
      assert.equal(relayed.status, 200);
      const outcome = relayed.json.outcome as Record<string, unknown>;
      assert.deepEqual([outcome.ok, outcome.error], [false, 'audience_mismatch']);
    });

    test('refusals change nothing: no token, another token, another key, neither answer nor error, no origin', async () => {
      const o = await open();
      const dc = await answer(o);
      const body = { protocol: dc.protocol, data: dc.data };
      assert.equal((await relay(o, body, '')).status, 401);
      const other = await open();
      const wrong = await relay(o, body, other.resultToken);
      assert.deepEqual([wrong.status, wrong.json.error], [403, 'wrong_result_token']);
      // Encrypted to a key that is not the transaction's, under its kid.
      const { publicKey } = await generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true });
      const stray = await encryptAnswer(
        await exportJWK(publicKey),
        { vp_token: { credential: [dc.presentation] } },
        {
          kid: o.transactionId,
        },
      );
      const refused = await relay(o, { protocol: dc.protocol, data: { response: stray } });
      assert.deepEqual([refused.status, refused.json.error], [400, 'unreadable_response']);
      // The other transaction's answer, relayed to this one: another kid.
      const crossed = await relay(other, body, other.resultToken);
      assert.deepEqual([crossed.status, crossed.json.error], [400, 'unreadable_response']);
      // An answer to the QR request (it carries the state), encrypted to the same key, relayed here.
      const key = (requestOf(o, 'openid4vp-v1-unsigned').data.client_metadata as { jwks: { keys: JWK[] } }).jwks.keys[0] as JWK;
      const qrObject = decodeJwt((await call('GET', `/oid4vp/request/${o.transactionId}`)).text);
      const qrAnswer = await encryptAnswer(key, { vp_token: { credential: [dc.presentation] }, state: qrObject.state });
      const qrRelayed = await relay(o, { protocol: dc.protocol, data: { response: qrAnswer } });
      assert.deepEqual([qrRelayed.status, qrRelayed.json.error], [400, 'unreadable_response']);
      assert.match(String(qrRelayed.json.message), /QR request/);
      const unoffered = await relay(o, { protocol: 'openid4vp-v1-multisigned', data: dc.data });
      assert.deepEqual([unoffered.status, unoffered.json.error], [400, 'unreadable_response']);
      const empty = await relay(o, { protocol: dc.protocol, data: {} });
      assert.deepEqual([empty.status, empty.json.error], [400, 'unreadable_response']);
      const clear = await relay(o, { protocol: dc.protocol, data: { vp_token: { credential: [dc.presentation] } } });
      assert.deepEqual([clear.status, clear.json.error], [400, 'invalid_request'], 'an answer in the clear fails the schema');
      assert.equal(await poll(o), null, 'still pending');
      const noOrigin = await open({});
      assert.equal(noOrigin.dcApi, undefined);
      const refusedNoOrigin = await relay(noOrigin, body, noOrigin.resultToken);
      assert.deepEqual([refusedNoOrigin.status, refusedNoOrigin.json.error], [409, 'dc_api_not_requested']);
      // After all that, the honest answer still completes it.
      const ok = await relay(o, body);
      assert.equal((ok.json.outcome as Record<string, unknown>).ok, true, ok.text);
    });

    test('a wallet that declines answers an error: the transaction completes as wallet_error', async () => {
      const o = await open();
      const relayed = await relay(o, { protocol: 'openid4vp-v1-signed', data: { error: 'access_denied' } });
      assert.equal(relayed.status, 200);
      assert.equal((relayed.json.outcome as Record<string, unknown>).error, 'wallet_error');
    });

    test('the origin is a web origin, written as a browser writes it', async () => {
      const withOrigin = (origin: string) =>
        call('POST', '/verify/request', { vct, claims: ASKED, nonce: randomBytes(24).toString('base64url'), aud: SHOP, origin });
      // Refused by the pattern; then admitted by it but refused by the parser: 400, never 500.
      const refused = [
        'https://Shop.example',
        'https://shop.example/',
        'https://shop.example/path',
        'http://shop.example',
        'shop.example',
      ];
      for (const bad of [...refused, 'https://shop.example:99999', 'https://xn--a.example', 'https://shop.example:0']) {
        const res = await withOrigin(bad);
        assert.deepEqual([res.status, res.json.error], [400, 'invalid_request'], bad);
      }
      const port = await withOrigin('https://shop.example:443');
      assert.deepEqual([port.status, port.json.error], [400, 'invalid_request']);
      assert.match(String(port.json.message), /https:\/\/shop\.example\b/);
      const local = await open({ origin: 'http://localhost:8080' });
      assert.ok(local.dcApi);
    });

    test('with HAIP, the QR request is HAIP’s; a DC API answer posted to the QR channel is refused (it carries no state)', async () => {
      const o = await open({ origin: SHOP, profile: 'haip' });
      assert.match(o.requestUri, /client_id=x509_hash/);
      const dc = await answer(o);
      const posted = await v.postResponse({ response: String(dc.data.response) });
      assert.equal(posted.status, 400);
      assert.match(String(posted.json.error_description), /state/);
      assert.equal(await poll(o), null);
      const run = await presentHolding(holding, o.requestUri, origin);
      assert.equal(run.status, 200, JSON.stringify(run.body));
      assert.equal((await poll(o))?.ok, true);
    });
  });
}

describe('OPENRAIL_DC_API_UNSIGNED=off', () => {
  const [factory] = testDatabases();
  test('offers the signed request only', async () => {
    const db = await (factory as NonNullable<typeof factory>).create();
    const rail = await startRail(db, { OPENRAIL_DC_API_UNSIGNED: 'off' });
    try {
      const tenant = await rail.app.inject({
        method: 'POST',
        url: '/api/tenants',
        headers: owner,
        payload: { name: 'Ostend Pier' },
      });
      const slug = tenant.json().slug;
      const type = await rail.app.inject({
        method: 'POST',
        url: '/api/types',
        headers: owner,
        payload: { tenant: slug, name: 'Pier Pass', claims: CARD_CLAIMS },
      });
      const opened = await rail.app.inject({
        method: 'POST',
        url: '/verify/request',
        payload: { vct: type.json().vct, claims: ASKED, nonce: randomBytes(24).toString('base64url'), aud: SHOP, origin: SHOP },
      });
      assert.equal(opened.statusCode, 201, opened.body);
      assert.deepEqual(
        opened.json().dcApi.requests.map((r: DcRequest) => r.protocol),
        ['openid4vp-v1-signed'],
      );
    } finally {
      await rail.stop();
      await db.drop();
    }
  });
});
