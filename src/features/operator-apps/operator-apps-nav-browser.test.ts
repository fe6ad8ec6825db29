/**
 * How the operators' apps find their way, in a real browser (Debian Chromium via playwright-core)
 * on a real socket (docs/admin-app.md, "Navigation" and "Tables"): the back office's start page
 * links to the pages used most, as far as the operator's roles open them; its navigation is in
 * sections, names each page once, and narrows to the links that match as a person types (its
 * script runs under the page's CSP); and the console's organisation table shows each DID on one
 * line on a desktop and wrapped between its parts on a phone, with no table cell narrower than a
 * word it holds. Screenshots go to test/artifacts/apps-*.png. The HTML is the same on every
 * engine (operator-apps.test.ts runs both), so this runs on the first.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import {
  assertClean,
  axeOnPage,
  chromiumForSuite,
  chromiumMissing,
  DESKTOP,
  horizontalOverflow,
  narrowCells,
  type PageWatch,
  PHONE,
  shoot,
  WAIT_MS,
  watchPage,
} from '../../../test/helpers/chromium.ts';
import { postAsOwner, sqliteRailOnSocket } from '../../../test/helpers/rail.ts';

const skip = chromiumMissing();
const PASSWORD = 'a long enough password for the suite';
/** A name whose slug, and so whose DID, is as long as a slug may be. */
const LONG_NAME = 'Riverside Library of the Northern Counties Cooperative';

interface Signed {
  context: BrowserContext;
  page: Page;
  watch: PageWatch;
}

describe('the back office’s start page and navigation, and the console’s organisation table, in Chromium', {
  skip: skip ?? false,
}, () => {
  const site = sqliteRailOnSocket(() => ({ OPENRAIL_DEMO: 'off' }));
  const chrome = chromiumForSuite();
  const opened: BrowserContext[] = [];
  let acme: string;

  /** A browser context of `options` signed in as `username` with its password, on `target`. */
  async function signIn(username: string, target: string, options: BrowserContextOptions = DESKTOP): Promise<Signed> {
    const context = await chrome.browser.newContext(options);
    opened.push(context);
    const page = await context.newPage();
    const watch = await watchPage(page);
    await page.goto(`${site.origin}${target}`);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: /sign in/i }).click();
    await page.waitForURL(`${site.origin}${target}`, { timeout: WAIT_MS });
    return { context, page, watch };
  }

  /** The text of the navigation's links a person sees now. */
  const shownLinks = (page: Page) => page.locator('.app-nav li:visible a').allInnerTexts();

  before(async () => {
    acme = String((await postAsOwner(site.origin, '/api/tenants', { name: 'Acme Rowing' })).slug);
    await postAsOwner(site.origin, '/api/tenants', { name: LONG_NAME });
    await postAsOwner(site.origin, '/api/operators', { username: 'olga', password: PASSWORD, roles: ['owner'] });
    await postAsOwner(site.origin, '/api/operators', {
      username: 'tia',
      password: PASSWORD,
      roles: ['tenant-admin'],
      tenant: acme,
    });
  });
  after(async () => {
    for (const context of opened) await context.close();
  });

  test('the start page links, a click each, to approvals, people, organisations, credentials, audit and health, as the roles open them', async () => {
    const olga = await signIn('olga', '/admin');
    const start = olga.page.getByRole('navigation', { name: 'Start here' });
    const hrefs = await start.getByRole('link').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    assert.deepEqual(hrefs, [
      '/admin/approvals',
      '/admin/people/operators',
      '/admin/orgs',
      '/admin/credentials',
      '/admin/audit',
      '/admin/ops/health',
    ]);
    for (const [name, path] of [
      ['Approvals', '/admin/approvals'],
      ['People', '/admin/people/operators'],
      ['Health', '/admin/ops/health'],
    ]) {
      await start.getByRole('link', { name: new RegExp(`^${name}`) }).click();
      await olga.page.waitForURL(`${site.origin}${path}`, { timeout: WAIT_MS });
      assert.equal(await olga.page.locator('h1').count(), 1, path);
      await olga.page.goBack();
    }
    await assertClean(olga.page, olga.watch, 'the start page');
    // An organisation's admin sees only the pages its roles open: no people, no health.
    const tia = await signIn('tia', '/admin');
    assert.deepEqual(await tia.page.getByRole('navigation', { name: 'Start here' }).locator('strong').allInnerTexts(), [
      'Approvals',
      'Organisations',
      'Credentials',
      'Audit',
    ]);
  });

  test('the navigation: in sections, each page once, narrowed as one types, and worked by keyboard', async () => {
    const olga = await signIn('olga', '/admin');
    const { page } = olga;
    assert.deepEqual(await page.locator('.app-nav summary').allInnerTexts(), [
      'Today and support',
      'Approvals',
      'Organisations',
      'People',
      'Credentials and holders',
      'Audit',
      'Analytics',
      'Integration',
      'Partners',
      'Compliance',
      'Operations',
    ]);
    const all = await shownLinks(page);
    const hrefs = await page.locator('.app-nav a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    assert.ok(all.length >= 40, `${all.length} links`);
    assert.equal(new Set(all).size, all.length, `no name twice: ${all.join(', ')}`);
    assert.equal(new Set(hrefs).size, hrefs.length, 'no page twice');
    assert.equal(all[0], 'Today', 'the start page first');

    const box = page.getByLabel('Find a page');
    const status = page.locator('#nav-filter-status');
    // A page shown on another (taking a backup, on Backups) is found by its own name.
    await box.fill('backup');
    assert.deepEqual(await shownLinks(page), ['Backups', 'Backup drills']);
    assert.equal(await status.innerText(), '2 pages match.');
    await box.fill('dsar');
    assert.deepEqual(await shownLinks(page), ['Access requests (DSAR)']);
    assert.equal(await status.innerText(), '1 page matches.');
    // A section's name finds its pages; sections with none left are hidden.
    await box.fill('compliance');
    assert.ok((await shownLinks(page)).includes('Retention rules'));
    assert.deepEqual(await page.locator('.app-nav summary:visible').allInnerTexts(), ['Compliance']);
    await box.fill('webhook deliv');
    assert.deepEqual(await shownLinks(page), ['Webhook deliveries']);
    await box.fill('no such page');
    assert.deepEqual(await shownLinks(page), []);
    assert.equal(await status.innerText(), 'No page matches.');
    await box.press('Escape');
    assert.deepEqual(await shownLinks(page), all, 'Escape shows every link again');
    assert.equal(await status.innerText(), '');

    // The keyboard: Down moves to the first link left, Enter opens it.
    await box.fill('audit');
    await box.press('ArrowDown');
    assert.equal(await page.locator('.app-nav a:focus').innerText(), 'Audit log');
    await box.focus();
    await box.fill('holders');
    assert.deepEqual(await shownLinks(page), ['Holders']);
    await box.press('Enter');
    await page.waitForURL(`${site.origin}/admin/holders`, { timeout: WAIT_MS });
    // The look-up of one holder, which has no link of its own, is on the list's page.
    assert.equal(await page.locator('form[action="/admin/holder"]').count(), 1);
    await assertClean(page, olga.watch, 'the navigation filter');

    // As a person sees it filtered, on a desktop and on a phone: axe-clean, and nothing wider than the phone.
    const phone = await signIn('olga', '/admin', PHONE);
    for (const [shown, name] of [
      [olga, 'apps-admin-nav-filter.png'],
      [phone, 'apps-admin-nav-filter-390.png'],
    ] as const) {
      await shown.page.goto(`${site.origin}/admin`);
      await shown.page.getByLabel('Find a page').fill('credential');
      assert.deepEqual(await axeOnPage(shown.page), [], name);
      assert.equal(await horizontalOverflow(shown.page), 0, name);
      await shoot(shown.page, name);
      await assertClean(shown.page, shown.watch, name);
    }
  });

  test('the console’s organisation table: each DID on one line on a desktop, between its parts on a phone; no cell narrower than a word', async () => {
    for (const [options, name] of [
      [DESKTOP, 'apps-console-organisations.png'],
      [PHONE, 'apps-console-organisations-390.png'],
    ] as const) {
      const { page, watch } = await signIn('olga', '/console', options);
      await page.getByRole('heading', { name: 'Choose an organisation' }).waitFor({ timeout: WAIT_MS });
      const dids = page.locator('main table tbody td:nth-child(3) .value');
      assert.ok((await dids.allInnerTexts()).some((did) => did.endsWith(':riverside-library-of-the-northern-counties-coope')));
      // How many lines each DID takes: the distinct tops of its text's boxes (each part between two <wbr> has its own).
      const lines = await dids.evaluateAll((spans) =>
        spans.map((s) => new Set(Array.from(s.getClientRects(), (r: { top: number }) => Math.round(r.top))).size),
      );
      if (options === DESKTOP)
        assert.ok(
          lines.every((n) => n === 1),
          `DIDs on one line each: ${lines}`,
        );
      else assert.ok(Math.max(...lines) > 1, `the long DID wraps on a phone: ${lines}`);
      assert.deepEqual(await narrowCells(page), [], name);
      assert.equal(await horizontalOverflow(page), 0, name);
      assert.deepEqual(await axeOnPage(page), [], name);
      await shoot(page, name);
      await assertClean(page, watch, name);
      // The back office's full list of organisations, at the same width.
      await page.goto(`${site.origin}/admin/orgs`);
      assert.deepEqual(await narrowCells(page), [], `/admin/orgs, ${name}`);
    }
  });
});
