/**
 * GET /partners/apply and the answers of POST /partners/apply (docs/partner-pages.md): the
 * application form, again with the values kept and an error beside each bad field, the page that
 * shows the application id and status token once, and the page of an address over its limit.
 * No script: the form is a plain form post.
 */
import { PARTNER_KINDS, type PartnerKind } from '../../core/partner-pipeline.ts';
import { errorSummary, inputField, selectField, textareaField } from '../../web/form-fields.ts';
import { html, type SafeHtml } from '../../web/html.ts';
import { type RenderedPage, renderPage } from '../../web/layout.ts';
import { KIND_CONTENT } from './partner-content.ts';
import { APPLICATION_FIELDS, type ApplicationField, type FieldErrors, type FormValues, LIMITS } from './partner-form.ts';

export interface ApplyFormState {
  values?: FormValues<ApplicationField>;
  errors?: FieldErrors<ApplicationField>;
}

const page = (siteName: string, title: string, main: SafeHtml) =>
  renderPage({ title, main, siteName, mainClass: 'partner-page' });

const breadcrumb = html`<nav class="breadcrumb" aria-label="Breadcrumb"><ol><li><a href="/partners">Partners</a></li></ol></nav>`;

export function renderApplyPage(siteName: string, state: ApplyFormState = {}): RenderedPage {
  const values = state.values ?? {};
  const errors = state.errors ?? {};
  const field = (name: ApplicationField) => ({ name, value: values[name], error: errors[name] });
  const summary = errorSummary(errors, APPLICATION_FIELDS);
  const main = html`${breadcrumb}
<h1>Apply to the partner programme</h1>
<p class="lead">Tell us who you are and what you want to build. Operators read every application; you follow
yours with the id and the status token this form gives you.</p>
<div class="apply-layout">
<div class="apply-main">
${summary}
<form class="partner-form" method="post" action="/partners/apply">
<fieldset>
<legend>Your organisation</legend>
${selectField({
  ...field('kind'),
  label: 'Kind of partner',
  hint: 'What you will do with the service. Each kind is described on its own page.',
  placeholder: 'Choose a kind…',
  options: PARTNER_KINDS.map((k) => ({ value: k, label: KIND_CONTENT[k].option })),
  attributes: html` required`,
})}
${inputField({
  ...field('organisation'),
  label: 'Organisation',
  attributes: html` required maxlength="${LIMITS.organisation}" autocomplete="organization"`,
})}
${inputField({
  ...field('country'),
  label: 'Country',
  optional: true,
  hint: 'The two-letter code of the country you are established in (ISO 3166-1), such as BE or PT.',
  attributes: html` maxlength="2" pattern="[A-Za-z]{2}" size="3" autocomplete="country" autocapitalize="characters" spellcheck="false"`,
})}
${inputField({
  ...field('website'),
  label: 'Website',
  optional: true,
  hint: 'An https address.',
  attributes: html` type="url" maxlength="${LIMITS.website}" pattern="https://.+" placeholder="https://" autocomplete="url" spellcheck="false"`,
})}
</fieldset>
<fieldset>
<legend>Who we contact</legend>
${inputField({
  ...field('contactName'),
  label: 'Contact name',
  attributes: html` required maxlength="${LIMITS.contactName}" autocomplete="name"`,
})}
${inputField({
  ...field('contactEmail'),
  label: 'Contact e-mail',
  hint: 'We mail an acknowledgement here. Once you are approved, the portal sign-in codes come to this address.',
  attributes: html` type="email" required maxlength="${LIMITS.contactEmail}" autocomplete="email" spellcheck="false"`,
})}
</fieldset>
<fieldset>
<legend>Your use case</legend>
${textareaField({
  ...field('useCase'),
  label: 'What do you want to do with the service?',
  hint: `Who your holders or customers are, what you would issue, verify or deposit, and when. Up to ${LIMITS.useCase} characters; line breaks become spaces.`,
  attributes: html` required maxlength="${LIMITS.useCase}" rows="8"`,
})}
</fieldset>
<p class="form-actions"><button class="button primary" type="submit">Send the application</button></p>
</form>
</div>
<aside class="apply-aside" aria-labelledby="after-title">
<h2 id="after-title">After you apply</h2>
<ol>
<li>This page shows your application id and a status token, once. Keep the token: we never mail it.</li>
<li>Operators screen your application, then look at your organisation more closely.</li>
<li>Once you are approved, you are linked to a tenant with a grant of scopes and a rate class, and your team
signs in to the partner portal to mint its own keys.</li>
</ol>
<p>Not sure which kind you are? Read about <a href="/partners/issuer">issuers</a>,
<a href="/partners/relying-party">relying parties</a>, <a href="/partners/data-partner">data partners</a> and
<a href="/partners/wallet">wallets</a>.</p>
<p class="muted">Programs can apply too: <code>POST /api/partners/applications</code> takes the same fields as JSON.
The form and the API share one limit per address.</p>
</aside>
</div>`;
  return page(
    siteName,
    Object.keys(errors).length > 0 ? 'Error: apply to the partner programme' : 'Apply to the partner programme',
    main,
  );
}

export interface Filed {
  applicationId: string;
  statusToken: string;
  kind: PartnerKind;
  organisation: string;
  contactEmail: string;
}

/** The answer of a filed application: the only place the status token is ever shown. */
export function renderFiledPage(siteName: string, filed: Filed): RenderedPage {
  const main = html`<h1>Application received</h1>
<p class="lead">Thank you: ${filed.organisation}’s application as ${KIND_CONTENT[filed.kind].one} is at the
<strong>applied</strong> stage. Operators screen it next.</p>
<section class="token-panel" aria-labelledby="keep-title">
<h2 id="keep-title">Keep these two values now</h2>
<p class="warning"><strong>The status token is shown on this page only, this once.</strong> We keep only a hash
of it and never send it by mail, so nobody can show it to you again. Without it you cannot follow your
application. Copy it to where you keep other credentials before you leave this page.</p>
<dl class="token-values">
<dt>Application id</dt><dd><code id="application-id">${filed.applicationId}</code></dd>
<dt>Status token</dt><dd><code id="status-token">${filed.statusToken}</code></dd>
</dl>
</section>
<h2>What happens next</h2>
<ol class="next-steps">
<li>We mail an acknowledgement with your application id to <strong>${filed.contactEmail}</strong>.</li>
<li>Operators move your application through screening and due diligence. Follow it on the
<a href="/partners/status">application status</a> page with the id and the token.</li>
<li>Once you are approved, your contact signs in to the <a href="/portal/signin">partner portal</a> with a code mailed
to them.</li>
</ol>
<ul class="actions"><li><a class="button primary" href="/partners/status">Follow your application</a></li>
<li><a class="button" href="/partners">Back to the programme</a></li></ul>`;
  return page(siteName, 'Application received', main);
}

/** An address that has used up its budget for the hour (the same one as the JSON intake's). */
export function renderTooManyPage(siteName: string, what: string, retryAfterSeconds: number | undefined): RenderedPage {
  const minutes = retryAfterSeconds === undefined ? undefined : Math.max(1, Math.ceil(retryAfterSeconds / 60));
  const main = html`<h1>Too many requests</h1>
<p class="lead">${what}</p>
<p>${minutes === undefined ? 'Try again later.' : `Try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`}
Nothing was filed or read this time.</p>
<p><a href="/partners">Back to the partner programme</a></p>`;
  return page(siteName, 'Too many requests', main);
}
