/**
 * The operators' sign-in pages (docs/operator-sign-in.md): the password form where no identity
 * provider is configured (or asked for), a refused sign-in saying what happened, and signed out.
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

export function renderSignedOutPage(siteName: string): RenderedPage {
  const main = html`<h1>You are signed out</h1>
<p class="lead">This browser’s operator session has ended, and the API tokens it made no longer work.</p>
<p><a href="/auth/login">Sign in again</a>.</p>`;
  return renderPage({ title: 'Signed out', main, siteName });
}
