/**
 * The operators' sign-in pages (docs/operator-sign-in.md): the password form where no identity
 * provider is configured (or asked for), a refused sign-in saying what happened, signing out (a
 * page that asks, then signed out) and the API token the form makes.
 */
import { errorSummary, inputField } from '../../web/form-fields.ts';
import { html } from '../../web/html.ts';
import { type RenderedPage, renderPage } from '../../web/layout.ts';

export const SIGN_IN_FIELDS = ['username', 'password'] as const;

export function renderPasswordSignInPage(
  siteName: string,
  options: { returnTo: string; configured: boolean; error?: string; username?: string },
): RenderedPage {
  const main = html`<h1>Operator sign-in</h1>
${
  options.configured
    ? html`<p class="lead">Sign in with your organisation’s account: <a class="button primary" href="/auth/login?return=${encodeURIComponent(options.returnTo)}">Continue to your identity provider</a>.</p>
<p>Or sign in with the password of your operator account:</p>`
    : html`<p class="lead">No identity provider is configured on this deployment, so operators sign in with their username and password.</p>`
}
${errorSummary(options.error ? { password: options.error } : {}, SIGN_IN_FIELDS)}
<form id="signin-form" method="post" action="/auth/login">
<input type="hidden" name="return" value="${options.returnTo}">
${inputField({
  name: 'username',
  label: 'Username',
  value: options.username,
  attributes: html` required maxlength="64" autocomplete="username" autocapitalize="none" spellcheck="false"`,
})}
${inputField({
  name: 'password',
  label: 'Password',
  error: options.error,
  attributes: html` type="password" required maxlength="1024" autocomplete="current-password"`,
})}
<p><button class="button primary" type="submit">Sign in</button></p>
</form>`;
  return renderPage({ title: 'Operator sign-in', main, siteName });
}

export function renderSignInRefusedPage(siteName: string, title: string, message: string): RenderedPage {
  const main = html`<h1>${title}</h1>
<p class="lead" role="alert">${message}</p>
<p>Nothing was signed in. <a href="/auth/login">Start a new sign-in</a>.</p>`;
  return renderPage({ title, main, siteName });
}

/**
 * Signed out. When the session came from the identity provider and it offers RP-initiated logout,
 * a link to end its session too: a link, not a redirect, because a form's answer may not go to
 * another origin under the pages' `form-action 'self'`.
 */
export function renderSignedOutPage(siteName: string, provider?: URL): RenderedPage {
  const main = html`<h1>You are signed out</h1>
<p class="lead">This browser’s operator session has ended, and the API tokens it made no longer work.</p>
${
  provider
    ? html`<p>You are still signed in at your organisation’s identity provider. <a class="button" href="${provider.href}">Sign out there too</a></p>`
    : null
}
<p><a href="/auth/login">Sign in again</a>.</p>`;
  return renderPage({ title: 'Signed out', main, siteName });
}

/** A form posting this session's anti-forgery token to `action`, with one button. */
const sessionForm = (action: string, formToken: string, label: string) =>
  html`<form method="post" action="${action}"><input type="hidden" name="_csrf" value="${formToken}"><p><button class="button primary" type="submit">${label}</button></p></form>`;

/** GET /auth/logout: asks, and changes nothing; only the form's POST signs out. */
export function renderSignOutPage(siteName: string, o: { username: string; formToken: string; back: string }): RenderedPage {
  const main = html`<h1>Sign out?</h1>
<p class="lead">You are signed in as <strong>${o.username}</strong>. Signing out ends this browser’s session and every API token it made.</p>
${sessionForm('/auth/logout', o.formToken, 'Sign out')}
<p><a href="${o.back}">Stay signed in</a></p>`;
  return renderPage({ title: 'Sign out', main, siteName });
}

/**
 * POST /auth/api-token's answer: the token, this once. Back leads to the app, never to
 * GET /auth/api-token, which a same-origin link would make mint another.
 */
export function renderApiTokenMintedPage(
  siteName: string,
  o: { token: string; expiresIn: number; origin: string; back: string },
): RenderedPage {
  const main = html`<h1>Your API token</h1>
<p class="lead">Copy it now: it is not shown again.</p>
<p><code>${o.token}</code></p>
<p>It ends in ${Math.floor(o.expiresIn / 60)} minutes, or when you sign out. Send it as <code>Authorization: Bearer &lt;token&gt;</code>:</p>
<pre tabindex="0"><code>curl -H "Authorization: Bearer $TOKEN" ${o.origin}/api/admin/me</code></pre>
<p><a href="${o.back}">Back</a></p>`;
  return renderPage({ title: 'Your API token', main, siteName });
}
