/**
 * GET /operator/invitation and the answers of POST /operator/invitation (docs/operators.md,
 * "Invitations"): the person an invitation or a password reset was mailed to chooses a password.
 * The mailed link carries the code in its fragment, which the page's script (invitation.js) puts
 * into the form and takes out of the address bar; without the script the person pastes the code.
 */
import { errorSummary, inputField } from '../../web/form-fields.ts';
import { html } from '../../web/html.ts';
import { type RenderedPage, renderPage } from '../../web/layout.ts';
import { MIN_PASSWORD_LENGTH } from './operator-credentials.ts';

export const INVITATION_FIELDS = ['code', 'password', 'confirm'] as const;
export type InvitationField = (typeof INVITATION_FIELDS)[number];

export function renderInvitationPage(
  siteName: string,
  errors: Partial<Record<InvitationField, string>> = {},
  code?: string,
): RenderedPage {
  const main = html`<h1>Choose your operator password</h1>
<p class="lead">You were invited to operate ${siteName}, or asked for a new password. Choose it here: nobody else ever sees or sets it.</p>
${errorSummary(errors, INVITATION_FIELDS)}
<form id="invitation-form" method="post" action="/operator/invitation">
<div id="invitation-code">${inputField({
    name: 'code',
    label: 'Code from the mail',
    hint: 'Filled in for you when you follow the mailed link; otherwise paste it from the mail.',
    value: code,
    error: errors.code,
    attributes: html` required maxlength="43" autocomplete="off" autocapitalize="none" spellcheck="false"`,
  })}</div>
${inputField({
  name: 'password',
  label: 'New password',
  hint: `At least ${MIN_PASSWORD_LENGTH} characters, not containing your username.`,
  error: errors.password,
  attributes: html` type="password" required minlength="${MIN_PASSWORD_LENGTH}" maxlength="1024" autocomplete="new-password"`,
})}
${inputField({
  name: 'confirm',
  label: 'The same password again',
  error: errors.confirm,
  attributes: html` type="password" required maxlength="1024" autocomplete="new-password"`,
})}
<p><button class="button primary" type="submit">Set my password</button></p>
</form>`;
  return renderPage({ title: 'Choose your password', main, siteName, scripts: ['invitation.js'] });
}

export function renderInvitationDonePage(siteName: string, username: string): RenderedPage {
  const main = html`<h1>Your password is set</h1>
<p class="lead">The operator account <code>${username}</code> is ready. The link you followed no longer works.</p>
<p>Sign in with your username and this password (<code>POST /api/login</code>).</p>`;
  return renderPage({ title: 'Password set', main, siteName });
}
