/**
 * A partner's whole journey in a real browser (Debian Chromium via playwright-core) with a real
 * SMTP server in the test process, on each engine: apply on /partners/apply, read the
 * acknowledgement; operators move the application to approved and link a tenant with a grant;
 * the contact signs in to the portal with the mailed code, mints a key, uses it on the
 * participation plane for its tenant (and is refused for another tenant and for a scope outside
 * the grant), sees its usage, adds a team member, revokes the key, and the key is 401.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import {
  ARTIFACTS,
  axeViolations,
  chromiumMissing,
  closeBrowser,
  horizontalOverflow,
  openWatchedPage,
  SAVE_SCREENSHOTS,
  WAIT_MS,
} from '../../../test/helpers/chromium.ts';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { owner, startRailOnSocket, type TestRail } from '../../../test/helpers/rail.ts';
import { codeIn, type Mailbox, mailTo, startSmtp } from '../../../test/helpers/smtp.ts';

const skip = chromiumMissing();
const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 860 } };
const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

for (const [index, factory] of testDatabases().entries()) {
  const screenshots = index === 0 && SAVE_SCREENSHOTS;

  describe(`a partner's journey in Chromium, from the apply page to a revoked key (${factory.name})`, {
    skip: skip ?? false,
  }, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let origin: string;
    let mail: Mailbox;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let watch: { consoleErrors: string[]; pageErrors: string[] };
    const contactEmail = `ines-${randomBytes(4).toString('hex')}@harbour-water.example`;
    const organisation = 'Harbour Water Company';
    let applicationId = '';
    let tenant = '';
    let typeId = '';
    let secret = '';

    const api = async (method: 'GET' | 'POST', path: string, body: unknown, headers: Record<string, string> = owner) => {
      const res = await fetch(`${origin}${path}`, {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> };
    };
    const ok = async (method: 'GET' | 'POST', path: string, body: unknown, status = 200) => {
      const res = await api(method, path, body);
      assert.equal(res.status, status, JSON.stringify(res.json));
      return res.json;
    };
    const shoot = async (p: Page, name: string) => {
      if (screenshots) await p.screenshot({ path: join(ARTIFACTS, name), fullPage: true });
    };
    const clean = (what: string) => {
      assert.deepEqual(watch.consoleErrors, [], `${what}: console errors`);
      assert.deepEqual(watch.pageErrors, [], `${what}: page errors`);
    };

    before(async () => {
      db = await factory.create();
      mail = await startSmtp();
      ({ rail, origin } = await startRailOnSocket(db, {
        OPENRAIL_SMTP_URL: mail.url,
        OPENRAIL_MAIL_FROM: 'Rail <rail@example.test>',
      }));
      mkdirSync(ARTIFACTS, { recursive: true });
      ({ browser, context, page, ...watch } = await openWatchedPage(DESKTOP));
    });
    after(async () => {
      await closeBrowser({ context, browser });
      await rail?.stop();
      await mail?.close();
      await db?.drop();
    });

    test('apply on the page, without JavaScript-only steps; the acknowledgement arrives by mail', async () => {
      await page.goto(`${origin}/partners/apply`);
      await page.locator('[name="kind"]').selectOption('issuer');
      await page.locator('[name="organisation"]').fill(organisation);
      await page.locator('[name="contactName"]').fill('Ines Duarte');
      await page.locator('[name="contactEmail"]').fill(contactEmail);
      await page.locator('[name="country"]').fill('PT');
      await page.locator('[name="website"]').fill('https://harbour-water.example');
      await page
        .locator('[name="useCase"]')
        .fill('Proof-of-address credentials for our customers, and their water bills in their wallets.');
      await shoot(page, 'partners-apply.png');
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.url() === `${origin}/partners/apply` && r.request().method() === 'POST', {
          timeout: WAIT_MS,
        }),
        page.locator('form[action="/partners/apply"] [type="submit"]').click(),
      ]);
      assert.equal(answer.status(), 200);
      await page.waitForLoadState('load');
      const text = String(await page.locator('main').textContent());
      applicationId = /pap_[A-Za-z0-9_-]{22}/.exec(text)?.[0] ?? '';
      assert.ok(applicationId, `the page shows the application id:\n${text}`);
      assert.match(text, /[A-Za-z0-9_-]{43}/, 'and the status token, once');
      clean('the apply answer');
      const ack = await mailTo(mail, contactEmail);
      assert.match(ack, new RegExp(applicationId));
    });

    test('operators move it to approved and link a new tenant with a grant of issuance, sandbox', async () => {
      for (const stage of ['screening', 'due-diligence', 'approved']) {
        await ok('POST', `/api/admin/partners/${applicationId}/stage`, { stage, note: `${stage}: checked` });
      }
      const linked = await ok('POST', `/api/admin/partners/${applicationId}/link-tenant`, {
        tenantName: organisation,
        scopes: ['issuance'],
        rateClass: 'sandbox',
      });
      tenant = String((linked.partner as { tenant: string }).tenant);
      typeId = String(
        (await ok('POST', '/api/types', { tenant, name: 'Proof of address', claims: ['holder_name'] }, 201)).typeId,
      );
    });

    test('the contact signs in to the portal with the mailed code and sees its partnership and grant', async () => {
      await page.goto(`${origin}/portal`);
      assert.equal(page.url(), `${origin}/portal/signin`, 'not signed in: the sign-in page');
      await page.getByLabel('E-mail address').fill(contactEmail);
      await page.getByRole('button', { name: 'Mail me a code' }).click();
      await page.getByRole('heading', { name: 'Enter your code' }).waitFor({ timeout: WAIT_MS });
      const code = codeIn(await mailTo(mail, contactEmail, 1));
      await page.getByLabel('Six-digit code').fill(code);
      await Promise.all([
        page.waitForURL(`${origin}/portal`, { timeout: WAIT_MS }),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      const cookie = (await context.cookies()).find((c) => c.name === 'openrail_portal');
      assert.ok(cookie?.httpOnly, 'an HttpOnly session cookie');
      assert.equal(cookie?.sameSite, 'Lax');
      assert.equal(cookie?.path, '/portal');
      assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), organisation);
      const main = String(await page.locator('main').textContent());
      assert.match(main, /approved/);
      assert.match(main, new RegExp(tenant));
      assert.match(main, /sandbox: 60 requests per 60 s/);
      clean('the overview');
    });

    test('mints a key inside the grant; it works for its tenant only, and only within its scopes', async () => {
      await page.goto(`${origin}/portal/keys`);
      assert.equal(await page.locator('input[name="scope_revocation"]').count(), 0, 'only the grant’s scopes are offered');
      await page.getByLabel('Label').fill('Billing system');
      await page.locator('input[name="scope_issuance"]').check();
      await page.getByRole('button', { name: 'Mint a key' }).click();
      await page.getByRole('heading', { name: 'Your new key' }).waitFor({ timeout: WAIT_MS });
      secret = await page.locator('input.secret-value').inputValue();
      assert.match(secret, /^oit_/);
      await shoot(page, 'portal-keys.png');

      const key = { authorization: `Bearer ${secret}` };
      const offer = await api('POST', '/api/offers', { tenant, typeId, subject: { holder_name: 'Ada' } }, key);
      assert.equal(offer.status, 201, JSON.stringify(offer.json));
      assert.match(String(offer.headers.get('ratelimit')), /^"sandbox";r=59;t=\d+$/);
      const elsewhere = await api(
        'POST',
        '/api/offers',
        { tenant: 'demo-transit', typeId, subject: { holder_name: 'Ada' } },
        key,
      );
      assert.equal(elsewhere.status, 403);
      const outside = await api('POST', '/api/revoke', { tenant, credentialId: `crd_${'A'.repeat(22)}` }, key);
      assert.equal(outside.status, 403);

      await page.goto(`${origin}/portal/keys`);
      assert.equal(await page.locator('input.secret-value').count(), 0, 'the key is shown once');
      clean('the keys page');
    });

    test('the overview shows the key’s use of its rate class; the team page adds a member', async () => {
      await page.goto(`${origin}/portal`);
      const row = page.locator('table tbody tr', { hasText: 'Billing system' });
      assert.equal(await row.count(), 1);
      const cells = await row.locator('td').allTextContents();
      assert.ok(Number(cells[1]) >= 1, `used: ${cells.join(' | ')}`);
      assert.equal(cells[2], '60');
      await shoot(page, 'portal-overview.png');

      await page.goto(`${origin}/portal/team`);
      const colleague = `dev-${randomBytes(3).toString('hex')}@harbour-water.example`;
      await page.locator('#new-email').fill(colleague);
      await page.locator('#new-role').selectOption('developer');
      await Promise.all([
        page.waitForURL(`${origin}/portal/team`, { timeout: WAIT_MS }),
        page.getByRole('button', { name: 'Add to the team' }).click(),
      ]);
      assert.equal(await page.locator('table tbody tr', { hasText: colleague }).count(), 1);
      await shoot(page, 'portal-team.png');
      clean('the team page');
    });

    test('the pages pass axe-core and fit a phone’s width', async () => {
      const axeContext = await browser.newContext({ ...DESKTOP, bypassCSP: true });
      const phone = await browser.newContext(PHONE);
      try {
        await axeContext.addCookies(await context.cookies());
        await phone.addCookies(await context.cookies());
        for (const path of ['/portal/signin', '/portal', '/portal/keys', '/portal/team']) {
          assert.deepEqual(await axeViolations(axeContext, `${origin}${path}`), [], path);
          const p = await phone.newPage();
          await p.goto(`${origin}${path}`);
          assert.equal(await horizontalOverflow(p), 0, `${path} overflows at 390 px`);
          await p.close();
        }
      } finally {
        await axeContext.close();
        await phone.close();
      }
    });

    test('revokes the key on the keys page; the key is 401 at once', async () => {
      await page.goto(`${origin}/portal/keys`);
      await Promise.all([
        page.waitForURL(`${origin}/portal/keys`, { timeout: WAIT_MS }),
        page.getByRole('button', { name: 'Revoke Billing system' }).click(),
      ]);
      assert.equal(await page.locator('table tbody tr', { hasText: 'revoked' }).count(), 1);
      const res = await api(
        'POST',
        '/api/offers',
        { tenant, typeId, subject: { holder_name: 'Ada' } },
        { authorization: `Bearer ${secret}` },
      );
      assert.equal(res.status, 401);
      await Promise.all([
        page.waitForURL(`${origin}/portal/signin`, { timeout: WAIT_MS }),
        page.getByRole('button', { name: 'Sign out' }).click(),
      ]);
      await page.goto(`${origin}/portal/keys`);
      assert.equal(page.url(), `${origin}/portal/signin`, 'signed out');
      clean('signing out');
    });
  });
}
