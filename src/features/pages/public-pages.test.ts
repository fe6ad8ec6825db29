/**
 * The public pages and the demo over real HTTP, on each engine (docs/public-pages.md): every page
 * answers, every link on them leads somewhere served, every served document renders with its links
 * rewritten; the demo's offer is collected by a real wallet library (oid4vc-ts), presented to hosted
 * verification, revoked, and refused on the next presentation; its refusals change nothing; and its
 * offers are budgeted per address.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { type HolderKey, newHolderKey } from '../../../test/helpers/holder.ts';
import { collectWithWallet, presentWithWallet } from '../../../test/helpers/oid4vp-wallet.ts';
import { listenOnLoopback, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import { refusedUnchanged, rowCounts } from '../../../test/helpers/refusals.ts';
import { shippedDocsAt } from '../../adapters/fs/shipped-docs.ts';
import { ANONYMOUS_BUDGETS } from '../../core/anonymous-budgets.ts';
import { MAIN_NAV } from '../../web/layout.ts';
import { DOCS_PATH, DocsReader } from './docs-reader.ts';
import { AUDIENCES } from './public-content.ts';

const PUBLIC_PAGES = [
  '/',
  '/capabilities',
  '/demo',
  '/developers',
  '/standards',
  '/regulations',
  DOCS_PATH,
  ...AUDIENCES.map((a) => a.path),
];
const HTML = { accept: 'text/html' };
const JSON_BODY = { 'content-type': 'application/json' };

/** The site-internal hrefs of a page (no fragments, no query strings of the QR route). */
const internalLinks = (page: string) =>
  [...page.matchAll(/href="(\/[^"#?]*)[^"]*"/g)].map((m) => m[1] ?? '').filter((href) => !href.startsWith('/assets/'));

for (const factory of testDatabases()) {
  describe(`the public pages and the demo (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let origin: string;
    /** The rail's clock runs this far ahead of the wall clock, for the offer's expiry. */
    let skewMs = 0;

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, {}, { now: () => Date.now() + skewMs });
      origin = await listenOnLoopback(rail);
    });
    after(async () => {
      await rail?.stop();
      await db?.drop();
    });

    const get = (url: string) => rail.app.inject({ method: 'GET', url, headers: HTML });

    test('every public page answers 200 as HTML, and every link on it leads somewhere served', async () => {
      const links = new Set<string>();
      for (const path of PUBLIC_PAGES) {
        const res = await get(path);
        assert.equal(res.statusCode, 200, path);
        assert.match(String(res.headers['content-type']), /^text\/html/, path);
        for (const href of internalLinks(res.body)) links.add(href);
      }
      for (const item of MAIN_NAV) assert.ok(links.has(item.href), `${item.href} is linked`);
      for (const href of links) {
        const res = await get(href);
        // /admin, /console and /account send a signed-out browser to sign in: a redirect, not a dead end.
        assert.ok(res.statusCode < 400, `${href} answers ${res.statusCode}`);
      }
    });

    test('every shipped document is served, its links lead to served documents, and raw HTML in it stays text', async () => {
      const reader = new DocsReader('openrail', shippedDocsAt());
      assert.ok(reader.docs.size >= 30, 'docs/ and docs/backoffice/ are served');
      const index = await get(DOCS_PATH);
      for (const name of reader.docs.keys()) {
        assert.ok(index.body.includes(`href="${DOCS_PATH}/${name}"`), `${name} is in the index`);
        const res = await get(`${DOCS_PATH}/${name}`);
        assert.equal(res.statusCode, 200, name);
        assert.doesNotMatch(
          res.body,
          /<script(?! src="\/assets)|\.md(#[^"]*)?"/,
          `${name}: no script of its own, no link left to a .md file`,
        );
        for (const href of internalLinks(res.body).filter((h) => h.startsWith(`${DOCS_PATH}/`))) {
          assert.ok(reader.docs.has(href.slice(DOCS_PATH.length + 1)), `${name} links ${href}, which is served`);
        }
      }
      const unknown = await rail.app.inject({ method: 'GET', url: `${DOCS_PATH}/no-such-document` });
      assert.equal(unknown.statusCode, 404);
      assert.match(unknown.body, /unknown_document/, 'a page of the site naming the code');
      const traversal = await rail.app.inject({ method: 'GET', url: `${DOCS_PATH}/..%2Fpackage` });
      assert.ok([400, 404].includes(traversal.statusCode), String(traversal.statusCode));
    });

    describe('the demo, step by step', () => {
      let holderKey: HolderKey;
      let demo: { offerId: string; offerUri: string; demoToken: string; vct: string; askClaims: string[] };
      let credential: string;
      const post = (url: string, payload?: unknown) =>
        rail.app.inject({
          method: 'POST',
          url,
          remoteAddress: '198.51.100.7',
          ...(payload === undefined ? {} : { headers: JSON_BODY, payload: JSON.stringify(payload) }),
        });
      const own = () => ({ offerId: demo.offerId, demoToken: demo.demoToken });
      const state = () => rowCounts(rail.db, ['offers', 'issued_credentials', 'audit_log']);
      const openRequest = async () => {
        const res = await post('/verify/request', {
          vct: demo.vct,
          claims: demo.askClaims,
          nonce: `n-${Date.now()}-demo`,
          aud: origin,
        });
        assert.equal(res.statusCode, 201, res.body);
        return res.json() as { requestUri: string; transactionId: string; resultToken: string };
      };
      const outcome = async (opened: { transactionId: string; resultToken: string }) =>
        (
          await rail.app.inject({
            method: 'GET',
            url: `/verify/result/${opened.transactionId}`,
            headers: { authorization: `Bearer ${opened.resultToken}` },
          })
        ).json().outcome;

      before(async () => {
        holderKey = await newHolderKey();
      });

      test('an offer of the Transit Pass, by reference, with a demo token; nothing to revoke before a wallet collects it', async () => {
        const res = await post('/demo/offer');
        assert.equal(res.statusCode, 201, res.body);
        demo = res.json();
        assert.match(demo.offerUri, /^openid-credential-offer:\/\/\?credential_offer_uri=/);
        assert.ok(demo.vct.endsWith('/t/demo-transit/types/transit-pass'));
        assert.deepEqual(demo.askClaims, ['given_name', 'fare_zone', 'valid_until']);
        assert.equal(demo.demoToken.length, 43);
        assert.deepEqual((await post('/demo/progress', own())).json(), { collected: false, expired: false });
        await refusedUnchanged(
          state,
          () => post('/demo/revoke', { offerId: demo.offerId, demoToken: demo.demoToken }),
          409,
          'not_collected',
        );
      });

      test('another caller’s token, or none that fits, is unknown_demo and changes nothing', async () => {
        const other = (await post('/demo/offer')).json() as typeof demo;
        // One character changed: the last of 43 base64url characters carries 4 bits, so it is one of
        // A, Q, g and w; replacing it by a fixed letter would leave it unchanged one time in four.
        const altered = `${demo.demoToken.slice(0, -1)}${demo.demoToken.endsWith('Q') ? 'g' : 'Q'}`;
        for (const demoToken of [other.demoToken, altered, 'x']) {
          await refusedUnchanged(state, () => post('/demo/revoke', { offerId: demo.offerId, demoToken }), 404, 'unknown_demo');
          await refusedUnchanged(state, () => post('/demo/progress', { offerId: demo.offerId, demoToken }), 404, 'unknown_demo');
        }
        await refusedUnchanged(state, () => post('/demo/progress', { offerId: demo.offerId }), 400, 'invalid_request');
      });

      test('a wallet library collects it; the page sees it collected; the presentation is verified with only what was asked', async () => {
        credential = await collectWithWallet({ offerUri: demo.offerUri, holderKey, baseUrl: origin });
        assert.deepEqual((await post('/demo/progress', own())).json(), { collected: true, expired: false });
        const opened = await openRequest();
        const run = await presentWithWallet({ requestUri: opened.requestUri, credential, holderKey, baseUrl: origin });
        assert.equal(run.status, 200, JSON.stringify(run.body));
        const result = await outcome(opened);
        assert.equal(result.ok, true, JSON.stringify(result));
        assert.deepEqual(Object.keys(result.presentation.claims).sort(), ['fare_zone', 'given_name', 'valid_until']);
      });

      test('revoked by the page (audited as an anonymous visitor, once), the next presentation is credential_revoked', async () => {
        const res = await post('/demo/revoke', { offerId: demo.offerId, demoToken: demo.demoToken });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), { revoked: 1 });
        const entries = await rail.db
          .selectFrom('audit_log')
          .selectAll()
          .where('action', '=', 'credential.revoked')
          .where('tenant', '=', 'demo-transit')
          .execute();
        assert.equal(entries.length, 1);
        assert.equal(entries[0]?.actor, 'public');
        const again = await post('/demo/revoke', { offerId: demo.offerId, demoToken: demo.demoToken });
        assert.deepEqual(again.json(), { revoked: 1 }, 'repeating it changes nothing');
        const opened = await openRequest();
        await presentWithWallet({ requestUri: opened.requestUri, credential, holderKey, baseUrl: origin });
        const result = await outcome(opened);
        assert.equal(result.ok, false);
        assert.equal(result.error, 'credential_revoked');
      });

      test('an offer no wallet collected in time is expired: the page stops waiting', async () => {
        const fresh = (await post('/demo/offer')).json() as typeof demo;
        const mine = { offerId: fresh.offerId, demoToken: fresh.demoToken };
        assert.deepEqual((await post('/demo/progress', mine)).json(), { collected: false, expired: false });
        skewMs = 16 * 60 * 1000;
        try {
          assert.deepEqual((await post('/demo/progress', mine)).json(), { collected: false, expired: true });
        } finally {
          skewMs = 0;
        }
      });

      test('offers are budgeted per address: past the quota, 429 with Retry-After and no offer stored', async () => {
        const { quota } = ANONYMOUS_BUDGETS['demo-offer'].perAddress;
        const flood = () => rail.app.inject({ method: 'POST', url: '/demo/offer', remoteAddress: '203.0.113.90' });
        for (let i = 0; i < quota; i++) assert.equal((await flood()).statusCode, 201);
        const before = await rowCounts(rail.db, ['offers']);
        const refused = await flood();
        assert.equal(refused.statusCode, 429);
        assert.ok(refused.headers['retry-after']);
        assert.deepEqual(await rowCounts(rail.db, ['offers']), before);
        const elsewhere = await rail.app.inject({ method: 'POST', url: '/demo/offer', remoteAddress: '192.0.2.55' });
        assert.equal(elsewhere.statusCode, 201, 'another address is still served');
      });
    });

    test('without a demonstration tenant: the page says so, and an offer is demo_unavailable; links to what is not served lose the link', async () => {
      const off = await startRail(db, { OPENRAIL_DEMO: 'off', OPENRAIL_UNMOUNTED_GROUPS: 'account,operator-apps' });
      try {
        const page = await off.app.inject({ method: 'GET', url: '/demo', headers: HTML });
        assert.equal(page.statusCode, 200);
        assert.match(page.body, /the demo is off here/);
        assert.doesNotMatch(page.body, /<script>/);
        const res = await off.app.inject({ method: 'POST', url: '/demo/offer' });
        assert.equal(res.statusCode, 404);
        assert.equal(res.json().error, 'demo_unavailable');
        const people = await off.app.inject({ method: 'GET', url: '/for-people', headers: HTML });
        assert.doesNotMatch(people.body, /href="\/account"/, 'the account portal is not served here');
        assert.match(people.body, /Sign in to the account portal at \/account with your wallet/, 'the words stay');
        const cities = await off.app.inject({ method: 'GET', url: '/for-cities', headers: HTML });
        assert.doesNotMatch(cities.body, /href="\/(admin|console)"/);
        assert.match(cities.body, /href="\/partners\/issuer"/, 'what is served keeps its link');
      } finally {
        await off.stop();
      }
    });
  });
}
