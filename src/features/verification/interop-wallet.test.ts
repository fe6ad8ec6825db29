/**
 * Interop over real HTTP: hosted OID4VP verification answered by a real wallet (oid4vc-ts
 * @openid4vc/openid4vp, dcql, sd-jwt-js; test/helpers/oid4vp-wallet.ts) holding a credential it
 * collected from the same rail with oid4vc-ts @openid4vc/openid4vci. Only the origin is rewritten
 * (the libraries insist on https URLs): https://rail.example.test -> http://127.0.0.1:<port>.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { decodeJwt, decodeProtectedHeader, importJWK, type JWK, jwtVerify } from 'jose';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { type HolderKey, newHolderKey } from '../../../test/helpers/holder.ts';
import { CARD_CLAIMS, CARD_SUBJECT } from '../../../test/helpers/issuance.ts';
import {
  collectWithWallet,
  credentialPayload,
  disclosuresOf,
  keyBindingOf,
  presentHolding,
  replaceDisclosure,
  type WalletOverrides,
  type WalletRun,
} from '../../../test/helpers/oid4vp-wallet.ts';
import { jsonCaller, listenOnLoopback, owner, PUBLIC_URL, startRail, type TestRail } from '../../../test/helpers/rail.ts';

const TENANT_NAME = 'Ghent Rowing Club';
const TYPE_NAME = 'Membership Card';
const CLAIMS = CARD_CLAIMS;
const SUBJECT = CARD_SUBJECT;
/** What a relying party asks for in most cases: not everything, so selective disclosure shows. */
const ASKED = ['holder_name', 'birth_date', 'student'];
const PLATFORM_DID = 'did:web:rail.example.test';
const CLIENT_ID = `decentralized_identifier:${PLATFORM_DID}`;
const DAY_S = 24 * 60 * 60;

type Outcome = Record<string, unknown> | null;
type VerificationMethod = { id: string; publicKeyJwk: JWK };

const freshNonce = () => randomBytes(24).toString('base64url');
/** The relying party's own audience, sent in POST /verify/request and answered back as presentedAud. */
const RP_AUD = 'https://rp.example.test';

for (const factory of testDatabases()) {
  describe(`OID4VP verification answered by the oid4vc-ts wallet over HTTP (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let origin: string;
    let slug: string;
    let tenantDid: string;
    let typeId: string;
    let vct: string;

    const call = jsonCaller(() => origin);

    interface Opened {
      requestUri: string;
      transactionId: string;
      resultToken: string;
      expiresAt: string;
      nonce: string;
    }

    async function open(claims: string[] = ASKED, nonce = freshNonce()): Promise<Opened> {
      const res = await call('POST', '/verify/request', { vct, claims, nonce, aud: RP_AUD });
      assert.equal(res.status, 201, res.text);
      return { ...(res.json as unknown as Omit<Opened, 'nonce'>), nonce };
    }

    async function poll(transactionId: string, token?: string): Promise<Outcome> {
      const res = await call(
        'GET',
        `/verify/result/${transactionId}`,
        undefined,
        token ? { authorization: `Bearer ${token}` } : {},
      );
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      // The outcome alone once revealed; null with the reason beside it otherwise (pending here).
      const { outcome } = res.json as { outcome: Outcome };
      assert.deepEqual(res.json, outcome === null ? { outcome, reason: 'pending' } : { outcome });
      return outcome;
    }

    interface Holding {
      credential: string;
      key: HolderKey;
    }

    /** A credential collected by the oid4vc-ts issuance wallet from a fresh offer. */
    async function issue(): Promise<Holding> {
      const offer = await call('POST', '/api/offers', { tenant: slug, typeId, subject: SUBJECT }, owner);
      assert.equal(offer.status, 201, offer.text);
      const key = await newHolderKey();
      const credential = await collectWithWallet({ offerUri: String(offer.json.offerUri), holderKey: key, baseUrl: origin });
      return { credential, key };
    }

    const present = (opened: Opened, holding: Holding, overrides?: WalletOverrides): Promise<WalletRun> =>
      presentHolding(holding, opened.requestUri, origin, overrides);

    let holding: Holding;

    before(async () => {
      db = await factory.create();
      rail = await startRail(db);
      origin = await listenOnLoopback(rail);

      const tenant = await call('POST', '/api/tenants', { name: TENANT_NAME }, owner);
      assert.equal(tenant.status, 201, tenant.text);
      slug = String(tenant.json.slug);
      tenantDid = String(tenant.json.did);
      const type = await call('POST', '/api/types', { tenant: slug, name: TYPE_NAME, claims: CLAIMS }, owner);
      assert.equal(type.status, 201, type.text);
      typeId = String(type.json.typeId);
      vct = String(type.json.vct);
      assert.equal(vct, `${PUBLIC_URL}/t/${slug}/types/${typeId}`);

      holding = await issue();
    });

    after(async () => {
      await rail?.stop();
      await db?.drop();
    });

    test('the catalog offers the type with every claim', async () => {
      const res = await call('GET', '/verify/catalog');
      assert.equal(res.status, 200, res.text);
      const types = res.json.types as Array<Record<string, unknown>>;
      const entry = types.find((t) => t.vct === vct);
      assert.deepEqual(entry, {
        id: typeId,
        name: TYPE_NAME,
        vct,
        tenant: slug,
        tenantName: TENANT_NAME,
        claims: Object.keys(SUBJECT),
        claimLabels: {
          holder_name: 'Holder name',
          birth_date: 'Birth date',
          student: 'Student',
          class: 'Class',
          member_number: 'Member number',
        },
      });
    });

    test('happy path: the wallet presents exactly the claims asked for, and the poller gets them', async () => {
      const opened = await open();
      const url = new URL(opened.requestUri);
      assert.equal(url.protocol, 'openid4vp:');
      assert.equal(url.searchParams.get('client_id'), CLIENT_ID);
      assert.equal(url.searchParams.get('request_uri'), `${PUBLIC_URL}/oid4vp/request/${opened.transactionId}`);
      assert.equal(await poll(opened.transactionId, opened.resultToken), null, 'pending: null');

      const run = await present(opened, holding);
      assert.equal(run.status, 200, JSON.stringify(run.body));
      assert.match(String(run.contentType), /^application\/json\b/);
      assert.deepEqual(run.body, {});

      // What the wallet saw and did.
      assert.equal(run.request.client_id, CLIENT_ID);
      assert.equal(run.request.nonce, opened.nonce);
      assert.equal(run.request.response_uri, `${PUBLIC_URL}/oid4vp/response`);
      assert.deepEqual(run.requests, [
        `GET ${PUBLIC_URL}/oid4vp/request/${opened.transactionId}`,
        `GET ${PUBLIC_URL}/.well-known/did.json`,
        `POST ${PUBLIC_URL}/oid4vp/response`,
      ]);
      assert.deepEqual(run.disclosed.sort(), [...ASKED].sort(), 'the DCQL query selected exactly the claims asked for');
      assert.deepEqual(
        disclosuresOf(run.presentation)
          .map((d) => d.name)
          .sort(),
        [...ASKED].sort(),
      );
      const kb = keyBindingOf(run.presentation);
      assert.equal(kb.header.typ, 'kb+jwt');
      assert.equal(kb.payload.aud, CLIENT_ID);
      assert.equal(kb.payload.nonce, opened.nonce);
      assert.deepEqual(Object.keys(run.form).sort(), ['state', 'vp_token']);
      assert.equal(run.form.state, run.request.state);
      assert.deepEqual(JSON.parse(String(run.form.vp_token)), { [run.queryId]: [run.presentation] });

      const outcome = await poll(opened.transactionId, opened.resultToken);
      assert.deepEqual(outcome, {
        ok: true,
        presentation: {
          claims: { holder_name: SUBJECT.holder_name, birth_date: SUBJECT.birth_date, student: SUBJECT.student },
          vct,
          issuer: tenantDid,
        },
        presentedNonce: opened.nonce,
        presentedAud: RP_AUD,
      });
      const text = JSON.stringify(outcome);
      assert.doesNotMatch(text, /cnf|jwk/i, 'no holder key in the outcome');
      assert.ok(!text.includes(String(holding.key.publicJwk.x)), 'not even the key material');

      // A second response to the completed transaction is refused, and changes nothing.
      const again = await run.resubmit();
      assert.ok(again.status >= 400 && again.status < 500, `status ${again.status}`);
      assert.equal((again.body as { error?: string }).error, 'invalid_request', JSON.stringify(again.body));
      assert.deepEqual(await poll(opened.transactionId, opened.resultToken), outcome, 'the outcome is unchanged');
    });

    test('a second response to a failed transaction is refused too; the failure stays', async () => {
      const opened = await open();
      const run = await present(opened, holding, { nonce: freshNonce() });
      assert.equal(run.status, 400);
      const outcome = await poll(opened.transactionId, opened.resultToken);
      assert.equal(outcome?.error, 'nonce_mismatch');
      const again = await run.resubmit();
      assert.equal(again.status, 400);
      assert.equal((again.body as { error?: string }).error, 'invalid_request', JSON.stringify(again.body));
      assert.deepEqual(await poll(opened.transactionId, opened.resultToken), outcome);
    });

    test('the request object: re-fetchable, signed by the platform DID, with the DCQL query', async () => {
      const claims = ['holder_name', 'class', 'member_number'];
      const opened = await open(claims);
      assert.ok(!opened.requestUri.includes(opened.resultToken), 'the request URI never carries the result token');
      assert.ok(!decodeURIComponent(opened.requestUri).includes(opened.resultToken));
      const url = new URL(opened.requestUri);
      const requestUri = String(url.searchParams.get('request_uri'));
      assert.ok(requestUri.startsWith(`${PUBLIC_URL}/`));
      const path = requestUri.slice(PUBLIC_URL.length);
      assert.equal(path, `/oid4vp/request/${opened.transactionId}`);

      const platform = await call('GET', '/.well-known/did.json');
      assert.equal(platform.status, 200, platform.text);
      assert.equal(platform.json.id, PLATFORM_DID);
      const methods = platform.json.verificationMethod as VerificationMethod[];

      const payloads: Array<Record<string, unknown>> = [];
      for (const attempt of [1, 2]) {
        const res = await call('GET', path, undefined, { accept: 'application/oauth-authz-req+jwt' });
        assert.equal(res.status, 200, `fetch ${attempt}: ${res.text}`);
        assert.equal(res.headers.get('content-type'), 'application/oauth-authz-req+jwt', `fetch ${attempt}`);
        assert.equal(res.headers.get('cache-control'), 'no-store');
        const jwt = res.text;
        assert.ok(!jwt.includes(opened.resultToken));
        const header = decodeProtectedHeader(jwt);
        assert.equal(header.typ, 'oauth-authz-req+jwt');
        assert.equal(header.alg, 'ES256');
        assert.ok(String(header.kid).startsWith(`${PLATFORM_DID}#`), `kid ${header.kid} is a DID URL of the platform`);
        const method = methods.find((m) => m.id === header.kid);
        assert.ok(method, 'the kid is a verificationMethod of the platform DID document');
        assert.ok((platform.json.authentication as string[]).includes(method.id), 'an authentication key signs requests');
        const { payload } = await jwtVerify(jwt, await importJWK(method.publicKeyJwk, 'ES256'), {
          algorithms: ['ES256'],
          typ: 'oauth-authz-req+jwt',
        });
        assert.deepEqual(decodeJwt(jwt), payload);
        payloads.push(payload as Record<string, unknown>);
      }
      for (const payload of payloads) {
        assert.equal(payload.response_type, 'vp_token');
        assert.equal(payload.response_mode, 'direct_post');
        assert.equal(payload.response_uri, `${PUBLIC_URL}/oid4vp/response`);
        assert.equal(payload.nonce, opened.nonce);
        assert.equal(payload.client_id, url.searchParams.get('client_id'));
        assert.equal(payload.client_id, CLIENT_ID);
        assert.equal(payload.aud, 'https://self-issued.me/v2');
        assert.equal(typeof payload.state, 'string');
        assert.ok(String(payload.state).length >= 22, 'state carries at least 128 bits');
        assert.ok(!String(payload.state).includes(opened.transactionId));
        assert.equal(payload.client_id_scheme, undefined, 'removed in OID4VP 1.0');
        assert.equal(payload.presentation_definition, undefined);
        assert.equal(payload.redirect_uri, undefined);
        assert.ok(typeof payload.exp === 'number' && payload.exp * 1000 <= Date.parse(opened.expiresAt) + 1000);
        const query = payload.dcql_query as { credentials: Array<Record<string, unknown>> };
        assert.equal(query.credentials.length, 1);
        const [credentialQuery] = query.credentials;
        assert.ok(credentialQuery);
        assert.equal(credentialQuery.format, 'dc+sd-jwt');
        assert.deepEqual(credentialQuery.meta, { vct_values: [vct] });
        assert.match(String(credentialQuery.id), /^[A-Za-z0-9_-]+$/);
        assert.deepEqual(
          credentialQuery.claims,
          claims.map((c) => ({ path: [c] })),
        );
      }
      const [first, second] = payloads;
      assert.equal(first?.state, second?.state, 'the same transaction each time');
      assert.deepEqual(first?.dcql_query, second?.dcql_query);

      // An unknown transaction has no request object.
      const unknown = await call('GET', `/oid4vp/request/vtx_${randomBytes(16).toString('base64url')}`);
      assert.equal(unknown.status, 404);
      assert.equal(unknown.json.error, 'unknown_transaction');
    });

    /** Each negative case: a fresh transaction, a 4xx at the response_uri, and the same failure for the poller. */
    async function assertRefused(
      holdingUsed: Holding,
      overrides: WalletOverrides,
      expected: { error: string; link: string },
    ): Promise<WalletRun> {
      const opened = await open();
      const run = await present(opened, holdingUsed, overrides);
      assert.ok(run.status >= 400 && run.status < 500, `status ${run.status}: ${JSON.stringify(run.body)}`);
      assert.match(String(run.contentType), /^application\/json\b/);
      const body = run.body as Record<string, unknown>;
      assert.equal(body.error, expected.error, JSON.stringify(body));
      const outcome = await poll(opened.transactionId, opened.resultToken);
      assert.ok(outcome, 'the transaction completed');
      assert.equal(outcome.ok, false, JSON.stringify(outcome));
      assert.equal(outcome.error, expected.error, JSON.stringify(outcome));
      assert.equal(outcome.link, expected.link, JSON.stringify(outcome));
      assert.equal(typeof outcome.detail, 'string');
      assert.deepEqual(Object.keys(outcome).sort(), ['detail', 'error', 'link', 'ok']);
      // The detail may name cnf.jwk as a concept, but no key leaves the service.
      for (const key of [holdingUsed.key, overrides.kbKey]) {
        if (key) assert.ok(!JSON.stringify(outcome).includes(String(key.publicJwk.x)), 'no holder key in the outcome');
      }
      return run;
    }

    test('a KB-JWT with another nonce: nonce_mismatch (freshness)', async () => {
      const run = await assertRefused(holding, { nonce: freshNonce() }, { error: 'nonce_mismatch', link: 'freshness' });
      assert.notEqual(keyBindingOf(run.presentation).payload.nonce, run.request.nonce);
    });

    test('a KB-JWT for another audience: audience_mismatch (audience)', async () => {
      const run = await assertRefused(
        holding,
        { aud: 'decentralized_identifier:did:web:other-verifier.example.test' },
        { error: 'audience_mismatch', link: 'audience' },
      );
      assert.equal(keyBindingOf(run.presentation).payload.aud, 'decentralized_identifier:did:web:other-verifier.example.test');
    });

    test('a disclosure replaced by one of another value: unreferenced_disclosure (disclosures)', async () => {
      const run = await assertRefused(
        holding,
        { tamper: replaceDisclosure('holder_name', 'Mallory') },
        { error: 'unreferenced_disclosure', link: 'disclosures' },
      );
      assert.equal(disclosuresOf(run.presentation).find((d) => d.name === 'holder_name')?.value, 'Mallory');
    });

    test('a KB-JWT issued 365 days ago: key_binding_not_fresh (freshness)', async () => {
      const iat = Math.floor(Date.now() / 1000) - 365 * DAY_S;
      const run = await assertRefused(holding, { iat }, { error: 'key_binding_not_fresh', link: 'freshness' });
      assert.equal(keyBindingOf(run.presentation).payload.iat, iat);
    });

    test('a KB-JWT issued 365 days from now: key_binding_not_fresh (freshness)', async () => {
      const iat = Math.floor(Date.now() / 1000) + 365 * DAY_S;
      const run = await assertRefused(holding, { iat }, { error: 'key_binding_not_fresh', link: 'freshness' });
      assert.equal(keyBindingOf(run.presentation).payload.iat, iat);
    });

    test("a stolen credential: holder A's credential with a KB-JWT by holder B is key_binding_invalid (holder_binding)", async () => {
      const thief = await issue();
      assert.notEqual(thief.key.publicJwk.x, holding.key.publicJwk.x);
      await assertRefused(holding, { kbKey: thief.key }, { error: 'key_binding_invalid', link: 'holder_binding' });
    });

    test('a revoked credential: credential_revoked (revocation); another credential still verifies', async () => {
      const revoked = await issue();
      const status = credentialPayload(revoked.credential).status as { status_list: { uri: string; idx: number } };
      const res = await call('POST', '/api/revoke', { tenant: slug, status: status.status_list }, owner);
      assert.equal(res.status, 200, res.text);
      assert.equal((res.json.revoked as unknown[]).length, 1);
      await assertRefused(revoked, {}, { error: 'credential_revoked', link: 'revocation' });

      const opened = await open();
      const run = await present(opened, holding);
      assert.equal(run.status, 200, JSON.stringify(run.body));
      assert.equal((await poll(opened.transactionId, opened.resultToken))?.ok, true);
    });

    test('a request for no claims: the DCQL query has none, and the outcome has empty claims', async () => {
      const opened = await open([]);
      const run = await present(opened, holding);
      const query = (run.request.dcql_query as { credentials: Array<Record<string, unknown>> }).credentials[0];
      assert.equal(query?.claims, undefined, 'claims is omitted when none are asked for');
      assert.deepEqual(run.disclosed, [], 'dcql selects no claim: only the mandatory parts are presented');
      assert.deepEqual(disclosuresOf(run.presentation), []);
      assert.equal(run.status, 200, JSON.stringify(run.body));
      const outcome = await poll(opened.transactionId, opened.resultToken);
      assert.deepEqual(outcome, {
        ok: true,
        presentation: { claims: {}, vct, issuer: tenantDid },
        presentedNonce: opened.nonce,
        presentedAud: RP_AUD,
      });
    });

    test('surplus disclosures are dropped: the outcome has exactly the claims asked for', async () => {
      const opened = await open(['member_number']);
      const run = await present(opened, holding, { disclose: Object.keys(SUBJECT) });
      assert.equal(disclosuresOf(run.presentation).length, Object.keys(SUBJECT).length);
      assert.equal(run.status, 200, JSON.stringify(run.body));
      const outcome = await poll(opened.transactionId, opened.resultToken);
      assert.deepEqual((outcome?.presentation as { claims: unknown }).claims, { member_number: SUBJECT.member_number });
    });

    test("a wallet's own error response completes the transaction as wallet_error (wallet)", async () => {
      const opened = await open();
      const jwt = await call('GET', `/oid4vp/request/${opened.transactionId}`);
      const state = String(decodeJwt(jwt.text).state);
      const form = new URLSearchParams({ error: 'access_denied', error_description: 'The holder declined.', state });
      const res = await fetch(`${origin}/oid4vp/response`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
      });
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as { error: string }).error, 'wallet_error');
      const outcome = await poll(opened.transactionId, opened.resultToken);
      assert.equal(outcome?.ok, false);
      assert.equal(outcome?.error, 'wallet_error');
      assert.equal(outcome?.link, 'wallet');
      assert.match(String(outcome?.detail), /access_denied/);

      // Too late for the holder to change their mind.
      const run = await present(opened, holding);
      assert.equal(run.status, 400);
      assert.equal((run.body as { error?: string }).error, 'invalid_request');
    });

    test("polling: no token, a wrong token, another transaction's token and an unknown id are 200 with outcome null and a reason, never the outcome", async () => {
      const opened = await open();
      const other = await open();
      const unknownId = `vtx_${randomBytes(16).toString('base64url')}`;
      const withheld = async (transactionId: string, headers: Record<string, string>, reason: string, why: string) => {
        const res = await call('GET', `/verify/result/${transactionId}`, undefined, headers);
        assert.equal(res.status, 200, `${why}: ${res.text}`);
        assert.deepEqual(res.json, { outcome: null, reason }, why);
        assert.equal(res.headers.get('access-control-allow-origin'), '*', `${why}: a relying party's page can read the reason`);
      };
      const bearerOf = (token: string) => ({ authorization: `Bearer ${token}` });
      const pending = async () => {
        await withheld(opened.transactionId, {}, 'result_token_required', 'no token');
        await withheld(
          opened.transactionId,
          bearerOf(`vrt_${randomBytes(32).toString('base64url')}`),
          'wrong_result_token',
          'wrong token',
        );
        await withheld(opened.transactionId, bearerOf(other.resultToken), 'wrong_result_token', "another transaction's token");
        await withheld(unknownId, bearerOf(opened.resultToken), 'unknown_transaction', 'unknown transaction');
        await withheld('nonsense', bearerOf(opened.resultToken), 'unknown_transaction', 'not even a transaction id');
        // The token only counts as a Bearer token.
        await withheld(opened.transactionId, { authorization: `Basic ${opened.resultToken}` }, 'result_token_required', 'Basic');
      };
      await pending();
      assert.equal(await poll(opened.transactionId, opened.resultToken), null, 'pending, with the right token: null');

      const run = await present(opened, holding);
      assert.equal(run.status, 200, JSON.stringify(run.body));
      await pending();
      assert.equal((await poll(opened.transactionId, opened.resultToken))?.ok, true, 'complete, with the right token');
      assert.equal(await poll(other.transactionId, other.resultToken), null, 'the other one is still pending');
    });
  });
}
