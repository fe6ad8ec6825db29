import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { newWalletProvider } from '../../../test/helpers/haip-wallet.ts';
import { CARD_CLAIMS, CARD_SUBJECT, createOffer, registerType } from '../../../test/helpers/issuance.ts';
import { owner, PUBLIC_URL, startRail, type TestRail } from '../../../test/helpers/rail.ts';

/**
 * Authorization-server metadata (interface, Resources: RFC 8414) lists `issuer`, `token_endpoint`,
 * `response_types_supported`, `grant_types_supported`, `pre-authorized_grant_anonymous_access_supported`,
 * `token_endpoint_auth_methods_supported`, `code_challenge_methods_supported` and
 * `authorization_details_types_supported`: every one on every issuer, each saying what that issuer
 * serves. The authorization code flow (PAR, PKCE, authorization_details) is served where the
 * tenant's HAIP issuance is on and the deployment trusts a wallet provider (docs/haip.md); elsewhere
 * the lists of what it would take are empty, and PAR answers authorization_flow_off. The issuer's
 * credential offers follow the same rule: they offer the authorization_code grant (issuer_state)
 * exactly where the metadata lists it.
 */
const FIELDS = [
  'issuer',
  'token_endpoint',
  'response_types_supported',
  'grant_types_supported',
  'pre-authorized_grant_anonymous_access_supported',
  'token_endpoint_auth_methods_supported',
  'code_challenge_methods_supported',
  'authorization_details_types_supported',
];
const PRE_AUTH = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

/** The addresses of one issuer's metadata: RFC 8414 §3.1's inserted form, and the appended one older wallets read. */
const addresses = (slug: string) =>
  slug === 'root'
    ? ['/.well-known/oauth-authorization-server']
    : [`/.well-known/oauth-authorization-server/t/${slug}`, `/t/${slug}/.well-known/oauth-authorization-server`];
const issuerOf = (slug: string) => (slug === 'root' ? PUBLIC_URL : `${PUBLIC_URL}/t/${slug}`);

for (const factory of testDatabases()) {
  describe(`authorization-server metadata on every kind of issuer (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;

    const metadataOf = async (app: TestRail, slug: string) => {
      const bodies = [];
      for (const url of addresses(slug)) {
        const res = await app.app.inject({ method: 'GET', url });
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
        bodies.push(res.json());
      }
      for (const body of bodies.slice(1)) assert.deepEqual(body, bodies[0], `${slug}: one document at every address`);
      return bodies[0] as Record<string, unknown>;
    };
    /** A pushed request with nothing but its PKCE: refused for want of a wallet attestation where the flow is served. */
    const push = (app: TestRail, slug: string) =>
      app.app.inject({
        method: 'POST',
        url: slug === 'root' ? '/par' : `/t/${slug}/par`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `response_type=code&client_id=wallet&code_challenge=${'A'.repeat(43)}&code_challenge_method=S256&redirect_uri=https%3A%2F%2Fwallet.example%2Fcb`,
      });
    const setFlow = async (app: TestRail, tenant: string, haipIssuance: boolean) => {
      const res = await app.app.inject({
        method: 'POST',
        url: '/api/tenants/authorization-flow',
        headers: owner,
        payload: { tenant, haipIssuance },
      });
      assert.equal(res.statusCode, 200, res.body);
    };

    /** The grants of an offer of `slug` without a transaction code, by value and by reference (one answer). */
    const offerGrants = async (app: TestRail, slug: string) => {
      const typeId = typeIds.get(slug);
      assert.ok(typeId, slug);
      const { offer } = await createOffer(app.app, { tenant: slug, typeId, subject: CARD_SUBJECT });
      const made = await app.app.inject({
        method: 'POST',
        url: '/api/offers',
        headers: owner,
        payload: { tenant: slug, typeId, subject: CARD_SUBJECT, byReference: true },
      });
      assert.equal(made.statusCode, 201, made.body);
      const uri = new URL(String(new URL(made.json().offerUri).searchParams.get('credential_offer_uri')));
      const byReference = await app.app.inject({ method: 'GET', url: uri.pathname });
      assert.equal(byReference.statusCode, 200, byReference.body);
      const grants = [offer.grants, byReference.json().grants] as Array<Record<string, Record<string, unknown>>>;
      for (const g of grants) {
        const code = g[PRE_AUTH]?.['pre-authorized_code'];
        assert.equal(typeof code, 'string', slug);
        // Where the grant is offered, its issuer_state is the offer's pre-authorized code (docs/haip.md).
        if (g.authorization_code) assert.deepEqual(g.authorization_code, { issuer_state: code }, slug);
      }
      return grants.map((g) => Object.keys(g).sort());
    };

    /** Every field the interface lists, and values that are what `slug` serves; its offers say the same. */
    async function assertTrue(app: TestRail, slug: string, servesCodeFlow: boolean) {
      const md = await metadataOf(app, slug);
      const offered = servesCodeFlow ? ['authorization_code', PRE_AUTH] : [PRE_AUTH];
      assert.deepEqual(await offerGrants(app, slug), [offered, offered], `${slug}: the offer's grants`);
      for (const field of FIELDS) assert.ok(field in md, `${slug}: ${field} is listed`);
      assert.equal(md.issuer, issuerOf(slug));
      assert.equal(md.token_endpoint, `${issuerOf(slug)}/token`);
      assert.equal(md['pre-authorized_grant_anonymous_access_supported'], true);
      const par = await push(app, slug);
      if (servesCodeFlow) {
        assert.deepEqual(md.code_challenge_methods_supported, ['S256'], slug);
        assert.deepEqual(md.authorization_details_types_supported, ['openid_credential'], slug);
        assert.deepEqual(md.response_types_supported, ['code'], slug);
        assert.deepEqual(md.grant_types_supported, ['authorization_code', PRE_AUTH], slug);
        assert.equal(md.authorization_endpoint, `${issuerOf(slug)}/authorize`);
        assert.equal(md.pushed_authorization_request_endpoint, `${issuerOf(slug)}/par`);
        // The flow is there: the push gets as far as asking for the wallet's attestation.
        assert.notEqual(par.json().error, 'authorization_flow_off', `${slug}: ${par.body}`);
      } else {
        // No authorization endpoint: no PKCE method and no authorization_details type is taken anywhere.
        assert.deepEqual(md.code_challenge_methods_supported, [], slug);
        assert.deepEqual(md.authorization_details_types_supported, [], slug);
        assert.deepEqual(md.response_types_supported, [], slug);
        assert.deepEqual(md.grant_types_supported, [PRE_AUTH], slug);
        assert.deepEqual(md.token_endpoint_auth_methods_supported, ['none'], slug);
        for (const field of ['authorization_endpoint', 'pushed_authorization_request_endpoint']) {
          assert.equal(md[field], undefined, `${slug}: ${field}`);
        }
        assert.equal(par.statusCode, 400, `${slug}: ${par.body}`);
        assert.equal(par.json().error, 'authorization_flow_off', slug);
      }
    }

    let plain: string;
    let haip: string;
    /** A credential type of each issuer, to make offers of. */
    const typeIds = new Map<string, string>();
    before(async () => {
      db = await factory.create();
      // The default deployment: no wallet provider trusted (OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE unset).
      rail = await startRail(db, {}, undefined, { runJobs: false });
      const made = async (name: string) => {
        const res = await rail.app.inject({ method: 'POST', url: '/api/tenants', headers: owner, payload: { name } });
        assert.equal(res.statusCode, 201, res.body);
        return String(res.json().slug);
      };
      plain = await made('Plain Issuer');
      haip = await made('Haip Issuer');
      await setFlow(rail, haip, true);
      for (const slug of ['root', 'demo-transit', plain, haip]) {
        typeIds.set(slug, (await registerType(rail.app, slug, 'Offered Card', CARD_CLAIMS)).typeId);
      }
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('without a trusted wallet provider, no issuer serves the code flow, and none says it does, in its metadata or its offers: the platform, the demonstration tenant, a tenant, a tenant with HAIP issuance on', async () => {
      for (const slug of ['root', 'demo-transit', plain, haip]) await assertTrue(rail, slug, false);
    });

    describe('with a trusted wallet provider', () => {
      let trusting: TestRail;
      before(async () => {
        const provider = await newWalletProvider();
        trusting = await startRail(db, { OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE: provider.anchorFile }, undefined, {
          runJobs: false,
        });
      });
      after(async () => {
        await setFlow(trusting, haip, true);
        await trusting.stop();
      });

      test('the demonstration tenant and a tenant with HAIP issuance on serve it; the platform and a tenant without do not', async () => {
        await assertTrue(trusting, 'demo-transit', true);
        await assertTrue(trusting, haip, true);
        await assertTrue(trusting, plain, false);
        await assertTrue(trusting, 'root', false);
      });

      test('turning HAIP issuance off and on changes the metadata with the flow', async () => {
        await setFlow(trusting, haip, false);
        await assertTrue(trusting, haip, false);
        await setFlow(trusting, haip, true);
        await assertTrue(trusting, haip, true);
      });
    });
  });
}
