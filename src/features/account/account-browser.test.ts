/**
 * The account portal end to end in a real browser (Debian Chromium via playwright-core), with the
 * reference wallet (`openrail wallet`, its own process) as the holder's phone: the browser opens
 * the sign-in page, the wallet approves the URL the page shows, the browser continues to the
 * overview and downloads the export. The rail listens on a real socket whose PUBLIC_URL is its own
 * http://127.0.0.1:<port> origin, on each engine.
 *
 * Pages are checked under their CSP (no violation, no console error), with axe-core in a second
 * context that bypasses CSP only so the script can be injected (serious and critical violations),
 * and at a phone's width (nothing wider than the screen). Screenshots go to test/artifacts/.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import {
  ARTIFACTS,
  chromiumMissing,
  closeBrowser,
  horizontalOverflow,
  openWatchedPage,
  SAVE_SCREENSHOTS,
  axeViolations as sharedAxeViolations,
  WAIT_MS,
} from '../../../test/helpers/chromium.ts';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { newWallet, runWallet } from '../../../test/helpers/process.ts';
import { postAsOwner, startRailOnSocket, type TestRail } from '../../../test/helpers/rail.ts';
import { p256Thumbprint } from '../../core/jose/es256.ts';

const skip = chromiumMissing();

const DESKTOP: BrowserContextOptions = {
  viewport: { width: 1280, height: 800 },
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
};
const PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
  userAgent:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
};

const TENANT_NAME = 'Harbour Rowing Club';
const MEMBER_NAME = 'Grace Hopper';
/** The coin ledger the operator writes, in order: [delta, reason, balance after]. */
const LEDGER: ReadonlyArray<readonly [number, string, number]> = [
  [50, 'Welcome to the club', 50],
  [-20, 'Spring regatta dinner', 30],
  [15, 'Volunteered at the boathouse', 45],
  [-5, 'Locker rental, May', 40],
];
const BALANCE = 40;

/** What the test reads inside the page (the project's lib has no DOM types). Only functions are evaluated there. */
type InPage = { __csp: string[] };

for (const [index, factory] of testDatabases().entries()) {
  /** Screenshots from the first engine only: the pages are the same on both. */
  const screenshots = index === 0 && SAVE_SCREENSHOTS;

  describe(`the account portal in Chromium, signed in by the openrail wallet (${factory.name})`, { skip: skip ?? false }, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let origin: string;
    let home: string;
    let account: string;
    let tenant: string;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let consoleErrors: string[] = [];
    let pageErrors: string[] = [];

    const wallet = (...args: string[]) => runWallet(home, ...args);

    const api = (path: string, body: unknown, expected: number) => postAsOwner(origin, path, body, expected);

    async function assertClean(what: string) {
      const violations = await page.evaluate(() => (globalThis as unknown as InPage).__csp);
      assert.deepEqual(violations, [], `${what}: securitypolicyviolation events`);
      assert.deepEqual(consoleErrors, [], `${what}: console errors`);
      assert.deepEqual(pageErrors, [], `${what}: uncaught page errors`);
    }

    /** The approve URL the sign-in page shows (its link for a wallet on the same device). */
    async function approveUrlOf(p: Page): Promise<string> {
      const href = await p.getByRole('link', { name: 'Open the approval in your wallet' }).getAttribute('href');
      assert.ok(href, 'the sign-in page links the approval');
      assert.match(href, new RegExp(`^${origin.replace(/\./g, '\\.')}/account/approve\\?t=[A-Za-z0-9_-]{43}$`));
      return href;
    }

    /** The phone: `openrail wallet approve <url>`, which names the browser that asked. */
    async function approveWithWallet(url: string, askedBy = 'Chrome on Linux') {
      const run = await wallet('approve', url, '--allow-http');
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, `approved the sign-in asked by ${askedBy}\n`);
    }

    /** A second context (a phone, or axe-core's CSP-bypassing one) signed in as the main one is. */
    async function sideContext(options: BrowserContextOptions): Promise<BrowserContext> {
      const side = await browser.newContext(options);
      await side.addCookies(await context.cookies());
      return side;
    }

    /** axe-core on `path` (serious and critical only), signed in, in a context that bypasses CSP so the script can be injected. */
    async function axeViolations(path: string): Promise<string[]> {
      const axeContext = await sideContext({ ...DESKTOP, bypassCSP: true });
      try {
        return await sharedAxeViolations(axeContext, `${origin}${path}`);
      } finally {
        await axeContext.close();
      }
    }

    const overflow = horizontalOverflow;

    const shoot = async (p: Page, name: string) => {
      if (screenshots) await p.screenshot({ path: join(ARTIFACTS, name), fullPage: true });
    };

    before(async () => {
      db = await factory.create();
      ({ rail, origin } = await startRailOnSocket(db));
      ({ home, account } = await newWallet());
      const { key } = JSON.parse(readFileSync(join(home, 'openrail-wallet.json'), 'utf8'));
      assert.equal(account, p256Thumbprint(key), 'the account is the RFC 7638 thumbprint of the wallet key');

      tenant = String((await api('/api/tenants', { name: TENANT_NAME }, 201)).slug);
      await api('/api/members/enroll', { tenant, accountId: account, displayName: MEMBER_NAME, tier: 'gold' }, 201);
      for (const [i, [delta, reason]] of LEDGER.entries()) {
        const coins = { delta, reason, idempotencyKey: `browser-${i}` };
        await api('/api/members/update', { tenant, accountId: account, coins }, 200);
      }

      mkdirSync(ARTIFACTS, { recursive: true });
      ({ browser, context, page, consoleErrors, pageErrors } = await openWatchedPage(DESKTOP));
    });

    after(async () => {
      await closeBrowser({ context, browser });
      await rail?.stop();
      await db?.drop();
      if (home) rmSync(home, { recursive: true, force: true });
    });

    test('continuing before the wallet approved shows "Not approved yet" and keeps the same request', async () => {
      const response = await page.goto(`${origin}/account/signin`);
      assert.equal(response?.status(), 200);
      assert.equal(response?.headers()['referrer-policy'], 'same-origin', 'so that its form carries its Origin');
      assert.equal(await page.locator('h1').textContent(), 'Sign in to your account');
      assert.equal(await page.locator('.qr-figure svg').count(), 1, 'the QR code is in the page');
      await page.getByRole('status').filter({ hasText: 'Waiting for your wallet' }).waitFor({ timeout: WAIT_MS });
      const url = await approveUrlOf(page);
      await shoot(page, 'account-signin.png');

      await page.getByRole('button', { name: 'I approved it: continue' }).click();
      await page.getByRole('status').filter({ hasText: 'Not approved yet' }).waitFor({ timeout: WAIT_MS });
      assert.equal(page.url(), `${origin}/account/signin/continue`);
      assert.equal(await approveUrlOf(page), url, 'the same request, still open');
      await shoot(page, 'account-signin-not-yet.png');
      await assertClean('the sign-in page, before and after an early continue');
    });

    test('without JavaScript: the wallet approves the URL the page shows, and "continue" signs the browser in', async () => {
      const noScript = await browser.newContext({ ...DESKTOP, javaScriptEnabled: false });
      try {
        const p = await noScript.newPage();
        await p.goto(`${origin}/account/signin`);
        await approveWithWallet(await approveUrlOf(p));
        await Promise.all([
          p.waitForURL(`${origin}/account`, { timeout: WAIT_MS }),
          p.getByRole('button', { name: 'I approved it: continue' }).click(),
        ]);
        assert.equal(await p.locator('h1').textContent(), 'Your account');
        assert.equal(await p.locator('main code').first().textContent(), account);
        assert.equal(await p.getByRole('region', { name: TENANT_NAME }).locator('table tbody tr').count(), LEDGER.length);
      } finally {
        await noScript.close();
      }
    });

    test('the wallet approves; the waiting page continues by itself to /account, with the balance and ledger', async () => {
      await approveWithWallet(await approveUrlOf(page));
      await page.waitForURL(`${origin}/account`, { timeout: WAIT_MS });
      assert.equal(await page.locator('h1').textContent(), 'Your account');
      assert.equal(await page.locator('main code').first().textContent(), account);
      const programme = page.getByRole('region', { name: TENANT_NAME });
      assert.equal(await programme.count(), 1, 'a section for the programme');
      const terms = await programme.locator('dl dt').allTextContents();
      const values = await programme.locator('dl dd').allTextContents();
      const facts = Object.fromEntries(terms.map((term, i) => [term, values[i]]));
      assert.deepEqual(facts, { Name: MEMBER_NAME, Tier: 'gold', Status: 'active', Coins: String(BALANCE) });

      const rows = programme.locator('table tbody tr');
      assert.equal(await rows.count(), LEDGER.length);
      for (const [i, [delta, reason, balanceAfter]] of LEDGER.entries()) {
        const cells = await rows.nth(i).locator('td').allTextContents();
        assert.match(cells[0] ?? '', /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/, 'when, to the minute');
        assert.deepEqual(cells.slice(1), [delta > 0 ? `+${delta}` : String(delta), reason, String(balanceAfter)]);
      }
      await shoot(page, 'account-overview.png');
      await assertClean('the overview');
    });

    test('the export button downloads the account as openrail-account-export/2 JSON, ledger included', async () => {
      const [download] = await Promise.all([
        page.waitForEvent('download', { timeout: WAIT_MS }),
        page.getByRole('button', { name: 'Download my data (JSON)' }).first().click(),
      ]);
      assert.equal(download.suggestedFilename(), `openrail-account-${account.slice(0, 8)}.json`);
      const exported = JSON.parse(readFileSync(await download.path(), 'utf8'));
      assert.equal(exported.format, 'openrail-account-export/2');
      assert.equal(exported.accountId, account);
      assert.equal(exported.memberships.length, 1);
      const [membership] = exported.memberships;
      assert.equal(membership.tenant, tenant);
      assert.equal(membership.tenantName, TENANT_NAME);
      assert.equal(membership.displayName, MEMBER_NAME);
      assert.equal(membership.balance, BALANCE);
      assert.deepEqual(
        membership.coinLedger.map((e: { delta: number; reason: string; balanceAfter: number }) => [
          e.delta,
          e.reason,
          e.balanceAfter,
        ]),
        LEDGER,
      );
      assert.equal(page.url(), `${origin}/account`, 'the page stays where it was');
      await assertClean('the overview, after the download');
    });

    test('axe-core: no serious or critical violation on the sign-in, approve and overview pages', async () => {
      const probe = await sideContext(DESKTOP);
      let approvePath: string;
      try {
        const p = await probe.newPage();
        await p.goto(`${origin}/account/signin`);
        const url = new URL(await approveUrlOf(p));
        approvePath = `${url.pathname}${url.search}`;
      } finally {
        await probe.close();
      }
      for (const path of ['/account/signin', approvePath, '/account']) assert.deepEqual(await axeViolations(path), [], path);
    });

    test('at a phone’s width nothing is wider than the screen, and the QR code fits', async () => {
      const phone = await sideContext(PHONE);
      try {
        const p = await phone.newPage();
        await p.goto(`${origin}/account/signin`);
        assert.equal(await overflow(p), 0, '/account/signin overflows');
        const qr = await p.locator('.qr-figure svg').boundingBox();
        assert.ok(qr && qr.width >= 200 && qr.width <= 300, `the QR code is ${qr?.width}px wide`);
        assert.equal(Math.round(qr.width), Math.round(qr.height), 'and square');
        await shoot(p, 'account-signin-phone.png');

        // A wallet on the same phone follows the link: the explainer names this browser.
        await p.getByRole('link', { name: 'Open the approval in your wallet' }).click();
        await p.waitForURL(/\/account\/approve\?t=/, { timeout: WAIT_MS });
        assert.match(String(await p.locator('.lead').textContent()), /^Chrome on Android asked to sign in/);
        assert.equal(await overflow(p), 0, '/account/approve overflows');
        await shoot(p, 'account-approve-phone.png');

        const response = await p.goto(`${origin}/account`);
        assert.equal(response?.status(), 200);
        assert.equal(await overflow(p), 0, '/account overflows');
        await shoot(p, 'account-overview-phone.png');
      } finally {
        await phone.close();
      }
    });

    test('the approve page on a desktop, as a person following the link sees it', async () => {
      const desk = await sideContext(DESKTOP);
      try {
        const p = await desk.newPage();
        await p.goto(`${origin}/account/signin`);
        await p.goto(await approveUrlOf(p));
        assert.equal(await p.locator('h1').textContent(), 'Approve a sign-in');
        assert.match(String(await p.locator('.lead').textContent()), /^Chrome on Linux asked to sign in/);
        await shoot(p, 'account-approve.png');
      } finally {
        await desk.close();
      }
    });

    /*
     * The data page and erasure (docs/account.md, "Erasure"). They erase the account, so they
     * stay last in this suite.
     */
    describe('the data page and erasure', () => {
      test('the data page lists what is held and asks for an explicit confirmation before erasing', async () => {
        await page.goto(`${origin}/account/data`);
        assert.equal(await page.locator('h1').textContent(), 'Your data');
        const confirm = page.locator('form[action="/account/erase"] input[type="checkbox"][name="confirm"][value="erase"]');
        assert.equal(await confirm.count(), 1);
        assert.equal(await confirm.getAttribute('required'), '', 'the confirmation is required');
        const erase = page.getByRole('button', { name: 'Erase my data' });
        assert.match(String(await erase.getAttribute('class')), /\bbutton\b.*\bdanger\b/);
        await shoot(page, 'account-data.png');
        assert.deepEqual(await axeViolations('/account/data'), [], '/account/data');
        const phone = await sideContext(PHONE);
        try {
          const p = await phone.newPage();
          await p.goto(`${origin}/account/data`);
          assert.equal(await overflow(p), 0, '/account/data overflows');
          await shoot(p, 'account-data-phone.png');
        } finally {
          await phone.close();
        }

        // Unconfirmed, the browser does not send the form at all: the required box is missing.
        const missing = () =>
          confirm.evaluate((box) => (box as unknown as { validity: { valueMissing: boolean } }).validity.valueMissing);
        assert.equal(await missing(), true);
        await erase.click();
        assert.equal(await page.locator('h1').textContent(), 'Your data');
        assert.equal(page.url(), `${origin}/account/data`);
        await assertClean('the data page');
      });

      test('erasing answers a receipt and ends the session; signing in again finds an empty account', async () => {
        await page.locator('input[name="confirm"]').check();
        const [response] = await Promise.all([
          page.waitForResponse((r) => r.url() === `${origin}/account/erase` && r.request().method() === 'POST', {
            timeout: WAIT_MS,
          }),
          page.getByRole('button', { name: 'Erase my data' }).click(),
        ]);
        assert.equal(response.status(), 200);
        await page.locator('h1', { hasText: 'Your data is erased' }).waitFor({ timeout: WAIT_MS });
        const receipt = String(await page.locator('.lead code').first().textContent());
        assert.ok(receipt.length > 0, 'a receipt id');
        await shoot(page, 'account-erased.png');
        await assertClean('the erasure receipt');
        await page.goto(`${origin}/account`);
        assert.equal(page.url(), `${origin}/account/signin`, 'the session ended with the erasure');

        await page.goto(`${origin}/account/signin`);
        await approveWithWallet(await approveUrlOf(page));
        // The page's own script continues once it sees the approval. No click here: a click racing
        // the script's own continue would post the ticket a second time, after the first spent it,
        // and the browser would end on a fresh sign-in page (the no-JavaScript path is tested above).
        await page.waitForURL(`${origin}/account`, { timeout: WAIT_MS });
        assert.equal(await page.getByText('You are not a member of any programme yet.').count(), 1);
        assert.equal(await page.getByRole('region', { name: TENANT_NAME }).count(), 0);
        await assertClean('the overview after erasure');
      });
    });
  });
}
