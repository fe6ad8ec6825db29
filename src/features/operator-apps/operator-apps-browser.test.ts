/**
 * The operators' web apps in a real browser (Debian Chromium via playwright-core), signed in
 * through a real OpenID provider (oidc-provider on loopback), on each engine: an owner files a
 * suspension and another owner approves it; an auditor verifies the audit chain; an
 * organisation's operator creates a type and an offer, shows its QR code, the reference wallet
 * (`openrail wallet`, its own process) collects it, the operator revokes it, and /verify shows it
 * revoked. Every page visited is checked under its CSP (no violation, no console error), and on
 * the first engine (the HTML is the same on every one) with axe-core (no serious or critical
 * violation), at 390 px (nothing wider than the screen) and at both widths for table cells narrower
 * than a word they hold (narrowCells); screenshots go to test/artifacts/.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  ARTIFACTS,
  assertClean,
  axeOnPage,
  checkServedHtml,
  chromiumMissing,
  DESKTOP,
  horizontalOverflow,
  launchChromium,
  narrowCells,
  type PageWatch,
  PHONE,
  SAVE_SCREENSHOTS,
  WAIT_MS,
  watchPage,
} from '../../../test/helpers/chromium.ts';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { OIDC_CLIENT, startTestProvider, type TestProvider } from '../../../test/helpers/oidc.ts';
import { freePort, runWallet } from '../../../test/helpers/process.ts';
import { owner, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import { hashToken } from '../../core/secrets.ts';
import { appBearer } from '../../http/auth/enterprise-session.ts';

const skip = chromiumMissing();

interface Operator {
  username: string;
  roles: string[];
  tenant?: string;
  context: BrowserContext;
  page: Page;
  watch: PageWatch;
}

for (const [index, factory] of testDatabases().entries()) {
  const first = index === 0;
  const screenshots = first && SAVE_SCREENSHOTS;

  describe(`the back office and the console in Chromium, signed in through OpenID Connect (${factory.name})`, {
    skip: skip ?? false,
  }, () => {
    let db: TestDatabase;
    let idp: TestProvider;
    let rail: TestRail;
    let origin: string;
    let browser: Browser;
    let acme: string;
    let other: string;
    let home: string;
    const operators = new Map<string, Operator>();
    /** Every app page the journeys reach (form answers included), as served, checked for accessibility and width at the end. */
    const visited = new Map<string, { url: string; html: string }>();

    async function api(method: 'GET' | 'POST', path: string, body?: unknown) {
      const res = await fetch(`${origin}${path}`, {
        method,
        headers: { ...owner, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const json = (await res.json()) as Record<string, unknown>;
      assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    }

    /** Signs an operator in as a person would: open the page, the provider signs in, back on the page. */
    async function signIn(username: string, target: string): Promise<Operator> {
      const context = await browser.newContext(DESKTOP);
      const page = await context.newPage();
      const watch = await watchPage(page);
      idp.signInAs(`sub-${username}`);
      await page.goto(`${origin}${target}`);
      await page.waitForURL(`${origin}${target}`, { timeout: WAIT_MS });
      const cookies = await context.cookies(origin);
      const session = cookies.find((c) => c.name === 'session');
      assert.ok(session, 'signed in: the session cookie is set');
      assert.equal(session.httpOnly, true);
      assert.equal(session.sameSite, 'Lax');
      const made = operators.get(username);
      assert.ok(made);
      Object.assign(made, { context, page, watch });
      return made;
    }

    /** The page is clean (no CSP violation, console or page error) and remembered for the checks at the end. */
    async function seen(op: Operator, name: string) {
      await assertClean(op.page, op.watch, name);
      visited.set(name, { url: op.page.url(), html: await op.page.content() });
      if (screenshots) await op.page.screenshot({ path: join(ARTIFACTS, `apps-${name}.png`), fullPage: true });
    }

    /** The text of the page's main content. */
    const main = (op: Operator) => op.page.locator('main').innerText();

    before(async () => {
      if (screenshots) mkdirSync(ARTIFACTS, { recursive: true });
      db = await factory.create();
      const port = await freePort();
      origin = `http://127.0.0.1:${port}`;
      idp = await startTestProvider([`${origin}/auth/callback`], [`${origin}/auth/login`]);
      rail = await startRail(db, {
        PUBLIC_URL: origin,
        OPENRAIL_DEMO: 'off',
        OPENRAIL_OIDC_ISSUER: idp.issuer,
        OPENRAIL_OIDC_CLIENT_ID: OIDC_CLIENT.id,
        OPENRAIL_OIDC_CLIENT_SECRET: OIDC_CLIENT.secret,
        OPENRAIL_OUTBOUND_ALLOW: idp.issuer,
      });
      await rail.app.listen({ port, host: '127.0.0.1' });
      acme = String((await api('POST', '/api/tenants', { name: 'Acme Rowing' })).slug);
      other = String((await api('POST', '/api/tenants', { name: 'Riverside Library' })).slug);
      const people: Array<[string, string[], string | null]> = [
        ['olga', ['owner'], null],
        ['omar', ['owner'], null],
        ['aude', ['auditor'], null],
        ['tomas', ['tenant-admin', 'issuer'], acme],
      ];
      for (const [username, roles, tenant] of people) {
        await api('POST', '/api/operators', {
          username,
          roles,
          tenant,
          identity: { issuer: idp.issuer, subject: `sub-${username}` },
        });
        operators.set(username, { username, roles, ...(tenant ? { tenant } : {}) } as Operator);
      }
      home = mkdtempSync(join(tmpdir(), 'openrail-wallet-'));
      assert.equal((await runWallet(home, 'init')).code, 0);
      browser = await launchChromium();
    });

    after(async () => {
      await browser?.close();
      await rail?.stop();
      await idp?.close();
      await db?.drop();
      if (home) rmSync(home, { recursive: true, force: true });
    });

    test('an owner files a suspension; the same owner cannot approve it, another owner does', async () => {
      const olga = await signIn('olga', '/admin');
      assert.match(await main(olga), /Today/);
      await seen(olga, 'admin-today');
      await olga.page.locator('.start-links a[href="/admin/orgs"]').click();
      await olga.page.waitForURL(`${origin}/admin/orgs`);
      await seen(olga, 'admin-orgs');
      await olga.page.getByRole('link', { name: other, exact: true }).click();
      await olga.page.waitForURL(`${origin}/admin/orgs/${other}`);
      await seen(olga, 'admin-org');
      const suspend = olga.page.locator('section.action-form', {
        has: olga.page.locator('input[name=_op][value="/orgs/{slug}/suspend"]'),
      });
      await suspend.getByLabel('Reason').fill('Unpaid invoices since March');
      await suspend.getByRole('button', { name: 'Suspend' }).click();
      await olga.page.getByRole('heading', { name: 'Filed for approval' }).waitFor({ timeout: WAIT_MS });
      await seen(olga, 'admin-filed');
      const approvalLink = olga.page.locator('main a[href^="/admin/approvals/"]').first();
      const approvalPath = await approvalLink.getAttribute('href');
      assert.ok(approvalPath);
      await approvalLink.click();
      await olga.page.waitForURL(`${origin}${approvalPath}`);
      assert.match(await main(olga), /Four eyes/);
      await seen(olga, 'admin-approval');
      await olga.page.getByRole('button', { name: 'Approve' }).click();
      await olga.page.getByRole('heading', { name: 'Not done' }).waitFor({ timeout: WAIT_MS });
      assert.match(await main(olga), /same_operator/);
      assert.equal((await api('GET', `/api/admin/orgs/${other}/lifecycle`)).status, 'active');

      const omar = await signIn('omar', approvalPath);
      await seen(omar, 'admin-approval-second');
      await omar.page.getByLabel('Note').first().fill('Confirmed with finance');
      await omar.page.getByRole('button', { name: 'Approve' }).click();
      await omar.page.getByRole('heading', { name: 'Done' }).waitFor({ timeout: WAIT_MS });
      assert.match(await main(omar), /Recorded in the audit log as entry \d+/);
      await seen(omar, 'admin-approved');
      assert.equal((await api('GET', `/api/admin/orgs/${other}/lifecycle`)).status, 'suspended');
    });

    test('an auditor verifies the audit chain', async () => {
      const aude = await signIn('aude', '/admin');
      await aude.page.locator('.app-nav a[href="/admin/ops/audit"]').click();
      await aude.page.waitForURL(`${origin}/admin/ops/audit`);
      assert.match(await main(aude), /Verified\s+yes/);
      await seen(aude, 'admin-audit-verified');
      // An auditor's pages offer no change it may not make.
      await aude.page.goto(`${origin}/admin/orgs`);
      assert.equal(await aude.page.locator('input[name=_op][value="/orgs"]').count(), 0);
    });

    test('an API token from the address bar, none from a link elsewhere; signing out is the top bar’s form: a link from another site only asks; the button ends the session and links to the provider', async () => {
      const aude = operators.get('aude');
      assert.ok(aude?.page, 'aude signed in earlier');
      const alive = async () => (await aude.page.request.get(`${origin}/auth/whoami`)).status();
      const asBearer = async (token: string) =>
        (await fetch(`${origin}/api/admin/me`, { headers: { authorization: `Bearer ${token}` } })).status;
      /** The bearers this browser's session minted, still live (the apps' own one not counted: it is not minted on request). */
      const minted = async () => {
        const value = (await aude.context.cookies(origin)).find((c) => c.name === 'session')?.value ?? '';
        const rows = await rail.db
          .selectFrom('operator_sessions')
          .select('token_hash')
          .where('browser_session', '=', hashToken(value))
          .where('token_hash', '<>', hashToken(appBearer(value)))
          .execute();
        return rows.length;
      };
      // An API token, the interface's exchange: GET /auth/api-token typed in the address bar
      // (Chromium sends Sec-Fetch-Site: none) answers it as JSON. In a tab of its own: the refusal
      // below is a console error the watched tab must not see.
      const tab = await aude.context.newPage();
      const typed = await tab.goto(`${origin}/auth/api-token`);
      assert.equal(typed?.status(), 200);
      const { token, tokenType } = (await typed?.json()) as { token: string; tokenType: string };
      assert.equal(tokenType, 'Bearer');
      assert.equal(await asBearer(token), 200, 'the token works on the operator plane');
      // The same GET from a link on another site, followed: the SameSite=Lax cookie goes with it,
      // Chromium says Sec-Fetch-Site: cross-site, and nothing is minted.
      const elsewhere = 'http://elsewhere.example/';
      await aude.context.route(elsewhere, (route) =>
        route.fulfill({
          status: 200,
          contentType: 'text/html; charset=utf-8',
          body: `<a href="${origin}/auth/api-token">free tokens</a>`,
        }),
      );
      await tab.goto(elsewhere);
      const count = await minted();
      const [followed] = await Promise.all([
        tab.waitForResponse(`${origin}/auth/api-token`, { timeout: WAIT_MS }),
        tab.getByRole('link', { name: 'free tokens' }).click(),
      ]);
      assert.equal(followed.status(), 403, 'signed in (the cookie went), and refused');
      assert.equal(((await followed.json()) as { error: string }).error, 'cross_site_request');
      assert.equal(await minted(), count, 'a link on another site mints nothing');
      await aude.context.unroute(elsewhere);
      await tab.close();
      // A link on another site, followed: a top-level GET, which carries the SameSite=Lax cookie.
      await aude.page.setContent(`<a href="${origin}/auth/logout">win a prize</a>`);
      await aude.page.getByRole('link', { name: 'win a prize' }).click();
      await aude.page.getByRole('heading', { name: 'Sign out?' }).waitFor({ timeout: WAIT_MS });
      await seen(aude, 'sign-out-asks');
      assert.equal(await alive(), 200, 'the GET ended nothing');

      await aude.page.goto(`${origin}/admin`);
      await aude.page.locator('.app-bar').getByRole('button', { name: 'Sign out' }).click();
      await aude.page.getByRole('heading', { name: 'You are signed out' }).waitFor({ timeout: WAIT_MS });
      await seen(aude, 'signed-out');
      const provider = await aude.page.getByRole('link', { name: 'Sign out there too' }).getAttribute('href');
      assert.ok(provider?.startsWith(`${idp.issuer}/session/end`), String(provider));
      assert.equal(await alive(), 401, 'the session ended');
      assert.equal(await asBearer(token), 401, 'and the token it made');
      assert.equal(
        (await aude.context.cookies(origin)).some((c) => c.name === 'session'),
        false,
        'the cookie is gone',
      );
    });

    test('an organisation’s operator issues from the console, a wallet collects, the operator revokes, /verify says revoked', async () => {
      const tomas = await signIn('tomas', '/console');
      assert.match(await main(tomas), new RegExp(`Organisation ${acme}`));
      await seen(tomas, 'console-overview');

      await tomas.page.getByRole('link', { name: 'Credential types' }).click();
      await tomas.page.getByLabel('Name', { exact: true }).fill('Member Card');
      await tomas.page.getByLabel(/^Claims/).fill('member_name\nsince:date');
      await tomas.page.getByRole('button', { name: 'Create' }).click();
      await tomas.page.getByRole('heading', { name: 'Done' }).waitFor({ timeout: WAIT_MS });
      await seen(tomas, 'console-type-created');
      const typeId = (
        await tomas.page
          .locator('dt', { hasText: /^Type ID$/ })
          .locator('xpath=following-sibling::dd[1]')
          .innerText()
      ).trim();
      assert.ok(typeId);

      await tomas.page.getByRole('link', { name: 'Offers' }).click();
      await tomas.page.getByLabel(/^Type ID/).fill(typeId);
      await tomas.page.getByLabel(/^Subject/).fill(JSON.stringify({ member_name: 'Grace Hopper', since: '2024-05-01' }));
      await tomas.page.getByRole('button', { name: 'Create' }).click();
      await tomas.page.getByRole('img', { name: 'QR code of the credential offer' }).waitFor({ timeout: WAIT_MS });
      await seen(tomas, 'console-offer-qr');
      const offerUri = (await tomas.page.getByRole('link', { name: 'the offer link' }).getAttribute('href')) ?? '';
      assert.ok(offerUri.startsWith('openid-credential-offer://'), offerUri);

      const collected = await runWallet(home, 'collect', offerUri, '--allow-http');
      assert.equal(collected.code, 0, collected.stderr);

      await tomas.page.getByRole('link', { name: 'Issued credentials' }).click();
      await tomas.page.locator('table td').first().waitFor({ timeout: WAIT_MS });
      await seen(tomas, 'console-credentials');
      const credentials = (await api('GET', `/api/admin/credentials?tenant=${acme}`)).credentials as Array<{
        credentialId: string;
      }>;
      assert.equal(credentials.length, 1);
      const credentialId = credentials[0]?.credentialId as string;
      assert.match(await main(tomas), new RegExp(credentialId));
      const revoke = tomas.page.locator('section.action-form', {
        has: tomas.page.locator('input[name=_op][value="/api/revoke"]'),
      });
      await revoke.getByLabel(/^Credential ID/).fill(credentialId);
      await revoke.getByLabel(/^Reason/).fill('Membership ended');
      await revoke.getByRole('button', { name: 'Revoke' }).click();
      await tomas.page.getByRole('heading', { name: 'Done' }).waitFor({ timeout: WAIT_MS });
      assert.match(await main(tomas), new RegExp(`${credentialId}\\s+${typeId}\\s`), 'the answer lists the revoked credential');
      const after = (await api('GET', `/api/admin/credentials?tenant=${acme}`)).credentials as Array<{ state: string }>;
      assert.equal(after[0]?.state, 'revoked');
      await seen(tomas, 'console-revoked');
      const audit = await api('GET', '/api/admin/audit?action=credential.revoked');
      assert.match(JSON.stringify(audit), /Membership ended/, 'the reason is in the revocation’s audit entry');

      // The relying party's side: the public /verify page, answered by the same wallet.
      const verify = await browser.newPage();
      await verify.goto(`${origin}/verify`);
      await verify.locator('#type option').first().waitFor({ state: 'attached', timeout: WAIT_MS });
      const vct = await verify.locator('#type option', { hasText: 'Member Card' }).getAttribute('value');
      assert.ok(vct);
      await verify.selectOption('#type', vct);
      await verify.getByRole('button', { name: 'Create request' }).click();
      await verify.locator('#wallet-link:not([hidden])').waitFor({ state: 'attached', timeout: WAIT_MS });
      const requestUri = await verify.locator('#wallet-link').getAttribute('href');
      assert.ok(requestUri);
      const presented = await runWallet(home, 'present', requestUri, '--allow-http', '--all');
      assert.match(presented.stdout, /refused the presentation: credential_revoked/);
      await verify.locator('#status', { hasText: /^Not verified$/ }).waitFor({ timeout: WAIT_MS });
      assert.match(await verify.locator('#outcome').innerText(), /credential_revoked/);
      if (screenshots) await verify.screenshot({ path: join(ARTIFACTS, 'apps-verify-revoked.png'), fullPage: true });
      await verify.close();
    });

    test('every page of an owner’s and an organisation operator’s navigation: clean under its CSP, axe-clean, nothing wider than 390 px, no cell narrower than a word', {
      // The pages are the same HTML on both engines; the crawl runs on the first.
      skip: first ? false : 'crawled on the first engine',
    }, async () => {
      for (const username of ['olga', 'tomas']) {
        const op = operators.get(username);
        assert.ok(op?.page, `${username} signed in earlier`);
        // What the journeys left (a refusal page is a non-2xx document, which Chromium logs) is theirs.
        op.watch.consoleErrors.length = 0;
        const start = username === 'olga' ? '/admin' : '/console';
        await op.page.goto(`${origin}${start}`);
        const links = await op.page.locator('.app-nav a').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
        assert.ok(links.length >= (username === 'olga' ? 40 : 8), `${username}: ${links.length} pages`);
        // Each page once, on a phone under its CSP: clean, axe-clean and within the screen.
        const phone = await browser.newContext(PHONE);
        await phone.addCookies(await op.context.cookies(origin));
        const checker = await phone.newPage();
        const watch = await watchPage(checker);
        try {
          for (const href of new Set(links)) {
            const answer = await checker.goto(`${origin}${href}`);
            assert.equal(answer?.status(), 200, href);
            await assertClean(checker, watch, `${username} ${href}`);
            assert.deepEqual(await axeOnPage(checker), [], `${href} at 390 px`);
            assert.equal(await horizontalOverflow(checker), 0, `${href}: wider than 390 px`);
            assert.deepEqual(await narrowCells(checker, [DESKTOP, PHONE]), [], `${href}: cells narrower than a word`);
          }
        } finally {
          await phone.close();
        }
      }
    });

    // The pages are the same HTML on every engine (the journeys above run on each): axe and the
    // width check, seconds a page, run on the first.
    test('every page visited: no serious or critical axe violation, nothing wider than a 390 px screen, no cell narrower than a word', {
      skip: first ? false : 'checked on the first engine: the HTML does not depend on the database',
    }, async () => {
      assert.ok(visited.size >= 10, `${visited.size} pages visited`);
      for (const [name, { url, html }] of visited) {
        for (const options of [DESKTOP, PHONE]) {
          const phone = options === PHONE;
          const shot = phone && screenshots ? join(ARTIFACTS, `apps-${name}-390.png`) : undefined;
          const { violations, overflow, narrow } = await checkServedHtml(browser, url, html, options, shot);
          assert.deepEqual(violations, [], `${name} at ${options.viewport?.width} px`);
          assert.deepEqual(narrow, [], `${name}: cells narrower than a word`);
          if (phone) assert.equal(overflow, 0, `${name}: wider than 390 px`);
        }
      }
    });
  });
}
