/**
 * The public pages in a real browser (Debian Chromium via playwright-core), on a real socket
 * (docs/public-pages.md): each page at 1280 px and at 390 px runs clean under its CSP (no
 * violation, no console error), has no serious or critical axe-core violation and nothing wider
 * than the screen, and is kept as a screenshot in test/artifacts/public-*.png; the served documents
 * pass the same checks at 390 px. Then the demo, live: the page's offer is collected by the
 * reference wallet (`openrail wallet`, its own process, run with the arguments the page prints),
 * presented to the page's request and verified, revoked from the page, and refused on the next
 * presentation. (The page's own wallet is demo-page-browser.test.ts.) The HTML is the same on
 * every engine (the HTTP suite runs both), so this runs on the first.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
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
import { runWallet } from '../../../test/helpers/process.ts';
import { sqliteRailOnSocket } from '../../../test/helpers/rail.ts';
import { shippedDocsAt } from '../../adapters/fs/shipped-docs.ts';
import { DOCS_PATH, DocsReader } from './docs-reader.ts';
import { AUDIENCES } from './public-content.ts';

const skip = chromiumMissing();
const PAGES: ReadonlyArray<[string, string]> = [
  ['home', '/'],
  ['capabilities', '/capabilities'],
  ['demo', '/demo'],
  ['developers', '/developers'],
  ['standards', '/standards'],
  ['regulations', '/regulations'],
  ['documents', DOCS_PATH],
  ['document-issuance', `${DOCS_PATH}/issuance`],
  ...AUDIENCES.map((a): [string, string] => [a.path.slice(1), a.path]),
];

/**
 * The arguments of `openrail wallet` in a command as the demo page prints it
 * (`npx openrail wallet <verb> '<link>' <options>`): words, a single-quoted one whole.
 */
function printed(command: string): string[] {
  const words = [...command.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '');
  assert.deepEqual(words.slice(0, 3), ['npx', 'openrail', 'wallet'], command);
  return words.slice(3);
}

/** Documents with every shape the renderer makes: tables, code blocks, headings with code, links kept and dropped. */
const AXE_SAMPLE = ['errors', 'backoffice-approvals', 'wallet-cli', 'architecture'];

describe('the public pages and the demo in Chromium', { skip: skip ?? false }, () => {
  const site = sqliteRailOnSocket();
  const chrome = chromiumForSuite();
  let home: string;

  before(() => {
    home = mkdtempSync(join(tmpdir(), 'openrail-wallet-'));
  });
  after(() => {
    if (home) rmSync(home, { recursive: true, force: true });
  });

  /** axe-core and the width check on the page as it is now, under its CSP. */
  async function accessible(page: Page, what: string) {
    assert.deepEqual(await axeOnPage(page), [], `${what}: axe`);
    assert.equal(await horizontalOverflow(page), 0, `${what}: wider than the screen`);
  }

  for (const [options, suffix, width] of [
    [DESKTOP, '', 1280],
    [PHONE, '-390', 390],
  ] as const) {
    test(`every public page at ${width} px: clean under its CSP, no serious axe violation, nothing wider than the screen`, async () => {
      const context = await chrome.browser.newContext(options);
      try {
        const page = await context.newPage();
        const watch = await watchPage(page);
        for (const [name, path] of PAGES) {
          const response = await page.goto(`${site.origin}${path}`);
          assert.equal(response?.status(), 200, path);
          await assertClean(page, watch, path);
          assert.equal(await horizontalOverflow(page), 0, `${path}: wider than ${width} px`);
          await shoot(page, `public-${name}${suffix}.png`);
          await accessible(page, `${path} at ${width} px`);
        }
      } finally {
        await context.close();
      }
    });
  }

  test('every served document at 390 px: nothing wider than the screen; no serious axe violation on a sample of their shapes', async () => {
    const context = await chrome.browser.newContext(PHONE);
    try {
      const page = await context.newPage();
      const watch = await watchPage(page);
      for (const name of new DocsReader('openrail', shippedDocsAt()).docs.keys()) {
        const path = `${DOCS_PATH}/${name}`;
        assert.equal((await page.goto(`${site.origin}${path}`))?.status(), 200, path);
        await assertClean(page, watch, path);
        assert.equal(await horizontalOverflow(page), 0, `${path}: wider than 390 px`);
        // One renderer makes every document, so axe (seconds a page) runs on those with each shape it renders.
        if (AXE_SAMPLE.includes(name)) await accessible(page, path);
      }
    } finally {
      await context.close();
    }
  });

  test('the demo, live: the reference wallet, run as the page prints it, collects, presents and is verified; revoked, it is refused', async () => {
    const context: BrowserContext = await chrome.browser.newContext(PHONE);
    try {
      const page = await context.newPage();
      const watch = await watchPage(page);
      await page.goto(`${site.origin}/demo`);
      assert.equal(await runWallet(home, 'init').then((r) => r.code), 0);

      await page.getByRole('button', { name: 'Get a demo pass' }).click();
      await page.locator('#offer:not([hidden])').waitFor({ timeout: WAIT_MS });
      const offerUri = await page.locator('#offer-link').getAttribute('href');
      assert.match(String(offerUri), /^openid-credential-offer:\/\/\?credential_offer_uri=/);
      const collect = String(await page.locator('#offer-command').textContent());
      assert.equal(
        collect,
        `npx openrail wallet collect '${offerUri}' --allow-http`,
        'the command names the offer, and plain http',
      );
      assert.equal(
        await page.locator('#offer-qr').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth > 0),
        true,
        'the QR code loaded',
      );
      await shoot(page, 'public-demo-offer-390.png');
      assert.equal(await page.getByRole('button', { name: 'Ask for the pass' }).isDisabled(), true, 'nothing to present yet');

      const collected = await runWallet(home, ...printed(collect));
      assert.equal(collected.code, 0, collected.stderr);
      await page.getByText('Collected: the pass is in your wallet').waitFor({ timeout: WAIT_MS });
      assert.equal(
        await page.getByRole('button', { name: 'Present from this page’s wallet' }).isDisabled(),
        true,
        'the page’s own wallet holds nothing',
      );

      await page.getByRole('button', { name: 'Ask for the pass' }).click();
      await page.locator('#request:not([hidden])').waitFor({ timeout: WAIT_MS });
      const requestUri = String(await page.locator('#request-link').getAttribute('href'));
      const present = String(await page.locator('#request-command').textContent());
      assert.equal(present, `npx openrail wallet present '${requestUri}' --all --allow-http`);
      const presented = await runWallet(home, ...printed(present));
      assert.equal(presented.code, 0, presented.stderr);
      await page.locator('#present-status', { hasText: /^Verified$/ }).waitFor({ timeout: WAIT_MS });
      const disclosed = await page.locator('#outcome th').allTextContents();
      assert.deepEqual(disclosed.sort(), ['fare_zone', 'given_name', 'valid_until'], 'only what was asked');
      await shoot(page, 'public-demo-verified-390.png');
      await accessible(page, 'the demo, verified');

      await page.getByRole('button', { name: 'Revoke the pass' }).click();
      await page.getByText('Revoked. Ask for the pass again').waitFor({ timeout: WAIT_MS });
      await page.getByRole('button', { name: 'Ask for the pass' }).click();
      await page.locator(`#request-link:not([href=${JSON.stringify(requestUri)}])`).waitFor({ timeout: WAIT_MS });
      const again = String(await page.locator('#request-command').textContent());
      assert.notEqual(again, present, 'a new request');
      const refused = await runWallet(home, ...printed(again));
      assert.match(refused.stdout, /refused the presentation: credential_revoked/);
      await page.locator('#present-status', { hasText: 'Not verified' }).waitFor({ timeout: WAIT_MS });
      assert.match(String(await page.locator('#outcome').textContent()), /^credential_revoked/);
      await shoot(page, 'public-demo-revoked-390.png');
      await assertClean(page, watch, 'the demo');
    } finally {
      await context.close();
    }
  });
});
