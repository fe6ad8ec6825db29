/**
 * The partner pages in a real browser (Debian Chromium via playwright-core) on SQLite, on a real
 * socket whose origin is the service's PUBLIC_URL. With JavaScript switched off, a person reads the
 * programme, applies with the form, reads the token from the page, and follows the application on
 * the status page. The pages run under their policy without a violation or a console error; axe-core
 * (in a context that bypasses CSP only to inject itself) finds no serious or critical violation;
 * nothing is wider than a 390px phone. Screenshots go to test/artifacts/.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import {
  axeOnPage,
  axeViolations,
  chromiumForSuite,
  chromiumMissing,
  DESKTOP,
  horizontalOverflow,
  PHONE,
  shoot,
  WAIT_MS,
  watchPage,
} from '../../../test/helpers/chromium.ts';
import { sqliteRailOnSocket } from '../../../test/helpers/rail.ts';
import { PARTNER_KINDS } from '../../core/partner-pipeline.ts';

const skip = chromiumMissing();
const PAGES = ['/partners', ...PARTNER_KINDS.map((k) => `/partners/${k}`), '/partners/apply', '/partners/status'];

/** What the test reads inside the page (the project's lib has no DOM types). Only functions are evaluated there. */
type InPage = { __csp: string[] };

describe('the partner pages in Chromium, without JavaScript (sqlite)', { skip: skip ?? false }, () => {
  const site = sqliteRailOnSocket();
  const chrome = chromiumForSuite();

  /** Fills the application form as a person would: by the labels. */
  async function fillApplication(p: Page, organisation = 'Harbour Water Company') {
    await p.getByLabel('Kind of partner').selectOption('data-partner');
    await p.getByLabel('Organisation').fill(organisation);
    await p.getByLabel('Country').fill('PT');
    await p.getByLabel('Website').fill('https://harbour-water.example');
    await p.getByLabel('Contact name').fill('Ines Duarte');
    await p.getByLabel('Contact e-mail').fill('ines@harbour-water.example');
    await p
      .getByLabel('What do you want to do with the service?')
      .fill('We deposit water bills into our customers’ wallets.\nReceipts follow next year.');
  }

  /** axe-core on the page as it is now, after a form was posted (serious and critical only). */
  const axeOn = axeOnPage;

  test('apply with the form, read the token, follow the application: all without JavaScript', async () => {
    const context = await chrome.browser.newContext({ ...DESKTOP, javaScriptEnabled: false });
    try {
      const p = await context.newPage();
      await p.goto(`${site.origin}/`);
      await p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Partners' }).click();
      await p.waitForURL(`${site.origin}/partners`);
      assert.equal(await p.locator('h1').textContent(), 'Partner programme');
      await shoot(p, 'partners.png');
      await p.getByRole('link', { name: 'Data partners' }).click();
      await p.waitForURL(`${site.origin}/partners/data-partner`);
      await shoot(p, 'partners-data-partner.png');
      await p.getByRole('link', { name: 'Apply as a data partner' }).click();
      await p.waitForURL(`${site.origin}/partners/apply?kind=data-partner`);
      assert.equal(await p.getByLabel('Kind of partner').inputValue(), 'data-partner', 'the kind is preselected');

      // A character the intake refuses, which no browser check catches: the form comes back with its error.
      await fillApplication(p, 'Harbour\u202EWater');
      await p.getByRole('button', { name: 'Send the application' }).click();
      await p.locator('.error-summary').waitFor({ timeout: WAIT_MS });
      assert.match(String(await p.getByRole('alert').textContent()), /There is a problem with one field/);
      assert.equal(await p.getByLabel('Organisation').getAttribute('aria-invalid'), 'true');
      assert.match(String(await p.locator('#organisation-error').textContent()), /invisible formatting characters/);
      assert.equal(await p.getByLabel('Contact name').inputValue(), 'Ines Duarte', 'the other values are kept');
      await shoot(p, 'partners-apply-error.png');

      await p.getByLabel('Organisation').fill('Harbour Water Company');
      await p.getByRole('button', { name: 'Send the application' }).click();
      await p.getByRole('heading', { level: 1, name: 'Application received' }).waitFor({ timeout: WAIT_MS });
      const applicationId = String(await p.locator('#application-id').textContent());
      const statusToken = String(await p.locator('#status-token').textContent());
      assert.match(applicationId, /^pap_[A-Za-z0-9_-]{22}$/);
      assert.match(statusToken, /^[A-Za-z0-9_-]{43}$/);
      assert.equal(p.url(), `${site.origin}/partners/apply`, 'the token is in no URL');
      await shoot(p, 'partners-apply-filed.png');

      await p.getByRole('link', { name: 'Follow your application' }).click();
      await p.waitForURL(`${site.origin}/partners/status`);
      await p.getByLabel('Application id').fill(applicationId);
      await p.getByLabel('Status token').fill(statusToken);
      await p.getByRole('button', { name: 'Show the status' }).click();
      await p.getByRole('heading', { level: 2, name: 'Stage: Applied' }).waitFor({ timeout: WAIT_MS });
      assert.equal(p.url(), `${site.origin}/partners/status`, 'the token is in no URL');
      assert.equal(await p.locator('[aria-current="step"]').textContent(), 'Applied');
      assert.deepEqual(await p.locator('table tbody td:first-child').allTextContents(), ['Applied']);
      await shoot(p, 'partners-status-result.png');

      // A wrong token: the form again, with one message.
      await p.goto(`${site.origin}/partners/status`);
      await p.getByLabel('Application id').fill(applicationId);
      await p.getByLabel('Status token').fill(`${statusToken.slice(0, 42)}${statusToken.endsWith('A') ? 'B' : 'A'}`);
      await p.getByRole('button', { name: 'Show the status' }).click();
      await p.getByRole('alert').waitFor({ timeout: WAIT_MS });
      assert.match(String(await p.getByRole('alert').textContent()), /No application matches/);
    } finally {
      await context.close();
    }
  });

  test('every partner page renders under its policy: no violation, no console error; the apply page looks like a product', async () => {
    const context = await chrome.browser.newContext(DESKTOP);
    try {
      const p = await context.newPage();
      const { consoleErrors, pageErrors } = await watchPage(p);
      for (const path of PAGES) {
        const response = await p.goto(`${site.origin}${path}`);
        assert.equal(response?.status(), 200, path);
        assert.match(
          String(response?.headers()['content-security-policy']),
          /^default-src 'none'; script-src 'none'; style-src 'self'/,
        );
        assert.deepEqual(await p.evaluate(() => (globalThis as unknown as InPage).__csp), [], `${path}: CSP violations`);
      }
      await p.goto(`${site.origin}/partners/apply`);
      await shoot(p, 'partners-apply.png');
      await p.goto(`${site.origin}/partners/status`);
      await shoot(p, 'partners-status.png');
      await p.goto(`${site.origin}/partners/issuer`);
      await shoot(p, 'partners-issuer.png');
      assert.deepEqual(consoleErrors, [], 'console errors');
      assert.deepEqual(pageErrors, [], 'uncaught page errors');
    } finally {
      await context.close();
    }
  });

  test('axe-core: no serious or critical violation on the programme, a kind page, the forms, their errors and their answers', async () => {
    const context = await chrome.browser.newContext({ ...DESKTOP, bypassCSP: true });
    try {
      for (const path of ['/partners', '/partners/issuer', '/partners/relying-party', '/partners/apply', '/partners/status']) {
        assert.deepEqual(await axeViolations(context, `${site.origin}${path}`), [], path);
      }
      const p = await context.newPage();
      await p.goto(`${site.origin}/partners/apply`);
      await fillApplication(p, 'Harbour\u202EWater');
      await p.getByRole('button', { name: 'Send the application' }).click();
      await p.locator('.error-summary').waitFor({ timeout: WAIT_MS });
      assert.deepEqual(await axeOn(p), [], 'the form with an error');
      await p.getByLabel('Organisation').fill('Harbour Water Company');
      await p.getByRole('button', { name: 'Send the application' }).click();
      await p.locator('#status-token').waitFor({ timeout: WAIT_MS });
      const applicationId = String(await p.locator('#application-id').textContent());
      const statusToken = String(await p.locator('#status-token').textContent());
      assert.deepEqual(await axeOn(p), [], 'the filed page');
      await p.goto(`${site.origin}/partners/status`);
      await p.getByLabel('Application id').fill(applicationId);
      await p.getByLabel('Status token').fill(statusToken);
      await p.getByRole('button', { name: 'Show the status' }).click();
      await p.getByRole('heading', { level: 2, name: 'Stage: Applied' }).waitFor({ timeout: WAIT_MS });
      assert.deepEqual(await axeOn(p), [], 'the status page');
    } finally {
      await context.close();
    }
  });

  test('at a phone’s width (390px) nothing is wider than the screen, forms and answers included', async () => {
    const context = await chrome.browser.newContext(PHONE);
    try {
      const p = await context.newPage();
      for (const path of PAGES) {
        await p.goto(`${site.origin}${path}`);
        assert.equal(await horizontalOverflow(p), 0, `${path} overflows`);
      }
      await p.goto(`${site.origin}/partners`);
      await shoot(p, 'partners-phone.png');
      await p.goto(`${site.origin}/partners/apply`);
      await shoot(p, 'partners-apply-phone.png');
      await fillApplication(p);
      await p.getByRole('button', { name: 'Send the application' }).click();
      await p.locator('#status-token').waitFor({ timeout: WAIT_MS });
      assert.equal(await horizontalOverflow(p), 0, 'the filed page overflows');
      await shoot(p, 'partners-apply-filed-phone.png');
      const applicationId = String(await p.locator('#application-id').textContent());
      const statusToken = String(await p.locator('#status-token').textContent());
      await p.goto(`${site.origin}/partners/status`);
      await p.getByLabel('Application id').fill(applicationId);
      await p.getByLabel('Status token').fill(statusToken);
      await p.getByRole('button', { name: 'Show the status' }).click();
      await p.getByRole('heading', { level: 2, name: 'Stage: Applied' }).waitFor({ timeout: WAIT_MS });
      assert.equal(await horizontalOverflow(p), 0, 'the status page overflows');
      await shoot(p, 'partners-status-result-phone.png');
    } finally {
      await context.close();
    }
  });
});
