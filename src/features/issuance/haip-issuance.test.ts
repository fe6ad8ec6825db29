/**
 * HAIP 1.0 issuance over real HTTP (docs/haip.md, "Issuance"), with the oid4vc-ts clients as the
 * independent wallet (@openid4vc/oauth2 and @openid4vc/openid4vci; test/helpers/haip-wallet.ts):
 * PAR with PKCE S256 and the wallet attestation, the holder's approval in the browser, the code
 * back with RFC 9207 `iss`, the token with DPoP (and its server nonce) and the attestation again,
 * and a credential with x5c for a DPoP-bound token. Three ways the issuer approves: the holder at
 * a demonstration tenant, an offer's issuer_state, and the issuer's sign-in hook.
 *
 * The negative cases mirror the HAIP issuer plan's modules that apply: wallet attestation faults
 * (bad signature, bad proof of possession signature, exp in the past, no sub, proof for another
 * audience, proof by another key, an untrusted chain, a self-made attestation), DPoP faults (none,
 * no nonce, another key, another request, a Bearer use of a DPoP-bound token), a PKCE mismatch, a
 * replayed request_uri, a code redeemed twice, and the token in the query. Each refusal changes
 * nothing: the request, code or token it names still works afterwards where it should.
 */
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { COSEKey, parseIssuerSigned } from '@animo-id/mdoc';
import { decodeJwt } from 'jose';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import {
  approvalForm,
  collectAfterAuthorization,
  type HaipWallet,
  HolderBrowser,
  newHaipWallet,
  newWalletProvider,
  REDIRECT_URI,
  returnLink,
  type WalletProvider,
} from '../../../test/helpers/haip-wallet.ts';
import { CARD_CLAIMS, CARD_SUBJECT } from '../../../test/helpers/issuance.ts';
import { publicOnly } from '../../../test/helpers/oid4vp-wallet.ts';
import { jsonCaller, listenOnLoopback, owner, PUBLIC_URL, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import { rowCount } from '../../../test/helpers/refusals.ts';
import { softhsmMissing, softToken } from '../../../test/helpers/softhsm.ts';
import { verifyByX5c } from '../../../test/helpers/x5c.ts';

const DEMO = 'demo-transit';
const DEMO_TYPE = 'transit-pass';

/**
 * Where the rail keeps its keys: sealed, and (where SoftHSM is, always in CI) in a PKCS#11 token,
 * so that the x5c chains are also made by a platform root and signing keys in the token
 * (docs/keys.md). One token for the file: SoftHSM is configured once per process.
 */
const token = softhsmMissing() === undefined ? softToken('openrail-haip') : undefined;
const KEY_BACKENDS: Array<{ name: string; env: Record<string, string> }> = [
  { name: 'sealed', env: {} },
  ...(token ? [{ name: 'pkcs11', env: token.env }] : []),
];
after(() => token?.remove());

for (const [factory, keys] of testDatabases().flatMap((f) => KEY_BACKENDS.map((k) => [f, k] as const))) {
  describe(`HAIP 1.0 issuance: PAR, PKCE, wallet attestation, DPoP (${factory.name}, keys ${keys.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let origin: string;
    let provider: WalletProvider;
    let railAnchorPem: string;

    const call = jsonCaller(() => origin);
    const form = async (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) => {
      const res = await fetch(`${origin}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(fields).toString(),
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, json: JSON.parse(text) as Record<string, unknown> };
    };
    const requests = () => rowCount(rail.db, 'authorization_requests');
    const issuerOf = (slug: string) => `${PUBLIC_URL}/t/${slug}`;

    before(async () => {
      provider = await newWalletProvider();
      db = await factory.create();
      rail = await startRail(db, { OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE: provider.anchorFile, ...keys.env });
      origin = await listenOnLoopback(rail);
      railAnchorPem = (await call('GET', '/.well-known/openrail-ca.pem')).text;
    });
    after(async () => {
      await rail?.stop();
      await db?.drop();
    });

    /** PAR and the authorization URL through oid4vc-ts, for a scope or an offer. */
    async function authorize(wallet: HaipWallet, slug: string, o: { scope?: string; offer?: unknown; state?: string } = {}) {
      const issuerMetadata = await wallet.vci.resolveIssuerMetadata(issuerOf(slug));
      const asMetadata = issuerMetadata.authorizationServers[0];
      assert.ok(asMetadata);
      const dpop = { signer: { method: 'jwk' as const, alg: 'ES256' as const, publicJwk: publicOnly(wallet.dpopKey.publicJwk) } };
      const started = o.offer
        ? await wallet.vci.createAuthorizationRequestUrlFromOffer({
            clientId: wallet.clientId,
            issuerMetadata,
            credentialOffer: o.offer as never,
            redirectUri: REDIRECT_URI,
            state: o.state ?? 'state-1',
            dpop,
          })
        : await wallet.oauth.createAuthorizationRequestUrl({
            authorizationServerMetadata: asMetadata,
            clientId: wallet.clientId,
            scope: o.scope,
            redirectUri: REDIRECT_URI,
            state: o.state ?? 'state-1',
            dpop,
          });
      assert.ok(started.pkce, 'PKCE is used: the metadata lists S256');
      return { ...started, asMetadata, issuerMetadata, dpop };
    }

    /** The code from the wallet's redirect_uri, with its state and iss checked by the library. */
    function codeFrom(
      wallet: HaipWallet,
      location: string,
      asMetadata: Parameters<HaipWallet['oauth']['verifyAuthorizationResponse']>[0]['authorizationServerMetadata'],
      state: string | null = 'state-1',
    ) {
      assert.ok(location.startsWith(`${REDIRECT_URI}?`), location);
      const response = wallet.oauth.parseAuthorizationResponseRedirectUrl({ url: location });
      // RFC 9207: the library checks that iss is the authorization server's issuer.
      wallet.oauth.verifyAuthorizationResponse({ authorizationResponse: response, authorizationServerMetadata: asMetadata });
      assert.equal(response.state ?? null, state, 'the state the wallet pushed comes back');
      assert.ok(response.code, `a code in ${location}`);
      return response.code as string;
    }

    /** A whole demonstration-tenant flow up to the code; the browser approves on the page. */
    async function demoCode(wallet: HaipWallet) {
      const started = await authorize(wallet, DEMO, { scope: DEMO_TYPE });
      const browser = new HolderBrowser(origin);
      const page = await browser.get(started.authorizationRequestUrl);
      assert.equal(page.status, 200, page.text);
      const approval = approvalForm(page.text);
      const answer = await browser.post(approval.action, { authorization: approval.authorization, decision: 'approve' });
      assert.equal(answer.status, 200, answer.text);
      return { ...started, code: codeFrom(wallet, returnLink(answer.text), started.asMetadata) };
    }

    test('metadata: the authorization server of a tenant with HAIP issuance lists PAR, S256, iss, DPoP and attestation; every configuration has a scope', async () => {
      const as = await call('GET', `/.well-known/oauth-authorization-server/t/${DEMO}`);
      assert.equal(as.status, 200);
      assert.equal(as.json.pushed_authorization_request_endpoint, `${issuerOf(DEMO)}/par`);
      assert.equal(as.json.authorization_endpoint, `${issuerOf(DEMO)}/authorize`);
      assert.equal(as.json.require_pushed_authorization_requests, true);
      assert.deepEqual(as.json.code_challenge_methods_supported, ['S256']);
      assert.deepEqual(as.json.dpop_signing_alg_values_supported, ['ES256']);
      assert.equal(as.json.authorization_response_iss_parameter_supported, true);
      assert.ok(as.json.token_endpoint_auth_methods_supported.includes('attest_jwt_client_auth'));
      assert.deepEqual(as.json.authorization_details_types_supported, ['openid_credential']);
      const md = await call('GET', `/.well-known/openid-credential-issuer/t/${DEMO}`);
      for (const [id, configuration] of Object.entries(
        md.json.credential_configurations_supported as Record<string, { scope?: string }>,
      )) {
        assert.equal(configuration.scope, id, `${id} has a scope`);
      }
      // A tenant without HAIP issuance keeps the interface's metadata: no authorization endpoint.
      const tenant = await call('POST', '/api/tenants', { name: 'Plain Issuer' }, owner);
      const plain = await call('GET', `/.well-known/oauth-authorization-server/t/${tenant.json.slug}`);
      assert.equal(plain.json.authorization_endpoint, undefined);
      assert.deepEqual(plain.json.grant_types_supported, ['urn:ietf:params:oauth:grant-type:pre-authorized_code']);
    });

    test('the demonstration tenant: PAR → approval page → code with iss → DPoP token (nonce retried) → credential with x5c, bound to the holder key', async () => {
      const wallet = await newHaipWallet(provider, origin);
      const flow = await demoCode(wallet);
      const { credential, tokenType } = await collectAfterAuthorization(wallet, {
        issuer: issuerOf(DEMO),
        authorizationCode: flow.code,
        pkceCodeVerifier: flow.pkce?.codeVerifier as string,
        dpop: flow.dpop,
        credentialConfigurationId: DEMO_TYPE,
      });
      assert.equal(tokenType, 'DPoP');
      const jwt = credential.slice(0, credential.indexOf('~'));
      const payload = await verifyByX5c(jwt, railAnchorPem);
      assert.deepEqual(payload.cnf, { jwk: publicOnly(wallet.holderKey.publicJwk) });
      assert.equal(payload.vct, `${issuerOf(DEMO)}/types/${DEMO_TYPE}`);
    });

    test('an offer’s issuer_state: the holder approves the offer the tenant made, and gets its subject', async () => {
      const tenant = await call('POST', '/api/tenants', { name: 'Offer Issuer' }, owner);
      const slug = tenant.json.slug as string;
      const settings = await call('POST', '/api/tenants/authorization-flow', { tenant: slug, haipIssuance: true }, owner);
      assert.deepEqual(settings.json, { tenant: slug, haipIssuance: true, signInUrl: null });
      const type = await call('POST', '/api/types', { tenant: slug, name: 'Library Card', claims: CARD_CLAIMS }, owner);
      const made = await call('POST', '/api/offers', { tenant: slug, typeId: type.json.typeId, subject: CARD_SUBJECT }, owner);
      const offer = JSON.parse(decodeURIComponent(String(made.json.offerUri).split('credential_offer=')[1] as string));
      const preAuthorized = offer.grants['urn:ietf:params:oauth:grant-type:pre-authorized_code']['pre-authorized_code'];
      assert.deepEqual(offer.grants.authorization_code, { issuer_state: preAuthorized });

      const wallet = await newHaipWallet(provider, origin);
      const started = await authorize(wallet, slug, { offer });
      const browser = new HolderBrowser(origin);
      const page = await browser.get(started.authorizationRequestUrl);
      assert.equal(page.status, 200);
      assert.match(page.text, /Library Card/);
      assert.doesNotMatch(page.text, /demonstration issuer/);
      const approval = approvalForm(page.text);
      const answer = await browser.post(approval.action, { authorization: approval.authorization, decision: 'approve' });
      // oid4vc-ts pushes no state for a request made from an offer.
      const code = codeFrom(wallet, returnLink(answer.text), started.asMetadata, null);
      const { credential } = await collectAfterAuthorization(wallet, {
        issuer: issuerOf(slug),
        authorizationCode: code,
        pkceCodeVerifier: started.pkce?.codeVerifier as string,
        dpop: started.dpop,
        credentialConfigurationId: String(type.json.typeId),
      });
      const disclosed = credential
        .split('~')
        .slice(1, -1)
        .map((d) => JSON.parse(Buffer.from(d, 'base64url').toString()) as unknown[]);
      assert.ok(
        disclosed.some((d) => d[1] === 'holder_name' && d[2] === CARD_SUBJECT.holder_name),
        'the offer’s subject',
      );
      // The offer was spent by this flow: its pre-authorized code no longer redeems.
      const again = await form(`/t/${slug}/token`, {
        grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
        'pre-authorized_code': preAuthorized,
      });
      assert.equal(again.status, 400);
      assert.equal(again.json.error, 'invalid_grant');
    });

    test('an offer of a type in two formats: the wallet asks for both configurations and collects the mdoc (docs/mdoc.md)', async () => {
      const tenant = await call('POST', '/api/tenants', { name: 'Mdoc Offer Issuer' }, owner);
      const slug = tenant.json.slug as string;
      await call('POST', '/api/tenants/authorization-flow', { tenant: slug, haipIssuance: true }, owner);
      const doctype = 'org.example.library.card';
      const type = await call(
        'POST',
        '/api/types',
        { tenant: slug, name: 'Library Card', claims: CARD_CLAIMS, mdoc: { doctype } },
        owner,
      );
      assert.equal(type.status, 201, type.text);
      const made = await call('POST', '/api/offers', { tenant: slug, typeId: type.json.typeId, subject: CARD_SUBJECT }, owner);
      const offer = JSON.parse(decodeURIComponent(String(made.json.offerUri).split('credential_offer=')[1] as string));
      assert.deepEqual(offer.credential_configuration_ids, ['library-card', 'library-card.mdoc']);

      const wallet = await newHaipWallet(provider, origin);
      const started = await authorize(wallet, slug, { offer });
      const browser = new HolderBrowser(origin);
      const page = await browser.get(started.authorizationRequestUrl);
      assert.equal(page.status, 200, page.text);
      const approval = approvalForm(page.text);
      const answer = await browser.post(approval.action, { authorization: approval.authorization, decision: 'approve' });
      const code = codeFrom(wallet, returnLink(answer.text), started.asMetadata, null);
      const { credential, tokenType } = await collectAfterAuthorization(wallet, {
        issuer: issuerOf(slug),
        authorizationCode: code,
        pkceCodeVerifier: started.pkce?.codeVerifier as string,
        dpop: started.dpop,
        credentialConfigurationId: 'library-card.mdoc',
      });
      assert.equal(tokenType, 'DPoP');
      const document = parseIssuerSigned(Buffer.from(credential, 'base64url'), doctype);
      assert.equal(document.issuerSigned.issuerAuth.decodedPayload.docType, doctype);
      const deviceKey = COSEKey.import(document.issuerSigned.issuerAuth.decodedPayload.deviceKeyInfo?.deviceKey as never).toJWK();
      assert.deepEqual(publicOnly(deviceKey as never), publicOnly(wallet.holderKey.publicJwk), 'the mdoc binds the proof’s key');
      // Its chain leads to the platform's anchor, as Node's OpenSSL reads it.
      const [leaf] = document.issuerSigned.issuerAuth.certificateChain;
      assert.ok(
        new X509Certificate(leaf).verify(new X509Certificate(railAnchorPem).publicKey),
        'the leaf is signed by the anchor',
      );
      assert.equal(document.getIssuerNameSpace(doctype)?.get('holder_name'), CARD_SUBJECT.holder_name);
    });

    /** A tenant with a sign-in hook and a type; a wallet's request opened in `browser`: the hook's authorization id. */
    async function hookRequest(name: string, browser: HolderBrowser) {
      const tenant = await call('POST', '/api/tenants', { name }, owner);
      const slug = tenant.json.slug as string;
      const hook = 'https://login.hook-issuer.example/wallet';
      const set = await call(
        'POST',
        '/api/tenants/authorization-flow',
        { tenant: slug, haipIssuance: true, signInUrl: hook },
        owner,
      );
      assert.equal(set.status, 200, set.text);
      const type = await call('POST', '/api/types', { tenant: slug, name: 'Member Card', claims: CARD_CLAIMS }, owner);
      const wallet = await newHaipWallet(provider, origin);
      const started = await authorize(wallet, slug, { scope: String(type.json.typeId) });
      const opened = await browser.get(started.authorizationRequestUrl);
      assert.equal(opened.status, 303);
      const location = new URL(opened.location as string);
      assert.equal(`${location.origin}${location.pathname}`, hook);
      const id = location.searchParams.get('authorization') as string;
      assert.match(id, /^azr_/);
      return { slug, typeId: String(type.json.typeId), wallet, started, id };
    }

    test('the issuer’s sign-in hook: the browser goes to the hook, the issuer approves with a subject, the browser continues with the approval’s secret', async () => {
      const browser = new HolderBrowser(origin);
      const { slug, typeId, wallet, started, id } = await hookRequest('Hook Issuer', browser);
      const early = await browser.get(`${issuerOf(slug)}/authorize/continue?authorization=${id}&continuation=${'A'.repeat(43)}`);
      assert.equal(early.status, 409, 'not approved yet');
      const approved = await call('POST', `/api/tenants/${slug}/authorizations/${id}/approve`, { subject: CARD_SUBJECT }, owner);
      assert.equal(approved.status, 200, approved.text);
      const continueUrl = String(approved.json.continueUrl);
      assert.ok(continueUrl.startsWith(`${issuerOf(slug)}/authorize/continue?authorization=${id}&continuation=`));
      const twice = await call('POST', `/api/tenants/${slug}/authorizations/${id}/approve`, { subject: CARD_SUBJECT }, owner);
      assert.equal(twice.status, 410, 'approved once');
      const guessed = await browser.get(
        `${issuerOf(slug)}/authorize/continue?authorization=${id}&continuation=${'B'.repeat(43)}`,
      );
      assert.equal(guessed.status, 410, 'a wrong secret is refused and ends nothing');

      const back = await browser.get(continueUrl);
      assert.equal(back.status, 303);
      const code = codeFrom(wallet, back.location as string, started.asMetadata);
      const { credential } = await collectAfterAuthorization(wallet, {
        issuer: issuerOf(slug),
        authorizationCode: code,
        pkceCodeVerifier: started.pkce?.codeVerifier as string,
        dpop: started.dpop,
        credentialConfigurationId: typeId,
      });
      assert.ok(credential.includes('~'));
    });

    test('session fixation through the hook: the holder signs in on a request someone else opened; it ends, and the opener never gets a code', async () => {
      const attacker = new HolderBrowser(origin);
      const { slug, id } = await hookRequest('Fixation Issuer', attacker);
      // The victim follows the attacker's link to the real sign-in; the issuer approves with the victim's subject.
      const approved = await call('POST', `/api/tenants/${slug}/authorizations/${id}/approve`, { subject: CARD_SUBJECT }, owner);
      const continueUrl = String(approved.json.continueUrl);
      const victim = new HolderBrowser(origin);
      const victimBack = await victim.get(continueUrl);
      assert.equal(victimBack.status, 410);
      assert.match(victimBack.text, /opened in another browser/);
      // The attacker's browser holds the opening cookie, but the request is over (and its offer withdrawn).
      assert.equal((await attacker.get(continueUrl)).status, 410);
      const offer = await rail.db
        .selectFrom('offers')
        .select(['expires_at', 'redeemed_at'])
        .where('id', '=', String(approved.json.offerId))
        .executeTakeFirstOrThrow();
      assert.equal(offer.redeemed_at, null);
      assert.ok(Number(offer.expires_at) <= Date.now(), 'the offer made at the approval is withdrawn');
    });

    test('a sign-in hook the URL parser cannot read, or that is not https, is refused when it is set', async () => {
      const tenant = await call('POST', '/api/tenants', { name: 'Bad Hook' }, owner);
      for (const signInUrl of ['https://[x', 'https://login.example/#frag']) {
        const res = await call('POST', '/api/tenants/authorization-flow', { tenant: tenant.json.slug, signInUrl }, owner);
        assert.equal(res.status, 400, signInUrl);
        assert.equal(res.json.error, 'invalid_request');
      }
    });

    test('the holder declines: the wallet is told access_denied with state and iss, and nothing is issued', async () => {
      const wallet = await newHaipWallet(provider, origin);
      const started = await authorize(wallet, DEMO, { scope: DEMO_TYPE });
      const browser = new HolderBrowser(origin);
      const approval = approvalForm((await browser.get(started.authorizationRequestUrl)).text);
      const answer = await browser.post(approval.action, { authorization: approval.authorization, decision: 'decline' });
      const back = new URL(returnLink(answer.text));
      assert.equal(back.searchParams.get('error'), 'access_denied');
      assert.equal(back.searchParams.get('state'), 'state-1');
      assert.equal(back.searchParams.get('iss'), issuerOf(DEMO));
      const late = await browser.post(approval.action, { authorization: approval.authorization, decision: 'approve' });
      assert.equal(late.status, 410, 'a declined request is over');
    });

    describe('refusals: each changes nothing', () => {
      const par = `/t/${DEMO}/par`;
      const aud = issuerOf(DEMO);
      const parForm = (wallet: HaipWallet, over: Record<string, string> = {}) => ({
        response_type: 'code',
        client_id: wallet.clientId,
        scope: DEMO_TYPE,
        code_challenge: createHash('sha256').update('verifier-verifier-verifier-verifier-verifier').digest('base64url'),
        code_challenge_method: 'S256',
        redirect_uri: REDIRECT_URI,
        state: 'state-1',
        ...over,
      });

      const token = `/t/${DEMO}/token`;
      const htu = `${issuerOf(DEMO)}/token`;
      /** The token request that redeems a demonstration code, as the wallet sends it. */
      const tokenRequest = (flow: { code: string; pkce?: { codeVerifier: string } }) => ({
        grant_type: 'authorization_code',
        code: flow.code,
        code_verifier: flow.pkce?.codeVerifier as string,
        redirect_uri: REDIRECT_URI,
      });

      const attestationFaults: Array<[string, (w: HaipWallet) => Promise<Record<string, string>>]> = [
        ['no attestation', async () => ({})],
        [
          'an attestation with a bad signature',
          async (w) => {
            const jwt = await w.attestation();
            const [h, p, s] = jwt.split('.');
            const broken = `${h}.${p}.${(s as string).slice(0, -4)}${(s as string).endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
            return { 'oauth-client-attestation': broken, 'oauth-client-attestation-pop': await w.pop(aud) };
          },
        ],
        [
          'a proof of possession with a bad signature',
          async (w) => {
            const pop = await w.pop(aud);
            const [h, p, s] = pop.split('.');
            const broken = `${h}.${p}.${(s as string).slice(0, -4)}${(s as string).endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
            return { 'oauth-client-attestation': await w.attestation(), 'oauth-client-attestation-pop': broken };
          },
        ],
        [
          'an attestation whose exp is past',
          async (w) => ({
            'oauth-client-attestation': await w.attestation({ payload: { exp: Math.floor(Date.now() / 1000) - 60 } }),
            'oauth-client-attestation-pop': await w.pop(aud),
          }),
        ],
        [
          'an attestation without sub',
          async (w) => ({
            'oauth-client-attestation': await w.attestation({ payload: { sub: undefined } }),
            'oauth-client-attestation-pop': await w.pop(aud),
          }),
        ],
        [
          'a proof of possession for another audience',
          async (w) => ({
            'oauth-client-attestation': await w.attestation(),
            'oauth-client-attestation-pop': await w.pop('https://other-issuer.example'),
          }),
        ],
        [
          'a proof of possession by another key than the attested one',
          async (w) => ({
            'oauth-client-attestation': await w.attestation(),
            'oauth-client-attestation-pop': await w.pop(aud, { key: w.dpopKey }),
          }),
        ],
        [
          'an attestation chained to an untrusted provider',
          async (w) => ({
            'oauth-client-attestation': await w.attestation({ signer: 'stranger' }),
            'oauth-client-attestation-pop': await w.pop(aud),
          }),
        ],
        [
          'a self-made attestation naming its own key',
          async (w) => ({
            'oauth-client-attestation': await w.attestation({ signer: 'self' }),
            'oauth-client-attestation-pop': await w.pop(aud),
          }),
        ],
        [
          'a proof of possession whose exp is past',
          async (w) => ({
            'oauth-client-attestation': await w.attestation(),
            'oauth-client-attestation-pop': await w.pop(aud, { payload: { exp: Math.floor(Date.now() / 1000) - 60 } }),
          }),
        ],
        [
          'a stale proof of possession without exp',
          async (w) => ({
            'oauth-client-attestation': await w.attestation(),
            'oauth-client-attestation-pop': await w.pop(aud, {
              payload: { iat: Math.floor(Date.now() / 1000) - 3600, exp: undefined },
            }),
          }),
        ],
        [
          'a proof of possession without jti',
          async (w) => ({
            'oauth-client-attestation': await w.attestation(),
            'oauth-client-attestation-pop': await w.pop(aud, { payload: { jti: undefined, exp: undefined } }),
          }),
        ],
        [
          'a proof of possession without iat',
          async (w) => ({
            'oauth-client-attestation': await w.attestation(),
            'oauth-client-attestation-pop': await w.pop(aud, { payload: { iat: undefined, exp: undefined } }),
          }),
        ],
        [
          'a proof of possession naming another client in iss',
          async (w) => ({
            'oauth-client-attestation': await w.attestation(),
            'oauth-client-attestation-pop': await w.pop(aud, { payload: { iss: 'someone-else' } }),
          }),
        ],
        [
          'a proof of possession without aud',
          async (w) => ({
            'oauth-client-attestation': await w.attestation(),
            'oauth-client-attestation-pop': await w.pop(aud, { payload: { aud: undefined, exp: undefined } }),
          }),
        ],
        [
          'a stale proof of possession',
          async (w) => ({
            'oauth-client-attestation': await w.attestation(),
            'oauth-client-attestation-pop': await w.pop(aud, {
              payload: { iat: Math.floor(Date.now() / 1000) - 3600, exp: Math.floor(Date.now() / 1000) + 60 },
            }),
          }),
        ],
      ];
      for (const [name, headers] of attestationFaults) {
        test(`PAR with ${name}: 401 invalid_client, nothing stored`, async () => {
          const wallet = await newHaipWallet(provider, origin);
          const before = await requests();
          const res = await form(par, parForm(wallet), await headers(wallet));
          assert.equal(res.status, 401, JSON.stringify(res.json));
          assert.equal(res.json.error, 'invalid_client');
          assert.equal(await requests(), before);
        });
      }

      test('PAR without PKCE, with plain PKCE, or for a client the attestation does not name: 400/401, nothing stored', async () => {
        const wallet = await newHaipWallet(provider, origin);
        const headers = async () => ({
          'oauth-client-attestation': await wallet.attestation(),
          'oauth-client-attestation-pop': await wallet.pop(aud),
        });
        const before = await requests();
        const { code_challenge: _c, ...noPkce } = parForm(wallet);
        for (const [fields, status, error] of [
          [noPkce, 400, 'invalid_request'],
          [parForm(wallet, { code_challenge_method: 'plain' }), 400, 'invalid_request'],
          [parForm(wallet, { client_id: 'someone-else' }), 401, 'invalid_client'],
          [parForm(wallet, { redirect_uri: 'javascript:alert(1)' }), 400, 'invalid_request'],
          [parForm(wallet, { scope: 'no-such-type' }), 400, 'invalid_request'],
          // Two configurations only as the formats of one type (docs/mdoc.md), each once.
          [parForm(wallet, { scope: `${DEMO_TYPE} ${DEMO_TYPE}` }), 400, 'invalid_request'],
          [parForm(wallet, { scope: `${DEMO_TYPE} library-card.mdoc` }), 400, 'invalid_request'],
          [parForm(wallet, { scope: `${DEMO_TYPE} ${DEMO_TYPE}.mdoc ${DEMO_TYPE}.other` }), 400, 'invalid_request'],
          [parForm(wallet, { dpop_jkt: 'not-a-thumbprint' }), 400, 'invalid_request'],
        ] as const) {
          const res = await form(par, fields as Record<string, string>, await headers());
          assert.equal(res.status, status, JSON.stringify(res.json));
          assert.equal(res.json.error, error);
        }
        assert.equal(await requests(), before);
      });

      test('a malformed DPoP proof (typ JWT, no jwk) or two DPoP headers at PAR and the token endpoint: 400 invalid_dpop_proof, never 5xx, nothing stored', async () => {
        const wallet = await newHaipWallet(provider, origin);
        const { SignJWT } = await import('jose');
        const wrongTyp = await new SignJWT({ htm: 'POST', htu: `${aud}/par`, jti: 'x', iat: Math.floor(Date.now() / 1000) })
          .setProtectedHeader({ alg: 'ES256', typ: 'JWT', jwk: publicOnly(wallet.dpopKey.publicJwk) })
          .sign(wallet.dpopKey.privateKey);
        const noJwk = await new SignJWT({ htm: 'POST', htu: `${aud}/par`, jti: 'x', iat: Math.floor(Date.now() / 1000) })
          .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt' })
          .sign(wallet.dpopKey.privateKey);
        const before = await requests();
        for (const dpop of [wrongTyp, noJwk, 'not-a-jwt']) {
          const res = await form(par, { response_type: 'code' }, { dpop });
          assert.equal(res.status, 400, JSON.stringify(res.json));
          assert.equal(res.json.error, 'invalid_dpop_proof');
        }
        const twice = await fetch(`${origin}${par}`, {
          method: 'POST',
          headers: [
            ['content-type', 'application/x-www-form-urlencoded'],
            ['dpop', await wallet.dpopProof('POST', `${aud}/par`)],
            ['dpop', await wallet.dpopProof('POST', `${aud}/par`)],
          ],
          body: new URLSearchParams(parForm(wallet)).toString(),
        });
        assert.equal(twice.status, 400);
        assert.equal(((await twice.json()) as { error: string }).error, 'invalid_dpop_proof');
        assert.equal(await requests(), before);
        // At the token endpoint, after the nonce round: the same proof shapes, with the nonce.
        const first = await form(
          `/t/${DEMO}/token`,
          { grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code', 'pre-authorized_code': 'pac_x' },
          { dpop: await wallet.dpopProof('POST', `${aud}/token`) },
        );
        const nonce = first.headers.get('dpop-nonce') as string;
        const bad = await new SignJWT({ htm: 'POST', htu: `${aud}/token`, jti: 'y', iat: Math.floor(Date.now() / 1000), nonce })
          .setProtectedHeader({ alg: 'ES256', typ: 'JWT', jwk: publicOnly(wallet.dpopKey.publicJwk) })
          .sign(wallet.dpopKey.privateKey);
        const res = await form(
          `/t/${DEMO}/token`,
          { grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code', 'pre-authorized_code': 'pac_x' },
          { dpop: bad },
        );
        assert.equal(res.status, 400);
        assert.equal(res.json.error, 'invalid_dpop_proof');
      });

      test('a replayed PAR request_uri: the second opening is 410, and the first browser’s request still completes', async () => {
        const wallet = await newHaipWallet(provider, origin);
        const started = await authorize(wallet, DEMO, { scope: DEMO_TYPE });
        const browser = new HolderBrowser(origin);
        const page = await browser.get(started.authorizationRequestUrl);
        assert.equal(page.status, 200);
        const replay = await new HolderBrowser(origin).get(started.authorizationRequestUrl);
        assert.equal(replay.status, 410);
        assert.match(replay.text, /authorization_ended/);
        const approval = approvalForm(page.text);
        const answer = await browser.post(approval.action, { authorization: approval.authorization, decision: 'approve' });
        assert.equal(answer.status, 200);
      });

      test('the approval form from another browser, or from another site: refused, and the holder can still approve', async () => {
        const wallet = await newHaipWallet(provider, origin);
        const started = await authorize(wallet, DEMO, { scope: DEMO_TYPE });
        const browser = new HolderBrowser(origin);
        const approval = approvalForm((await browser.get(started.authorizationRequestUrl)).text);
        const stranger = await new HolderBrowser(origin).post(approval.action, {
          authorization: approval.authorization,
          decision: 'approve',
        });
        assert.equal(stranger.status, 410, 'a browser without the cookie');
        const crossSite = await fetch(`${origin}${approval.action}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
          body: new URLSearchParams({ authorization: approval.authorization, decision: 'approve' }).toString(),
        });
        assert.equal(crossSite.status, 403);
        const answer = await browser.post(approval.action, { authorization: approval.authorization, decision: 'approve' });
        assert.equal(answer.status, 200);
      });

      test('a proof of possession without exp (the draft HAIP relies on asks only aud, jti and iat) is accepted at PAR and at the token endpoint, fresh by its iat', async () => {
        const wallet = await newHaipWallet(provider, origin);
        const withoutExp = async () => ({
          'oauth-client-attestation': await wallet.attestation(),
          'oauth-client-attestation-pop': await wallet.pop(aud, { payload: { exp: undefined } }),
        });
        const sent = await withoutExp();
        assert.equal(decodeJwt(sent['oauth-client-attestation-pop']).exp, undefined, 'the proof carries no exp');
        const pushed = await form(par, parForm(wallet), sent);
        assert.equal(pushed.status, 201, JSON.stringify(pushed.json));
        assert.match(String(pushed.json.request_uri), /^urn:ietf:params:oauth:request_uri:/);
        // Nor iss, which the draft no longer asks for either (when sent, it must be the attestation's sub).
        const bare = await form(par, parForm(wallet), {
          'oauth-client-attestation': await wallet.attestation(),
          'oauth-client-attestation-pop': await wallet.pop(aud, { payload: { exp: undefined, iss: undefined } }),
        });
        assert.equal(bare.status, 201, JSON.stringify(bare.json));

        const flow = await demoCode(wallet);
        const fields = tokenRequest(flow);
        const nonce = (
          await form(token, fields, { ...(await withoutExp()), dpop: await wallet.dpopProof('POST', htu) })
        ).headers.get('dpop-nonce');
        assert.ok(nonce, 'a DPoP nonce, from the first refusal');
        const redeemed = await form(token, fields, {
          ...(await withoutExp()),
          dpop: await wallet.dpopProof('POST', htu, { nonce }),
        });
        assert.equal(redeemed.status, 200, JSON.stringify(redeemed.json));
        assert.equal(redeemed.json.token_type, 'DPoP');
      });

      test('one proof of possession sent to PAR eight times at once: one request is pushed, the seven others are 401 invalid_client', async () => {
        const wallet = await newHaipWallet(provider, origin);
        const taken = {
          'oauth-client-attestation': await wallet.attestation(),
          'oauth-client-attestation-pop': await wallet.pop(aud),
        };
        const before = await requests();
        const answers = await Promise.all(Array.from({ length: 8 }, () => form(par, parForm(wallet), taken)));
        assert.deepEqual(
          answers.map((a) => a.status).sort(),
          [201, 401, 401, 401, 401, 401, 401, 401],
          JSON.stringify(answers.map((a) => a.json)),
        );
        for (const a of answers.filter((a) => a.status === 401)) assert.match(String(a.json.error_description), /used before/);
        assert.equal(await requests(), before + 1, 'one request stored');
      });

      test('a wallet attestation’s proof of possession is taken once: replayed at PAR or at the token endpoint, 401 invalid_client and nothing stored', async () => {
        const wallet = await newHaipWallet(provider, origin);
        const taken = {
          'oauth-client-attestation': await wallet.attestation(),
          'oauth-client-attestation-pop': await wallet.pop(aud),
        };
        const first = await form(par, parForm(wallet), taken);
        assert.equal(first.status, 201, JSON.stringify(first.json));
        const before = await requests();
        const again = await form(par, parForm(wallet), taken);
        assert.equal(again.status, 401, JSON.stringify(again.json));
        assert.equal(again.json.error, 'invalid_client');
        assert.match(String(again.json.error_description), /used before/);
        assert.equal(await requests(), before, 'the replay stored nothing');

        // At the token endpoint: the proof PAR took is refused there too; a refused request leaves
        // its own proof unused, and that proof then redeems the code.
        const flow = await demoCode(wallet);
        const fields = tokenRequest(flow);
        const fresh = {
          'oauth-client-attestation': await wallet.attestation(),
          'oauth-client-attestation-pop': await wallet.pop(aud),
        };
        const nonce = (await form(token, fields, { ...fresh, dpop: await wallet.dpopProof('POST', htu) })).headers.get(
          'dpop-nonce',
        );
        assert.ok(nonce, 'a DPoP nonce, from the first refusal');
        const replayed = await form(token, fields, { ...taken, dpop: await wallet.dpopProof('POST', htu, { nonce }) });
        assert.equal(replayed.status, 401, JSON.stringify(replayed.json));
        assert.match(String(replayed.json.error_description), /used before/);
        const refused = await form(
          token,
          { ...fields, redirect_uri: 'https://wallet.example/other' },
          { ...fresh, dpop: await wallet.dpopProof('POST', htu, { nonce }) },
        );
        assert.equal(refused.json.error, 'invalid_grant');
        const ok = await form(token, fields, { ...fresh, dpop: await wallet.dpopProof('POST', htu, { nonce }) });
        assert.equal(ok.status, 200, JSON.stringify(ok.json));
      });

      test('token request faults (PKCE mismatch, no DPoP, no nonce, DPoP for another URL, another wallet instance, wrong redirect_uri): refused, and the code still redeems once', async () => {
        const wallet = await newHaipWallet(provider, origin);
        const flow = await demoCode(wallet);
        const fields = tokenRequest(flow);
        const attested = async (w: HaipWallet = wallet) => ({
          'oauth-client-attestation': await w.attestation(),
          'oauth-client-attestation-pop': await w.pop(issuerOf(DEMO)),
        });
        // A nonce, as a wallet learns it from a first refusal.
        const first = await form(token, fields, { ...(await attested()), dpop: await wallet.dpopProof('POST', htu) });
        assert.equal(first.status, 400);
        assert.equal(first.json.error, 'use_dpop_nonce');
        const nonce = first.headers.get('dpop-nonce') as string;
        assert.ok(nonce);

        const otherWallet = await newHaipWallet(provider, origin);
        const faults: Array<[string, Record<string, string>, Record<string, string>, number, string]> = [
          [
            'a PKCE verifier that does not match',
            { ...fields, code_verifier: 'x'.repeat(43) },
            { ...(await attested()), dpop: await wallet.dpopProof('POST', htu, { nonce }) },
            400,
            'invalid_grant',
          ],
          ['no DPoP proof', fields, await attested(), 400, 'invalid_dpop_proof'],
          [
            'a DPoP proof for another URL',
            fields,
            { ...(await attested()), dpop: await wallet.dpopProof('POST', `${issuerOf(DEMO)}/credential`, { nonce }) },
            400,
            'invalid_dpop_proof',
          ],
          [
            'a DPoP proof by another key than the one named at PAR',
            fields,
            { ...(await attested()), dpop: await wallet.dpopProof('POST', htu, { nonce, key: wallet.holderKey }) },
            400,
            'invalid_dpop_proof',
          ],
          [
            'a stale DPoP proof',
            fields,
            {
              ...(await attested()),
              dpop: await wallet.dpopProof('POST', htu, { nonce, payload: { iat: Math.floor(Date.now() / 1000) - 3600 } }),
            },
            400,
            'invalid_dpop_proof',
          ],
          [
            'another wallet instance’s attestation',
            fields,
            { ...(await attested(otherWallet)), dpop: await wallet.dpopProof('POST', htu, { nonce }) },
            401,
            'invalid_client',
          ],
          [
            'the same client id attested for another instance key',
            fields,
            {
              'oauth-client-attestation': await wallet.attestation({
                payload: { cnf: { jwk: publicOnly(otherWallet.instanceKey.publicJwk) } },
              }),
              'oauth-client-attestation-pop': await wallet.pop(issuerOf(DEMO), { key: otherWallet.instanceKey }),
              dpop: await wallet.dpopProof('POST', htu, { nonce }),
            },
            401,
            'invalid_client',
          ],
          ['no attestation', fields, { dpop: await wallet.dpopProof('POST', htu, { nonce }) }, 401, 'invalid_client'],
          [
            'another redirect_uri',
            { ...fields, redirect_uri: 'https://wallet.example/other' },
            { ...(await attested()), dpop: await wallet.dpopProof('POST', htu, { nonce }) },
            400,
            'invalid_grant',
          ],
        ];
        for (const [name, body, headers, status, error] of faults) {
          const res = await form(token, body, headers);
          assert.equal(res.status, status, `${name}: ${JSON.stringify(res.json)}`);
          assert.equal(res.json.error, error, name);
        }
        const ok = await form(token, fields, { ...(await attested()), dpop: await wallet.dpopProof('POST', htu, { nonce }) });
        assert.equal(ok.status, 200, JSON.stringify(ok.json));
        assert.equal(ok.json.token_type, 'DPoP');
        const replay = await form(token, fields, { ...(await attested()), dpop: await wallet.dpopProof('POST', htu, { nonce }) });
        assert.equal(replay.status, 400);
        assert.equal(replay.json.error, 'invalid_grant', 'a code is redeemed once');

        // The DPoP-bound token at the credential endpoint: as Bearer, without a proof, with another
        // key, in the query: refused, and the token still collects.
        const accessToken = String(ok.json.access_token);
        const credentialUrl = `/t/${DEMO}/credential`;
        const chtu = `${issuerOf(DEMO)}/credential`;
        const nonceRes = await call('POST', `/t/${DEMO}/nonce`);
        const proof = await wallet.vci.createCredentialRequestJwtProof({
          issuerMetadata: flow.issuerMetadata,
          credentialConfigurationId: DEMO_TYPE,
          nonce: String(nonceRes.json.c_nonce),
          signer: { method: 'jwk', alg: 'ES256', publicJwk: publicOnly(wallet.holderKey.publicJwk) },
        });
        const body = { credential_configuration_id: DEMO_TYPE, proofs: { jwt: [proof.jwt] } };
        const firstCredential = await call('POST', credentialUrl, body, {
          authorization: `DPoP ${accessToken}`,
          dpop: await wallet.dpopProof('POST', chtu, { accessToken }),
        });
        assert.equal(firstCredential.status, 401);
        assert.equal(firstCredential.json.error, 'use_dpop_nonce');
        const cnonce = firstCredential.headers.get('dpop-nonce') as string;
        const credentialFaults: Array<[string, Record<string, string>, string]> = [
          ['as a Bearer token', { authorization: `Bearer ${accessToken}` }, 'invalid_token'],
          ['without a proof', { authorization: `DPoP ${accessToken}` }, 'invalid_dpop_proof'],
          [
            'with a proof by another key',
            {
              authorization: `DPoP ${accessToken}`,
              dpop: await wallet.dpopProof('POST', chtu, { accessToken, nonce: cnonce, key: wallet.holderKey }),
            },
            'invalid_dpop_proof',
          ],
          [
            'with a proof over another token',
            {
              authorization: `DPoP ${accessToken}`,
              dpop: await wallet.dpopProof('POST', chtu, { accessToken: 'oat_other', nonce: cnonce }),
            },
            'invalid_dpop_proof',
          ],
        ];
        for (const [name, headers, error] of credentialFaults) {
          const res = await call('POST', credentialUrl, body, headers);
          assert.equal(res.status, 401, name);
          assert.equal(res.json.error, error, name);
        }
        const inQuery = await call('POST', `${credentialUrl}?access_token=${accessToken}`, body, {
          dpop: await wallet.dpopProof('POST', chtu, { accessToken, nonce: cnonce }),
        });
        assert.equal(inQuery.status, 401, 'the token in the query');
        const collected = await call('POST', credentialUrl, body, {
          authorization: `DPoP ${accessToken}`,
          dpop: await wallet.dpopProof('POST', chtu, { accessToken, nonce: cnonce }),
        });
        assert.equal(collected.status, 200, collected.text);
        assert.equal(
          decodeJwt(String(collected.json.credentials[0].credential).split('~')[0] as string).vct,
          `${issuerOf(DEMO)}/types/${DEMO_TYPE}`,
        );
      });

      test('a tenant without HAIP issuance: PAR is authorization_flow_off, the authorization_code grant unsupported, offers pre-authorized only', async () => {
        const tenant = await call('POST', '/api/tenants', { name: 'No Haip' }, owner);
        const slug = tenant.json.slug as string;
        const wallet = await newHaipWallet(provider, origin);
        const res = await form(`/t/${slug}/par`, parForm(wallet), {
          'oauth-client-attestation': await wallet.attestation(),
          'oauth-client-attestation-pop': await wallet.pop(issuerOf(slug)),
        });
        assert.equal(res.status, 400);
        assert.equal(res.json.error, 'authorization_flow_off');
        const token = await form(`/t/${slug}/token`, { grant_type: 'authorization_code', code: 'azc_x' });
        assert.equal(token.json.error, 'unsupported_grant_type');
        const type = await call('POST', '/api/types', { tenant: slug, name: 'Plain Card', claims: CARD_CLAIMS }, owner);
        const made = await call('POST', '/api/offers', { tenant: slug, typeId: type.json.typeId, subject: CARD_SUBJECT }, owner);
        const offer = JSON.parse(decodeURIComponent(String(made.json.offerUri).split('credential_offer=')[1] as string));
        assert.deepEqual(Object.keys(offer.grants), ['urn:ietf:params:oauth:grant-type:pre-authorized_code']);
      });

      test('a suspended issuer: PAR is refused and its authorization code is an invalid grant, spending nothing; active again, the code redeems', async () => {
        const tenant = await call('POST', '/api/tenants', { name: 'Suspended Haip' }, owner);
        const slug = tenant.json.slug as string;
        await call('POST', '/api/tenants/authorization-flow', { tenant: slug, haipIssuance: true }, owner);
        const type = await call('POST', '/api/types', { tenant: slug, name: 'Suspended Card', claims: CARD_CLAIMS }, owner);
        const made = await call('POST', '/api/offers', { tenant: slug, typeId: type.json.typeId, subject: CARD_SUBJECT }, owner);
        const offer = JSON.parse(decodeURIComponent(String(made.json.offerUri).split('credential_offer=')[1] as string));
        const wallet = await newHaipWallet(provider, origin);
        const started = await authorize(wallet, slug, { offer });
        const browser = new HolderBrowser(origin);
        const approval = approvalForm((await browser.get(started.authorizationRequestUrl)).text);
        const answer = await browser.post(approval.action, { authorization: approval.authorization, decision: 'approve' });
        const code = codeFrom(wallet, returnLink(answer.text), started.asMetadata, null);
        // Suspension takes two operators (suspension.test.ts covers it), so the row is set here directly.
        const setStatus = (status: 'active' | 'suspended') =>
          rail.db.updateTable('tenants').set({ status, status_since: Date.now() }).where('slug', '=', slug).execute();
        await setStatus('suspended');
        const attested = async () => ({
          'oauth-client-attestation': await wallet.attestation(),
          'oauth-client-attestation-pop': await wallet.pop(issuerOf(slug)),
        });
        const before = await requests();
        const pushed = await form(`/t/${slug}/par`, parForm(wallet, { scope: String(type.json.typeId) }), await attested());
        assert.equal(pushed.status, 400, JSON.stringify(pushed.json));
        assert.equal(pushed.json.error, 'invalid_request');
        assert.match(String(pushed.json.error_description), /suspended/);
        assert.equal(await requests(), before, 'nothing is pushed');
        const htu = `${issuerOf(slug)}/token`;
        const fields = tokenRequest({ code, pkce: started.pkce });
        const refused = await form(`/t/${slug}/token`, fields, {
          ...(await attested()),
          dpop: await wallet.dpopProof('POST', htu),
        });
        assert.equal(refused.status, 400, JSON.stringify(refused.json));
        assert.equal(refused.json.error, 'invalid_grant');
        assert.match(String(refused.json.error_description), /suspended/);
        await setStatus('active');
        const nonce = (
          await form(`/t/${slug}/token`, fields, { ...(await attested()), dpop: await wallet.dpopProof('POST', htu) })
        ).headers.get('dpop-nonce');
        assert.ok(nonce, 'a DPoP nonce, from the first refusal');
        const redeemed = await form(`/t/${slug}/token`, fields, {
          ...(await attested()),
          dpop: await wallet.dpopProof('POST', htu, { nonce }),
        });
        assert.equal(redeemed.status, 200, JSON.stringify(redeemed.json));
      });

      test('the pre-authorized flow may take DPoP: the token is then bound, and the credential endpoint requires the proof', async () => {
        const tenant = await call('POST', '/api/tenants', { name: 'Dpop Pre' }, owner);
        const slug = tenant.json.slug as string;
        const type = await call('POST', '/api/types', { tenant: slug, name: 'Pre Card', claims: CARD_CLAIMS }, owner);
        const made = await call('POST', '/api/offers', { tenant: slug, typeId: type.json.typeId, subject: CARD_SUBJECT }, owner);
        const offer = JSON.parse(decodeURIComponent(String(made.json.offerUri).split('credential_offer=')[1] as string));
        const code = offer.grants['urn:ietf:params:oauth:grant-type:pre-authorized_code']['pre-authorized_code'];
        const wallet = await newHaipWallet(provider, origin);
        const htu = `${issuerOf(slug)}/token`;
        const fields = { grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code', 'pre-authorized_code': code };
        const first = await form(`/t/${slug}/token`, fields, { dpop: await wallet.dpopProof('POST', htu) });
        assert.equal(first.json.error, 'use_dpop_nonce', 'the code is not spent by the nonce round');
        const nonce = first.headers.get('dpop-nonce') as string;
        const ok = await form(`/t/${slug}/token`, fields, { dpop: await wallet.dpopProof('POST', htu, { nonce }) });
        assert.equal(ok.status, 200, JSON.stringify(ok.json));
        assert.equal(ok.json.token_type, 'DPoP');
        const asBearer = await call(
          'POST',
          `/t/${slug}/credential`,
          { credential_configuration_id: type.json.typeId, proofs: { jwt: ['x'] } },
          { authorization: `Bearer ${ok.json.access_token}` },
        );
        assert.equal(asBearer.status, 401);
        assert.equal(asBearer.json.error, 'invalid_token');
      });
    });
  });
}

test('an anchors file whose certificate cannot be read stops the start, naming the variable', async () => {
  const [sqlite] = testDatabases();
  assert.ok(sqlite);
  const db = await sqlite.create();
  const file = join(mkdtempSync(join(tmpdir(), 'openrail-bad-anchor-')), 'anchors.pem');
  writeFileSync(file, '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n');
  try {
    await assert.rejects(
      startRail(db, { OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE: file }),
      /OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE/,
    );
  } finally {
    await db.drop();
  }
});
