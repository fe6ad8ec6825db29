/**
 * /demo with nothing but the browser (Debian Chromium via playwright-core), on a real socket whose
 * PUBLIC_URL is its own http://127.0.0.1:<port> origin: the page's own wallet (demo-wallet.js)
 * collects the pass over OID4VCI, presents it over OID4VP and is accepted, the visitor revokes it,
 * and the next presentation is refused with credential_revoked. At 1280 px with the browser's
 * Digital Credentials API and at 390 px without it, each stage kept as test/artifacts/demo-*.png.
 * The holder key never leaves the page (the wallet's requests carry its public JWK, nothing
 * private), the page stores nothing, and no token, code or credential is written in full into the
 * document. Then the Digital Credentials API path, answered by a stubbed platform wallet.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { BrowserContextOptions, Page, Request, Response } from 'playwright-core';
import {
  assertClean,
  axeOnPage,
  chromiumForSuite,
  chromiumMissing,
  DESKTOP,
  horizontalOverflow,
  PHONE,
  shoot,
  WAIT_MS,
  watchPage,
} from '../../../test/helpers/chromium.ts';
import { newHolderKey } from '../../../test/helpers/holder.ts';
import { answerDcApi, collectWithWallet } from '../../../test/helpers/oid4vp-wallet.ts';
import { sqliteRailOnSocket } from '../../../test/helpers/rail.ts';

const skip = chromiumMissing();
const ASKED = ['fare_zone', 'given_name', 'valid_until'];
const HELD = ['given_name', 'family_name', 'pass_number', 'fare_zone', 'valid_until'];

/** What the test reads inside the page (the project's lib has no DOM types). */
type InPage = {
  getComputedStyle(e: unknown): { cursor: string; borderTopStyle: string };
  localStorage: { length: number };
  sessionStorage: { length: number };
  indexedDB: { databases(): Promise<unknown[]> };
  document: { cookie: string };
  DigitalCredential?: unknown;
};

/** The JSON header and payload of every compact JWS in `text` (a body, form-decoded first). */
function jwsPartsIn(text: string): Array<Record<string, unknown>> {
  const decoded = text.includes('=') && !text.trimStart().startsWith('{') ? decodeURIComponent(text.replace(/\+/g, ' ')) : text;
  const parts: Array<Record<string, unknown>> = [];
  for (const [, header, payload] of decoded.matchAll(/(eyJ[\w-]+)\.(eyJ[\w-]+)\./g)) {
    for (const segment of [header, payload]) parts.push(JSON.parse(Buffer.from(String(segment), 'base64url').toString('utf8')));
  }
  return parts;
}

/** Whether `value` has a member `d` anywhere: a private JWK would. */
const hasPrivateMember = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && Object.entries(value).some(([k, v]) => k === 'd' || hasPrivateMember(v));

/** Every request the page makes and the text of every answer, to read once the run is over. */
function recordTraffic(page: Page) {
  const requests: Request[] = [];
  const answers: Array<Promise<{ url: string; method: string; text: string }>> = [];
  page.on('request', (r) => requests.push(r));
  page.on('response', (r: Response) => {
    answers.push(
      r.text().then(
        (text) => ({ url: r.url(), method: r.request().method(), text }),
        () => ({ url: r.url(), method: '', text: '' }),
      ),
    );
  });
  return { requests, answers: () => Promise.all(answers) };
}

const wireLines = (page: Page, step: string) => page.locator(`#wire-${step} details[open] .wire-line`).allTextContents();
/** Unfolds what exchange `index` of a step's open list sent and was answered. */
const unfold = (page: Page, step: string, index: number) =>
  page.locator(`#wire-${step} > details[open] > ol > li`).nth(index).getByText('What was sent and answered').click();

describe('/demo completes in Chromium with the page’s own wallet', { skip: skip ?? false }, () => {
  const site = sqliteRailOnSocket();
  const chrome = chromiumForSuite();

  async function accessible(page: Page, what: string) {
    assert.deepEqual(await axeOnPage(page), [], `${what}: axe`);
    assert.equal(await horizontalOverflow(page), 0, `${what}: wider than the screen`);
  }

  const runs: ReadonlyArray<[BrowserContextOptions, string, number, boolean]> = [
    [DESKTOP, '', 1280, true],
    [PHONE, '-390', 390, false],
  ];
  for (const [options, suffix, width, withDcApi] of runs) {
    test(`at ${width} px${withDcApi ? '' : ', without the Digital Credentials API'}: collect, present, revoke, and credential_revoked`, async () => {
      const context = await chrome.browser.newContext(options);
      try {
        const page = await context.newPage();
        const watch = await watchPage(page);
        if (!withDcApi) await page.addInitScript({ content: 'delete window.DigitalCredential;' });
        const traffic = recordTraffic(page);
        await page.goto(`${site.origin}/demo`);
        assert.equal(await page.locator('#wallet-status').textContent(), 'It holds nothing yet.');
        const dcApi = await page.evaluate(() => typeof (globalThis as unknown as InPage).DigitalCredential === 'function');
        assert.equal(dcApi, withDcApi, 'Debian’s Chromium offers the Digital Credentials API, unless the test removed it');
        assert.equal(await page.locator('#dc-note').isVisible(), dcApi, 'the page says so exactly when the browser offers it');

        await page.getByRole('button', { name: 'Get a demo pass' }).click();
        await page.locator('#offer:not([hidden])').waitFor({ timeout: WAIT_MS });
        // A disabled button looks it: dashed, and the not-allowed cursor; an enabled one does not.
        const look = (name: string) =>
          page.getByRole('button', { name }).evaluate((b) => {
            const style = (globalThis as unknown as InPage).getComputedStyle(b);
            return `${style.cursor} ${style.borderTopStyle}`;
          });
        assert.equal(await page.getByRole('button', { name: 'Present from this page’s wallet' }).isDisabled(), true);
        assert.equal(await look('Ask for the pass'), 'not-allowed dashed');
        assert.equal(await look('Collect with this page’s wallet'), 'pointer solid');
        await shoot(page, `demo-offer${suffix}.png`);

        // 1. Collect: eight exchanges, from the page's offer to the issuer's DID document. The
        // document is held back until the page's poll has seen the pass collected: the page still
        // waits for its wallet's checks before it says where the pass is.
        let seen: () => void = () => {};
        const collectedSeen = new Promise<void>((resolve) => {
          seen = resolve;
        });
        page.on('response', async (r) => {
          if (r.url() === `${site.origin}/demo/progress` && (await r.json().catch(() => ({}))).collected) seen();
        });
        await page.route(`${site.origin}/t/demo-transit/did.json`, async (route) => {
          await collectedSeen;
          await route.continue();
        });
        await page.getByRole('button', { name: 'Collect with this page’s wallet' }).click();
        await page.getByText('Collected: this page’s wallet holds the pass. Now present it.').waitFor({ timeout: WAIT_MS });
        assert.deepEqual(await page.locator('#wallet-held th').allTextContents(), HELD);
        const collected = (await wireLines(page, 'collect')).map((l) =>
          l.replace(/\/credential-offer\/[\w-]+/, '/credential-offer/…'),
        );
        assert.deepEqual(collected, [
          'POST /demo/offer → 201',
          'GET /t/demo-transit/credential-offer/… → 200',
          'GET /.well-known/openid-credential-issuer/t/demo-transit → 200',
          'GET /.well-known/oauth-authorization-server/t/demo-transit → 200',
          'POST /t/demo-transit/token → 200',
          'POST /t/demo-transit/nonce → 200',
          'POST /t/demo-transit/credential → 200',
          'GET /t/demo-transit/did.json → 200',
        ]);
        assert.equal(await look('Present from this page’s wallet'), 'pointer solid');
        await unfold(page, 'collect', 6);
        const proofShown = String(await page.locator('#wire-collect li').nth(6).locator('dd').nth(2).textContent());
        assert.match(proofShown, /"typ": "openid4vci-proof\+jwt"/, 'the key proof, decoded, with the public key it carries');
        await shoot(page, `demo-collected${suffix}.png`);

        // 2. Present: the relying party asks, the wallet answers, the outcome names only what was asked.
        await page.getByRole('button', { name: 'Present from this page’s wallet' }).click();
        await page.locator('#present-status', { hasText: /^Verified$/ }).waitFor({ timeout: WAIT_MS });
        assert.deepEqual((await page.locator('#outcome th').allTextContents()).sort(), ASKED);
        const presented = (await wireLines(page, 'present')).map((l) => l.replace(/vtx_[\w-]+/, 'vtx_…'));
        assert.deepEqual(presented, [
          'POST /verify/request → 201',
          'GET /oid4vp/request/vtx_… → 200',
          'GET /.well-known/did.json → 200',
          'POST /oid4vp/response → 200',
          'GET /verify/result/vtx_… → 200',
        ]);
        await unfold(page, 'present', 3);
        await shoot(page, `demo-verified${suffix}.png`);

        // 3. Revoke, and present again: refused at the response_uri, and the outcome says why.
        await page.getByRole('button', { name: 'Revoke the pass' }).click();
        await page.getByText('Revoked. Ask for the pass again').waitFor({ timeout: WAIT_MS });
        assert.deepEqual(await wireLines(page, 'revoke'), ['POST /demo/revoke → 200']);
        await page.getByRole('button', { name: 'Present from this page’s wallet' }).click();
        await page.locator('#present-status', { hasText: 'Not verified' }).waitFor({ timeout: WAIT_MS });
        assert.match(String(await page.locator('#outcome').textContent()), /^credential_revoked \(revocation\): /);
        assert.equal((await wireLines(page, 'present'))[3], 'POST /oid4vp/response → 400');
        assert.equal(await page.locator('#wire-present > details').count(), 2, 'each presentation has its own exchanges');
        await shoot(page, `demo-revoked${suffix}.png`);
        await accessible(page, `the demo at ${width} px, after the refusal`);
        // Chromium reports every 4xx answer to a fetch as a console error: the verifier's refusal of
        // the revoked pass at its response_uri is the one expected, and nothing else may be there.
        const refusal = `Failed to load resource: the server responded with a status of 400 (Bad Request) (${site.origin}/oid4vp/response)`;
        assert.deepEqual(
          watch.consoleErrors.filter((e) => e === refusal),
          [refusal],
        );
        watch.consoleErrors.splice(watch.consoleErrors.indexOf(refusal), 1);
        await assertClean(page, watch, 'the demo');

        // The holder key never left the page: every request went to this origin, the key proof
        // carries the public JWK alone, and no request carries a private key member anywhere.
        const requests = traffic.requests;
        assert.deepEqual(
          requests.filter((r) => new URL(r.url()).origin !== site.origin).map((r) => r.url()),
          [],
        );
        const credentialRequest = requests.find((r) => r.url() === `${site.origin}/t/demo-transit/credential`);
        const proof = JSON.parse(credentialRequest?.postData() ?? '{}').proofs.jwt[0] as string;
        const proofHeader = JSON.parse(Buffer.from(String(proof.split('.')[0]), 'base64url').toString('utf8'));
        assert.deepEqual(Object.keys(proofHeader.jwk).sort(), ['crv', 'kty', 'x', 'y']);
        for (const request of requests) {
          const body = request.postData() ?? '';
          assert.doesNotMatch(body, /"d"\s*:/, request.url());
          for (const part of jwsPartsIn(body)) assert.equal(hasPrivateMember(part), false, request.url());
        }
        assert.equal(await credentialRequest?.headerValue('cookie'), null, 'the wallet sends no cookie');
        // Nothing kept beyond the visit.
        const kept = await page.evaluate(async () => ({
          local: (globalThis as unknown as InPage).localStorage.length,
          session: (globalThis as unknown as InPage).sessionStorage.length,
          databases: (await (globalThis as unknown as InPage).indexedDB.databases()).length,
          cookie: (globalThis as unknown as InPage).document.cookie,
        }));
        assert.deepEqual(kept, { local: 0, session: 0, databases: 0, cookie: '' });

        // No secret in full in the document, and each that the wire shows, shortened.
        const answers = await traffic.answers();
        const json = (path: string, method = 'POST') =>
          answers.filter((a) => new URL(a.url).pathname === path && a.method === method).map((a) => JSON.parse(a.text));
        const offer = answers.find((a) => a.url.includes('/credential-offer/'));
        const [token] = json('/t/demo-transit/token');
        const [issued] = json('/t/demo-transit/credential');
        const secrets: Record<string, string> = {
          'demo token': json('/demo/offer')[0].demoToken,
          'pre-authorized code': JSON.parse(offer?.text ?? '{}').grants['urn:ietf:params:oauth:grant-type:pre-authorized_code'][
            'pre-authorized_code'
          ],
          'access token': token.access_token,
          c_nonce: json('/t/demo-transit/nonce')[0].c_nonce,
          credential: issued.credentials[0].credential,
        };
        json('/verify/request').forEach((r, i) => {
          secrets[`result token ${i + 1}`] = r.resultToken;
        });
        const shown = await page.content();
        for (const [what, secret] of Object.entries(secrets)) {
          assert.ok(typeof secret === 'string' && secret.length >= 20, what);
          assert.equal(shown.includes(secret), false, `${what} in full in the document`);
          assert.ok(shown.includes(`${secret.slice(0, 8)}…`), `${what} shown shortened`);
        }
        // The credential is bound to the key the page made.
        const payload = JSON.parse(Buffer.from(String(secrets.credential?.split('.')[1]), 'base64url').toString('utf8'));
        assert.deepEqual(payload.cnf.jwk, proofHeader.jwk);
      } finally {
        await context.close();
      }
    });
  }

  test('the command-line wallet’s commands are printed with --allow-http for this http deployment', async () => {
    const context = await chrome.browser.newContext(DESKTOP);
    try {
      const page = await context.newPage();
      await page.goto(`${site.origin}/demo`);
      assert.match(String(await page.locator('#step-issue p code').first().textContent()), / --allow-http$/);
      await page.getByRole('button', { name: 'Get a demo pass' }).click();
      await page.locator('#offer:not([hidden])').waitFor({ timeout: WAIT_MS });
      const offerUri = String(await page.locator('#offer-link').getAttribute('href'));
      assert.equal(await page.locator('#offer-command').textContent(), `npx openrail wallet collect '${offerUri}' --allow-http`);
    } finally {
      await context.close();
    }
  });

  test('where the browser offers the Digital Credentials API, the page asks a wallet of this device through it', async () => {
    const context = await chrome.browser.newContext(DESKTOP);
    try {
      const page = await context.newPage();
      const watch = await watchPage(page);
      const holderKey = await newHolderKey();
      let credential = '';
      const asked: string[][] = [];
      // The platform's wallet, stubbed: navigator.credentials.get hands the requests to the oid4vc-ts
      // wallet in this process, which answers the signed one as the platform would for this origin.
      await page.exposeFunction('__wallet', async (requestsJson: string) => {
        const requests = JSON.parse(requestsJson) as Array<{ protocol: string; data: Record<string, unknown> }>;
        asked.push(requests.map((r) => r.protocol));
        const request = requests.find((r) => r.protocol === 'openid4vp-v1-signed');
        assert.ok(request);
        const dc = await answerDcApi({
          request,
          origin: site.origin,
          credential,
          holderKey,
          baseUrl: site.origin,
          publicUrl: site.origin,
        });
        return JSON.stringify({ protocol: dc.protocol, data: dc.data });
      });
      await page.addInitScript({
        content: `window.DigitalCredential = function DigitalCredential() {};
        navigator.credentials.get = async (options) => JSON.parse(await window.__wallet(JSON.stringify(options.digital.requests)));`,
      });
      await page.goto(`${site.origin}/demo`);
      await page.locator('#dc-note').waitFor({ state: 'visible', timeout: WAIT_MS });
      await page.getByRole('button', { name: 'Get a demo pass' }).click();
      await page.locator('#offer:not([hidden])').waitFor({ timeout: WAIT_MS });
      const offerUri = String(await page.locator('#offer-link').getAttribute('href'));
      credential = await collectWithWallet({ offerUri, holderKey, baseUrl: site.origin, publicUrl: site.origin });
      await page.getByText('Collected: the pass is in your wallet').waitFor({ timeout: WAIT_MS });
      assert.equal(
        await page.getByRole('button', { name: 'Present from this page’s wallet' }).isDisabled(),
        true,
        'another wallet collected it: the page’s own holds nothing',
      );
      await page.getByRole('button', { name: 'Ask for the pass' }).click();
      await page.getByRole('button', { name: 'Ask a wallet on this device (Digital Credentials API)' }).click();
      await page.locator('#present-status', { hasText: /^Verified$/ }).waitFor({ timeout: WAIT_MS });
      assert.deepEqual(asked, [['openid4vp-v1-signed', 'openid4vp-v1-unsigned']]);
      assert.deepEqual((await page.locator('#outcome th').allTextContents()).sort(), ASKED);
      await assertClean(page, watch, 'the demo through the Digital Credentials API');
    } finally {
      await context.close();
    }
  });
});
