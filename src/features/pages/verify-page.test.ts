/**
 * GET /verify in a real browser (Debian Chromium via playwright-core), answered by the real wallet
 * of test/helpers/oid4vp-wallet.ts. The rail listens on a real socket and its PUBLIC_URL is that
 * socket's own http://127.0.0.1:<port> origin, so the page's same-origin fetches, its QR image and
 * the wallet all reach the same service at the address it publishes.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromiumMissing, closeBrowser, openWatchedPage, WAIT_MS, watchPage } from '../../../test/helpers/chromium.ts';
import { type HolderKey, newHolderKey } from '../../../test/helpers/holder.ts';
import { CARD_CLAIMS, CARD_SUBJECT } from '../../../test/helpers/issuance.ts';
import { newDeviceKey } from '../../../test/helpers/mdoc-wallet.ts';
import { answerDcApi, collectWithWallet, presentWithWallet, type WalletOverrides } from '../../../test/helpers/oid4vp-wallet.ts';
import { runWallet } from '../../../test/helpers/process.ts';
import { postAsOwner, sqliteRailOnSocket } from '../../../test/helpers/rail.ts';

/** A request the page hands navigator.credentials.get. */
type DcRequest = { protocol: string; data: Record<string, unknown> };

const CLAIMS = CARD_CLAIMS;
const SUBJECT = CARD_SUBJECT;
const UNCHECKED = 'member_number';
/** The label the page shows for a claim (docs/credential-types.md: the claim key, words capitalised). */
const LABELS: Record<string, string> = {
  holder_name: 'Holder name',
  birth_date: 'Birth date',
  student: 'Student',
  class: 'Class',
  member_number: 'Member number',
};
const label = (claim: string) => LABELS[claim] ?? claim;

const skip = chromiumMissing();

/**
 * What the test reads inside the page (the project's lib has no DOM types). Only self-contained
 * functions are evaluated there: a string predicate makes Playwright eval() in the page, which the
 * page's CSP rightly refuses (and reports as a violation).
 */
type InPage = {
  document: { getElementById(id: string): { complete: boolean; naturalWidth: number } };
  __csp: string[];
};

describe('the /verify page in Chromium, answered by the oid4vc-ts wallet', { skip: skip ?? false }, () => {
  const site = sqliteRailOnSocket();
  let slug: string;
  let tenantDid: string;
  let vct: string;
  let typeId: string;
  let credential: string;
  let holderKey: HolderKey;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let consoleErrors: string[] = [];
  let pageErrors: string[] = [];

  const api = (path: string, body: unknown) => postAsOwner(site.origin, path, body);

  before(async () => {
    const tenant = await api('/api/tenants', { name: 'Bruges Chess Circle' });
    slug = String(tenant.slug);
    tenantDid = String(tenant.did);
    assert.equal(tenantDid, `did:web:127.0.0.1%3A${new URL(site.origin).port}:t:${slug}`);
    const type = await api('/api/types', { tenant: slug, name: 'Member Card', claims: CLAIMS });
    vct = String(type.vct);
    typeId = String(type.typeId);
    const offer = await api('/api/offers', { tenant: slug, typeId: type.typeId, subject: SUBJECT });
    holderKey = await newHolderKey();
    credential = await collectWithWallet({
      offerUri: String(offer.offerUri),
      holderKey,
      baseUrl: site.origin,
      publicUrl: site.origin,
    });

    ({ browser, context, page, consoleErrors, pageErrors } = await openWatchedPage());
    // Debian's Chromium ships the Digital Credentials API; this page plays a browser without it.
    await page.addInitScript({ content: 'delete window.DigitalCredential;' });
  });

  after(async () => {
    await closeBrowser({ context, browser });
  });

  const statusText = () => page.locator('#status').textContent();

  /**
   * The browser's Digital Credentials API in `p`, stubbed: navigator.credentials.get hands the
   * requests to the oid4vc-ts wallet in this process, which answers the one `pick` chooses as the
   * platform would for a page at `origin`.
   */
  async function stubDcApi(
    p: Page,
    origin: string,
    pick: (requests: DcRequest[]) => DcRequest | undefined,
    held: () => { credential: string; holderKey: HolderKey } = () => ({ credential, holderKey }),
  ) {
    await p.exposeFunction('__wallet', async (requestsJson: string) => {
      const request = pick(JSON.parse(requestsJson) as DcRequest[]);
      assert.ok(request);
      const dc = await answerDcApi({ request, origin, ...held(), baseUrl: site.origin, publicUrl: site.origin });
      return JSON.stringify({ protocol: dc.protocol, data: dc.data });
    });
    await p.addInitScript({
      content: `window.DigitalCredential = function DigitalCredential() {};
      navigator.credentials.get = async (options) => JSON.parse(await window.__wallet(JSON.stringify(options.digital.requests)));`,
    });
  }

  /** Clicks "Create request" and returns the new openid4vp:// URI once the QR code shows. */
  async function createRequest(previous?: string): Promise<string> {
    const created = page.waitForResponse((r) => r.url() === `${site.origin}/verify/request` && r.request().method() === 'POST', {
      timeout: WAIT_MS,
    });
    await page.getByRole('button', { name: 'Create request' }).click();
    const answer = await created;
    assert.equal(answer.status(), 201);
    const body = (await answer.json()) as { requestUri: string; resultToken: string; dcApi?: unknown };
    assert.equal(body.dcApi, undefined, 'a browser without the Digital Credentials API names no origin');
    assert.equal(await page.locator('#device-wallet').isHidden(), true, 'and is offered no wallet on this device');
    await page.locator('#qr').waitFor({ state: 'visible', timeout: WAIT_MS });
    const link = previous ? `#wallet-link:not([hidden]):not([href=${JSON.stringify(previous)}])` : '#wallet-link:not([hidden])';
    await page.locator(link).waitFor({ state: 'attached', timeout: WAIT_MS });
    const requestUri = await page.locator('#wallet-link').getAttribute('href');
    assert.ok(requestUri, 'the wallet link has an href');
    assert.ok(requestUri.startsWith('openid4vp://?'), `wallet-link href ${requestUri}`);
    assert.equal(requestUri, body.requestUri);
    assert.ok(!(await page.content()).includes(body.resultToken), 'the result token stays in the script, out of the document');
    assert.equal(await statusText(), 'Waiting for the wallet…');

    const src = await page.locator('#qr').getAttribute('src');
    assert.equal(src, `/api/qr?data=${encodeURIComponent(requestUri)}`);
    const qr = await fetch(`${site.origin}${src}`);
    assert.equal(qr.status, 200);
    assert.equal(qr.headers.get('content-type'), 'image/svg+xml');
    assert.match(await qr.text(), /^<svg[\s>]/);
    // The browser loaded it too (img-src 'self').
    await page.waitForFunction(() => (globalThis as unknown as InPage).document.getElementById('qr').complete, null, {
      timeout: WAIT_MS,
    });
    const width = await page.evaluate(() => (globalThis as unknown as InPage).document.getElementById('qr').naturalWidth);
    assert.ok(width > 0, 'the QR image rendered');
    return requestUri;
  }

  function wallet(requestUri: string, overrides?: WalletOverrides) {
    return presentWithWallet({
      requestUri,
      credential,
      holderKey,
      baseUrl: site.origin,
      publicUrl: site.origin,
      ...(overrides ? { overrides } : {}),
    });
  }

  let first: string | undefined;

  test('pick a type and claims, show the QR code, and see the disclosed claims once the wallet presents', async () => {
    const response = await page.goto(`${site.origin}/verify`);
    assert.ok(response);
    assert.equal(response.status(), 200);
    const csp = response.headers()['content-security-policy'];
    assert.ok(csp, 'the page has a Content-Security-Policy');
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'sha256-[A-Za-z0-9+/]+=*'/);
    assert.doesNotMatch(csp, /unsafe-eval|script-src[^;]*unsafe-inline/);

    // The catalog fills the type select.
    await page.locator('#type option').first().waitFor({ state: 'attached', timeout: WAIT_MS });
    const values = await page.locator('#type option').evaluateAll((options) => options.map((o) => o.getAttribute('value')));
    assert.ok(values.includes(vct), `the select offers ${vct}: ${JSON.stringify(values)}`);
    assert.equal(await page.locator('#create').isDisabled(), false);
    await page.selectOption('#type', vct);
    // People read names: the type with its tenant's display name, each claim by its label.
    assert.equal(await page.locator(`#type option[value="${vct}"]`).textContent(), 'Member Card (Bruges Chess Circle)');
    const boxes = page.locator('input[name=claim]');
    const offered = await boxes.evaluateAll((inputs) => inputs.map((i) => i.getAttribute('value')));
    assert.deepEqual(offered, Object.keys(SUBJECT));
    assert.deepEqual(
      (await page.locator('#claims label').allTextContents()).map((t) => t.trim()),
      Object.keys(SUBJECT).map(label),
    );
    await page.uncheck(`input[name=claim][value="${UNCHECKED}"]`);

    const requestUri = await createRequest();
    first = requestUri;
    const run = await wallet(requestUri);
    assert.equal(run.status, 200, JSON.stringify(run.body));
    const asked = Object.keys(SUBJECT).filter((c) => c !== UNCHECKED);
    assert.deepEqual(run.disclosed.sort(), [...asked].sort(), 'the page asked for every checked claim and no other');

    await page.locator('#status', { hasText: /^Verified$/ }).waitFor({ timeout: WAIT_MS });
    assert.equal(await page.locator('#outcome').getAttribute('data-ok'), 'true');
    assert.deepEqual(await page.locator('#outcome th').allTextContents(), asked.map(label));
    assert.deepEqual(
      await page.locator('#outcome td').allTextContents(),
      asked.map((c) => {
        const value = SUBJECT[c as keyof typeof SUBJECT];
        return typeof value === 'string' ? value : JSON.stringify(value);
      }),
    );
    assert.equal(await page.locator('#outcome p').textContent(), `Issued by Bruges Chess Circle (${tenantDid})`);
    assert.equal(await page.locator('#qr').isHidden(), true, 'the QR code is gone once the outcome is in');
    assert.equal(await page.locator('#wallet-link').isHidden(), true);
  });

  test('a presentation with the wrong nonce shows "Not verified" and the failure code', async () => {
    const requestUri = await createRequest(first);
    const run = await wallet(requestUri, { nonce: randomBytes(24).toString('base64url') });
    assert.equal(run.status, 400, JSON.stringify(run.body));
    assert.equal((run.body as { error?: string }).error, 'nonce_mismatch');

    await page.locator('#status', { hasText: /^Not verified$/ }).waitFor({ timeout: WAIT_MS });
    assert.equal(await page.locator('#outcome').getAttribute('data-ok'), 'false');
    assert.match(String(await page.locator('#outcome').textContent()), /^nonce_mismatch \(freshness\): /);
    assert.equal(await page.locator('#outcome table').count(), 0, 'no claims shown');
  });

  test('a request the service no longer knows ends the polling, and the page says why with the reason', async () => {
    const requestUri = await createRequest();
    const requestObject = new URLSearchParams(requestUri.slice('openid4vp://?'.length)).get('request_uri');
    const transactionId = String(requestObject?.split('/').pop());
    const polls: string[] = [];
    const count = (r: { url(): string }) => {
      if (r.url().startsWith(`${site.origin}/verify/result/`)) polls.push(r.url());
    };
    page.on('request', count);
    try {
      // What the storage bound's eviction does (docs/verification.md, "Storage bound").
      await site.rail.db.deleteFrom('presentation_transactions').where('id', '=', transactionId).execute();
      await page.locator('#status', { hasText: /reason: unknown_transaction\)$/ }).waitFor({ timeout: WAIT_MS });
      assert.equal(
        await statusText(),
        'The service no longer knows this request: it expired (after 10 minutes) or was cleared away. Create a new request. (reason: unknown_transaction)',
      );
      const after = polls.length;
      await new Promise((resolve) => setTimeout(resolve, 2500));
      assert.equal(polls.length, after, 'no poll after an answer that can never change');
    } finally {
      page.off('request', count);
    }
  });

  test('the reference wallet, openrail wallet present, answers the page from the command line', async () => {
    const home = mkdtempSync(join(tmpdir(), 'openrail-wallet-'));
    try {
      assert.equal((await runWallet(home, 'init')).code, 0);
      const offer = await api('/api/offers', { tenant: slug, typeId, subject: SUBJECT });
      const collected = await runWallet(home, 'collect', String(offer.offerUri), '--allow-http');
      assert.equal(collected.code, 0, collected.stderr);

      await page.goto(`${site.origin}/verify`);
      await page.locator('#type option').first().waitFor({ state: 'attached', timeout: WAIT_MS });
      await page.selectOption('#type', vct);
      await page.uncheck(`input[name=claim][value="${UNCHECKED}"]`);
      const requestUri = await createRequest();
      const run = await runWallet(home, 'present', requestUri, '--allow-http', '--claims', 'holder_name,student');
      assert.equal(run.code, 1, 'the holder disclosed less than the page asked for');
      assert.match(run.stdout, /^the verifier refused the presentation: required_claim_missing: /m);
      await page.locator('#status', { hasText: /^Not verified$/ }).waitFor({ timeout: WAIT_MS });
      assert.match(String(await page.locator('#outcome').textContent()), /^required_claim_missing \(required_claims\): /);

      const again = await createRequest(requestUri);
      const all = await runWallet(home, 'present', again, '--allow-http', '--all');
      assert.equal(all.code, 0, all.stderr);
      assert.match(all.stdout, /^the verifier accepted the presentation$/m);
      await page.locator('#status', { hasText: /^Verified$/ }).waitFor({ timeout: WAIT_MS });
      assert.deepEqual(
        await page.locator('#outcome th').allTextContents(),
        Object.keys(SUBJECT)
          .filter((c) => c !== UNCHECKED)
          .map(label),
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test('with the Digital Credentials API, the page asks a wallet on this device and shows its answer; the QR code stays as the fallback', async () => {
    // The browser's API, stubbed: navigator.credentials.get hands the requests to the oid4vc-ts
    // wallet in this process (as the platform would, with the page's origin) and returns its answer.
    const dcPage = await context.newPage();
    const watch = await watchPage(dcPage);
    const asked: string[][] = [];
    await stubDcApi(dcPage, site.origin, (requests) => {
      asked.push(requests.map((r) => r.protocol));
      return requests.find((r) => r.protocol === 'openid4vp-v1-signed');
    });
    try {
      await dcPage.goto(`${site.origin}/verify`);
      await dcPage.locator('#type option').first().waitFor({ state: 'attached', timeout: WAIT_MS });
      await dcPage.selectOption('#type', vct);
      const created = dcPage.waitForResponse((r) => r.url() === `${site.origin}/verify/request`, { timeout: WAIT_MS });
      await dcPage.getByRole('button', { name: 'Create request' }).click();
      const body = (await (await created).json()) as { dcApi?: { requests: unknown[] }; resultToken: string };
      assert.equal(body.dcApi?.requests.length, 2, 'the page named its origin: signed and unsigned requests');
      await dcPage.locator('#qr').waitFor({ state: 'visible', timeout: WAIT_MS });
      const relayed = dcPage.waitForResponse((r) => r.url().startsWith(`${site.origin}/verify/response/`), { timeout: WAIT_MS });
      await dcPage.getByRole('button', { name: 'Use a wallet on this device' }).click();
      assert.equal((await relayed).status(), 200);
      await dcPage.locator('#status', { hasText: /^Verified$/ }).waitFor({ timeout: WAIT_MS });
      assert.deepEqual(asked, [['openid4vp-v1-signed', 'openid4vp-v1-unsigned']]);
      assert.deepEqual(await dcPage.locator('#outcome th').allTextContents(), Object.keys(SUBJECT).map(label));
      assert.equal(await dcPage.locator('#qr').isHidden(), true);
      assert.equal(await dcPage.locator('#device-wallet').isHidden(), true);
      assert.ok(!(await dcPage.content()).includes(body.resultToken), 'the result token stays out of the document');
      assert.deepEqual(await dcPage.evaluate(() => (globalThis as unknown as InPage).__csp), []);
      assert.deepEqual([...watch.consoleErrors, ...watch.pageErrors], []);
    } finally {
      await dcPage.close();
    }
  });

  test('a type issued as ISO mdoc too: the page offers the format, asks the wallet on this device for the mdoc and shows its claims', async () => {
    const type = await api('/api/types', { tenant: slug, name: 'Member Pass', claims: CLAIMS, mdoc: {} });
    const offer = await api('/api/offers', { tenant: slug, typeId: type.typeId, subject: SUBJECT });
    const deviceKey = await newDeviceKey();
    const mdoc = await collectWithWallet({
      offerUri: String(offer.offerUri),
      holderKey: deviceKey,
      baseUrl: site.origin,
      publicUrl: site.origin,
      configurationId: `${type.typeId}.mdoc`,
    });
    const dcPage = await context.newPage();
    const watch = await watchPage(dcPage);
    await stubDcApi(
      dcPage,
      site.origin,
      (requests) => requests.find((r) => r.protocol === 'openid4vp-v1-signed'),
      () => ({
        credential: mdoc,
        holderKey: deviceKey,
      }),
    );
    try {
      await dcPage.goto(`${site.origin}/verify`);
      await dcPage.locator('#type option').first().waitFor({ state: 'attached', timeout: WAIT_MS });
      assert.equal(await dcPage.locator('#format-choice').isHidden(), true, 'a type in one format offers no choice');
      await dcPage.selectOption('#type', String(type.vct));
      await dcPage.locator('#format-choice').waitFor({ state: 'visible', timeout: WAIT_MS });
      assert.deepEqual(await dcPage.locator('#format option').allTextContents(), [
        'SD-JWT VC',
        `ISO mdoc (${(type.mdoc as { doctype: string }).doctype})`,
      ]);
      await dcPage.selectOption('#format', 'mso_mdoc');
      const created = dcPage.waitForResponse((r) => r.url() === `${site.origin}/verify/request`, { timeout: WAIT_MS });
      await dcPage.getByRole('button', { name: 'Create request' }).click();
      assert.equal(JSON.parse((await created).request().postData() ?? '{}').format, 'mso_mdoc');
      await dcPage.locator('#qr').waitFor({ state: 'visible', timeout: WAIT_MS });
      await dcPage.getByRole('button', { name: 'Use a wallet on this device' }).click();
      await dcPage.locator('#status', { hasText: /^Verified$/ }).waitFor({ timeout: WAIT_MS });
      assert.deepEqual(await dcPage.locator('#outcome th').allTextContents(), Object.keys(SUBJECT).map(label));
      assert.match(String(await dcPage.locator('#outcome p').textContent()), /presented as an ISO mdoc/);
      assert.deepEqual(await dcPage.evaluate(() => (globalThis as unknown as InPage).__csp), []);
      assert.deepEqual([...watch.consoleErrors, ...watch.pageErrors], []);
    } finally {
      await dcPage.close();
    }
  });

  test('a relying party’s page on another origin embeds /assets/dc-api.js and verifies through it', async () => {
    // The relying party: a page at http://localhost:<port>, another origin than the service's
    // http://127.0.0.1:<port>, loading the script from the service and calling it (CORS, CORP).
    const shop = createServer((_request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end(
        `<!doctype html><html lang="en"><title>Shop</title><script src="${site.origin}/assets/dc-api.js"></script></html>`,
      );
    });
    await new Promise<void>((resolve) => shop.listen(0, resolve));
    const shopOrigin = `http://localhost:${(shop.address() as AddressInfo).port}`;
    const shopPage = await context.newPage();
    const watch = await watchPage(shopPage);
    await stubDcApi(shopPage, shopOrigin, ([first]) => first);
    try {
      const script = shopPage.waitForResponse((r) => r.url() === `${site.origin}/assets/dc-api.js`, { timeout: WAIT_MS });
      await shopPage.goto(shopOrigin);
      assert.equal((await script).headers()['cross-origin-resource-policy'], 'cross-origin');
      type Api = {
        openrailDcApi: {
          open(body: unknown, service: string): Promise<{ dcApi?: unknown }>;
          ask(opened: unknown, service: string): Promise<Record<string, unknown>>;
        };
      };
      const outcome = await shopPage.evaluate(
        async ({ service, asked }) => {
          const { openrailDcApi } = globalThis as unknown as Api;
          const nonce = `shop-${crypto.randomUUID()}`;
          const opened = await openrailDcApi.open(
            { vct: asked, claims: ['holder_name'], nonce, aud: 'https://shop.example' },
            service,
          );
          return openrailDcApi.ask(opened, service);
        },
        { service: site.origin, asked: vct },
      );
      assert.equal(outcome.ok, true, JSON.stringify(outcome));
      assert.equal(outcome.presentedAud, 'https://shop.example', "the shop's own aud, as it sent it");
      assert.deepEqual(outcome.presentation, { claims: { holder_name: SUBJECT.holder_name }, vct, issuer: tenantDid });
      assert.deepEqual([...watch.consoleErrors, ...watch.pageErrors], []);
    } finally {
      await shopPage.close();
      await new Promise<void>((resolve) => shop.close(() => resolve()));
    }
  });

  test('no CSP violation and no console error on the page', async () => {
    const violations = await page.evaluate(() => (globalThis as unknown as InPage).__csp);
    assert.deepEqual(violations, [], 'securitypolicyviolation events');
    assert.deepEqual(
      consoleErrors.filter((e) => /Content[- ]Security[- ]Policy|Refused to/i.test(e)),
      [],
      'CSP reports in the console',
    );
    assert.deepEqual(consoleErrors, [], 'console errors');
    assert.deepEqual(pageErrors, [], 'uncaught page errors');
  });
});
