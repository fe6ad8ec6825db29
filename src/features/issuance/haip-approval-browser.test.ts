/**
 * The holder's approval step of HAIP issuance in a real browser (Debian Chromium via
 * playwright-core, docs/haip.md "The approval step"), on a rail whose origin is its PUBLIC_URL:
 * the oid4vc-ts wallet pushes its request, the browser opens the authorization URL, the page runs
 * under its policy without a violation, axe-core finds nothing serious, the holder presses
 * Approve, and the page's link carries the wallet's code with `state` and `iss`, which the wallet
 * then redeems for a credential. The cookie that binds the request to this browser is HttpOnly.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { axeOnPage, chromiumForSuite, chromiumMissing, DESKTOP, watchPage } from '../../../test/helpers/chromium.ts';
import {
  collectAfterAuthorization,
  newHaipWallet,
  newWalletProvider,
  REDIRECT_URI,
  type WalletProvider,
} from '../../../test/helpers/haip-wallet.ts';
import { publicOnly } from '../../../test/helpers/oid4vp-wallet.ts';
import { sqliteRailOnSocket } from '../../../test/helpers/rail.ts';
import { AUTHORIZATION_COOKIE } from './authorization-routes.ts';

const skip = chromiumMissing();
type InPage = { __csp: string[] };

describe('the HAIP approval page in Chromium (sqlite)', { skip: skip ?? false }, () => {
  let provider: WalletProvider;
  const site = sqliteRailOnSocket(async () => {
    provider = await newWalletProvider();
    return { OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE: provider.anchorFile };
  });
  const chrome = chromiumForSuite();

  test('a holder approves in the browser; the link back carries code, state and iss; the wallet collects', async () => {
    const wallet = await newHaipWallet(provider, site.origin, site.origin);
    const issuer = `${site.origin}/t/demo-transit`;
    const issuerMetadata = await wallet.vci.resolveIssuerMetadata(issuer);
    const asMetadata = issuerMetadata.authorizationServers[0];
    assert.ok(asMetadata);
    const dpop = { signer: { method: 'jwk' as const, alg: 'ES256' as const, publicJwk: publicOnly(wallet.dpopKey.publicJwk) } };
    const started = await wallet.oauth.createAuthorizationRequestUrl({
      authorizationServerMetadata: asMetadata,
      clientId: wallet.clientId,
      scope: 'transit-pass',
      redirectUri: REDIRECT_URI,
      state: 'browser-state',
      dpop,
    });

    const context = await chrome.browser.newContext(DESKTOP);
    try {
      const page = await context.newPage();
      const watch = await watchPage(page);
      const response = await page.goto(started.authorizationRequestUrl);
      assert.equal(response?.status(), 200);
      await page.getByRole('heading', { name: /Transit Pass/ }).waitFor();
      const cookie = (await context.cookies()).find((c) => c.name === AUTHORIZATION_COOKIE);
      assert.ok(cookie?.httpOnly, 'the browser’s secret is an HttpOnly cookie');
      assert.equal(cookie?.sameSite, 'Lax');
      assert.ok(!started.authorizationRequestUrl.includes(cookie.value), 'and never in a URL');

      await page.getByRole('button', { name: 'Approve' }).click();
      const back = page.getByRole('link', { name: 'Return to your wallet' });
      await back.waitFor();
      const href = (await back.getAttribute('href')) as string;
      assert.ok(href.startsWith(`${REDIRECT_URI}?`), href);
      const answer = new URL(href);
      assert.equal(answer.searchParams.get('state'), 'browser-state');
      assert.equal(answer.searchParams.get('iss'), issuer);
      const code = answer.searchParams.get('code') as string;
      assert.match(code, /^azc_/);

      assert.deepEqual(await page.evaluate(() => (globalThis as unknown as InPage).__csp), [], 'no CSP violation');
      assert.deepEqual(watch.consoleErrors, []);
      assert.deepEqual(watch.pageErrors, []);

      // axe-core needs a context that lets it inject itself: the approval page again, in one.
      const axeContext = await chrome.browser.newContext({ ...DESKTOP, bypassCSP: true });
      try {
        const second = await newHaipWallet(provider, site.origin, site.origin);
        const again = await second.oauth.createAuthorizationRequestUrl({
          authorizationServerMetadata: asMetadata,
          clientId: second.clientId,
          scope: 'transit-pass',
          redirectUri: REDIRECT_URI,
          dpop: { signer: { ...dpop.signer, publicJwk: publicOnly(second.dpopKey.publicJwk) } },
        });
        const axePage = await axeContext.newPage();
        await axePage.goto(again.authorizationRequestUrl);
        assert.deepEqual(await axeOnPage(axePage), [], 'the approval page');
        await axePage.getByRole('button', { name: 'Approve' }).click();
        await axePage.getByRole('link', { name: 'Return to your wallet' }).waitFor();
        assert.deepEqual(await axeOnPage(axePage), [], 'the return page');
      } finally {
        await axeContext.close();
      }

      const { credential, tokenType } = await collectAfterAuthorization(wallet, {
        issuer,
        authorizationCode: code,
        pkceCodeVerifier: started.pkce?.codeVerifier as string,
        dpop,
        credentialConfigurationId: 'transit-pass',
      });
      assert.equal(tokenType, 'DPoP');
      assert.ok(credential.includes('~'));
    } finally {
      await context.close();
    }
  });
});
