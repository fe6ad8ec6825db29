/**
 * The pages of the composed service in a real browser (Debian Chromium via playwright-core), on a
 * real socket whose origin is the service's PUBLIC_URL. One browser context asserts that the pages
 * run under their CSP without a violation or a console error; a second one, with bypassCSP, exists
 * only so axe-core can be injected, and checks accessibility.
 *
 * WEB_SCREENSHOTS=<folder> also saves web-home.png and web-docs.png there.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeOnPage, chromiumMissing, closeBrowser, openWatchedPage, WAIT_MS } from '../../../test/helpers/chromium.ts';
import { sqliteRailOnSocket } from '../../../test/helpers/rail.ts';
import { webAssets } from '../../web/assets.ts';
import { MAIN_NAV } from '../../web/layout.ts';
import { PUBLIC_DOCUMENTS } from './public-pages.ts';

const skip = chromiumMissing();
const screenshots = process.env.WEB_SCREENSHOTS;

/** What the test reads inside the page. Only self-contained functions are evaluated there (a string would be eval()). */
type InPage = {
  __csp: string[];
  document: unknown;
  getComputedStyle(element: unknown): { backgroundColor: string };
};

describe('the home, API reference and verify pages of the service in Chromium', { skip: skip ?? false }, () => {
  const site = sqliteRailOnSocket();
  let doc: { paths: Record<string, Record<string, unknown>> };
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let consoleErrors: string[] = [];
  let pageErrors: string[] = [];

  before(async () => {
    doc = (await (await fetch(`${site.origin}/openapi.json`)).json()) as typeof doc;

    ({ browser, context, page, consoleErrors, pageErrors } = await openWatchedPage());
  });

  after(async () => {
    await closeBrowser({ context, browser });
  });

  async function open(path: string): Promise<string> {
    const response = await page.goto(`${site.origin}${path}`);
    assert.ok(response);
    assert.equal(response.status(), 200);
    const csp = response.headers()['content-security-policy'];
    assert.ok(csp, 'the page has a Content-Security-Policy');
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|nonce-/);
    return csp;
  }

  async function assertClean(what: string) {
    const violations = await page.evaluate(() => (globalThis as unknown as InPage).__csp);
    assert.deepEqual(violations, [], `${what}: securitypolicyviolation events`);
    assert.deepEqual(consoleErrors, [], `${what}: console errors`);
    assert.deepEqual(pageErrors, [], `${what}: uncaught page errors`);
  }

  /** axe-core in its own context that bypasses CSP (so the script can be injected); serious and critical only. */
  async function axeViolations(path: string, prepare?: (page: Page) => Promise<void>): Promise<string[]> {
    const axeContext = await browser.newContext({ bypassCSP: true });
    try {
      const axePage = await axeContext.newPage();
      await axePage.goto(`${site.origin}${path}`);
      if (prepare) await prepare(axePage);
      return await axeOnPage(axePage);
    } finally {
      await axeContext.close();
    }
  }

  const operationPath = (p: Page, path: string) => p.locator('.opblock-summary-path', { hasText: path });
  /**
   * An operation's row, scrolled into view: with this many operations Swagger UI draws the rows
   * of a tag as they come near the screen, so a row far down exists only once the page is
   * scrolled towards it.
   */
  async function reveal(p: Page, path: string) {
    const row = operationPath(p, path).first();
    if ((await row.count()) === 0) await p.mouse.wheel(0, -1_000_000);
    for (let step = 0; step < 200 && (await row.count()) === 0; step++) await p.mouse.wheel(0, 600);
    await row.scrollIntoViewIfNeeded({ timeout: WAIT_MS });
    return row;
  }

  test('GET / renders under its CSP: no script at all, the readers, the way in for each', async () => {
    const csp = await open('/');
    assert.equal(
      csp,
      "default-src 'none'; script-src 'none'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
    assert.equal(await page.locator('h1').textContent(), 'Credentials people carry, and anyone can check');
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').count(), MAIN_NAV.length);
    assert.equal(await page.locator('nav a[aria-current="page"]').textContent(), 'Home');
    // the stylesheet applied (style-src 'self'): the header has the brand colour
    const headerBg = await page
      .locator('.site-header')
      .evaluate((el) => (globalThis as unknown as InPage).getComputedStyle(el).backgroundColor);
    assert.equal(headerBg, 'rgb(16, 42, 67)');
    const readers = await page.locator('.kind-cards a').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
    assert.deepEqual(readers, ['/for-people', '/for-business', '/for-cities', '/for-government']);
    assert.equal(await page.getByRole('link', { name: 'Try the demo' }).getAttribute('href'), '/demo');
    assert.equal(await page.getByRole('link', { name: 'Verify a credential' }).getAttribute('href'), '/verify');
    if (screenshots) await page.screenshot({ path: join(screenshots, 'web-home.png'), fullPage: true });
    await assertClean('/');
  });

  test('GET /developers: every operation of /openapi.json counted once, every public document served', async () => {
    await open('/developers');
    const groups = await page.locator('table.groups tbody th').allTextContents();
    for (const group of ['trust', 'tenants', 'issuance', 'verification', 'pages'])
      assert.ok(
        groups.some((g) => g.startsWith(group)),
        group,
      );
    const counted = (await page.locator('table.groups td.count').allTextContents()).reduce((n, c) => n + Number(c), 0);
    const operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    assert.equal(counted, operations, 'every operation of /openapi.json is counted once');
    const documents = await page.locator('ul.documents a').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
    assert.deepEqual(
      documents,
      PUBLIC_DOCUMENTS.map((d) => d.path),
    );
    for (const path of documents) assert.equal((await fetch(`${site.origin}${path}`)).status, 200, `${path} is served`);
    assert.equal(await page.getByRole('link', { name: 'API reference' }).getAttribute('href'), '/docs');
    await assertClean('/developers');
  });

  test('GET /docs renders the operations of /openapi.json with Swagger UI, under a CSP without unsafe-*, and tries one', async () => {
    const csp = await open('/docs');
    assert.match(
      csp,
      /^default-src 'none'; script-src 'self' 'sha256-[A-Za-z0-9+/]{43}='; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'$/,
    );
    assert.ok(csp.includes(webAssets().script('docs.js').cspHash));
    assert.equal(await page.locator('h1', { hasText: 'API reference' }).count(), 1);

    await operationPath(page, '/t/{tenant}/did.json').waitFor({ timeout: WAIT_MS });
    for (const path of ['/.well-known/did.json', '/api/tenants', '/verify/request', '/token']) {
      assert.equal(await (await reveal(page, path)).isVisible(), true, path);
    }
    // Swagger UI's own <main> is replaced by a labelled region: one main landmark on the page.
    assert.equal(await page.locator('main').count(), 1);
    assert.equal(await page.getByRole('region', { name: 'Operations' }).count(), 1);

    // Interactive: open an operation, try it, and the request goes to this origin (connect-src 'self').
    await reveal(page, '/t/{tenant}/did.json');
    const did = page.locator('.opblock-get', { has: operationPath(page, '/t/{tenant}/did.json') });
    await did.locator('.opblock-summary-control').click();
    await did.getByRole('button', { name: 'Try it out' }).click();
    await did.locator('input[placeholder="tenant"]').fill('demo-transit');
    const answered = page.waitForResponse((r) => r.url() === `${site.origin}/t/demo-transit/did.json`, { timeout: WAIT_MS });
    await did.getByRole('button', { name: 'Execute' }).click();
    assert.equal((await answered).status(), 200);
    await did.locator('.live-responses-table .response-col_status', { hasText: '200' }).waitFor({ timeout: WAIT_MS });
    assert.match(String(await did.locator('.live-responses-table .microlight').first().textContent()), /did:web:/);

    if (screenshots) await page.screenshot({ path: join(screenshots, 'web-docs.png'), fullPage: true });
    await assertClean('/docs');
  });

  test('an unknown page answers 404 as a page of the site, under the same kind of policy', async () => {
    const response = await page.goto(`${site.origin}/no-such-page`);
    assert.equal(response?.status(), 404);
    assert.match(String(response?.headers()['content-type']), /^text\/html/);
    assert.equal(await page.locator('h1').textContent(), 'Not Found');
    assert.match(String(response?.headers()['content-security-policy']), /^default-src 'none'; script-src 'none'/);
    // Chrome reports the page's own status in the console; anything else would be the page's doing.
    const own = `Failed to load resource: the server responded with a status of 404 (Not Found) (${site.origin}/no-such-page)`;
    assert.deepEqual(consoleErrors.splice(consoleErrors.indexOf(own), 1), [own]);
    await assertClean('the 404 page');
  });

  test('static files: content types, immutable fingerprinted URLs, ETag revalidation', async () => {
    const css = webAssets().linked('/assets/site.css');
    const res = await fetch(`${site.origin}${css.url}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/css; charset=utf-8');
    assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    const etag = res.headers.get('etag');
    assert.ok(etag);
    const again = await fetch(`${site.origin}/assets/site.css`, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    const bundle = await fetch(`${site.origin}/docs/assets/swagger-ui-bundle.js`);
    assert.equal(bundle.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal((await fetch(`${site.origin}/docs/assets/index.html`)).status, 404);
    assert.equal((await fetch(`${site.origin}/docs/assets/swagger-ui-bundle.js.map`)).status, 404);
  });

  test('axe-core: no serious or critical violation on /', async () => {
    assert.deepEqual(await axeViolations('/'), []);
  });

  test('axe-core: no serious or critical violation on /verify', async () => {
    assert.deepEqual(
      await axeViolations('/verify', async (p) => {
        await p.locator('input[name=claim]').first().waitFor({ timeout: WAIT_MS });
      }),
      [],
    );
  });

  test('axe-core: no serious or critical violation on /docs, with operations in try-it-out mode and a live response', async () => {
    const violations = await axeViolations('/docs', async (p) => {
      await operationPath(p, '/t/{tenant}/did.json').first().waitFor({ timeout: WAIT_MS });
      await reveal(p, '/api/tenants');
      const post = p.locator('.opblock-post', { has: operationPath(p, '/api/tenants') }).first();
      await post.locator('.opblock-summary-control').click();
      await post.getByRole('button', { name: 'Try it out' }).click();
      await post.locator('textarea').waitFor({ timeout: WAIT_MS });
      const get = p.locator('.opblock-get', { has: operationPath(p, '/t/{tenant}/did.json') });
      await get.locator('.opblock-summary-control').click();
      await get.getByRole('button', { name: 'Try it out' }).click();
      await get.locator('input[placeholder="tenant"]').fill('demo-transit');
      await get.getByRole('button', { name: 'Execute' }).click();
      await get.locator('.live-responses-table .response-col_status', { hasText: '200' }).waitFor({ timeout: WAIT_MS });
    });
    assert.deepEqual(violations, []);
  });
});
