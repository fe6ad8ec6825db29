/**
 * GET /partners/status and the answers of POST /partners/status (docs/partner-pages.md): the form
 * that takes an application id and its status token (posted, never in a URL), and the application
 * as its applicant sees it: its stage in words, what comes next, and its history. A wrong id and a
 * wrong token are one answer. No script.
 */

import { FORWARD_STAGES, PARTNER_KINDS, type PartnerKind, type PartnerStage, TRANSITIONS } from '../../core/partner-pipeline.ts';
import { errorSummary, inputField } from '../../web/form-fields.ts';
import { html, type SafeHtml } from '../../web/html.ts';
import { type RenderedPage, renderPage } from '../../web/layout.ts';
import type { StatusView } from '../partners/schemas.ts';
import { KIND_CONTENT, STAGE_CONTENT } from './partner-content.ts';
import type { FieldErrors } from './partner-form.ts';

export const STATUS_FIELDS = ['applicationId', 'statusToken'] as const;
export type StatusField = (typeof STATUS_FIELDS)[number];

/** The one answer for an id that is unknown, a token that does not match, or either malformed. */
export const NO_SUCH_APPLICATION = 'No application matches this application id and status token. Check both and try again.';

const page = (siteName: string, title: string, main: SafeHtml) =>
  renderPage({ title, main, siteName, mainClass: 'partner-page' });

const breadcrumb = html`<nav class="breadcrumb" aria-label="Breadcrumb"><ol><li><a href="/partners">Partners</a></li></ol></nav>`;

/** "2026-11-23 09:14 UTC", in a <time> with the exact instant. */
const when = (iso: string) => html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`;

const isStage = (s: string): s is PartnerStage => Object.hasOwn(STAGE_CONTENT, s);
const stageLabel = (s: string) => (isStage(s) ? STAGE_CONTENT[s].label : s);
const kindLabel = (k: string) => (PARTNER_KINDS.includes(k as PartnerKind) ? KIND_CONTENT[k as PartnerKind].name : k);

export function renderStatusFormPage(
  siteName: string,
  state: { applicationId?: string; errors?: FieldErrors<StatusField>; notFound?: boolean } = {},
): RenderedPage {
  const errors = state.errors ?? {};
  const alert = state.notFound ? html`<div class="error-summary" role="alert"><p>${NO_SUCH_APPLICATION}</p></div>` : null;
  const main = html`${breadcrumb}
<h1>Follow your application</h1>
<p class="lead">Enter the application id and the status token you were shown when you applied.</p>
${alert ?? errorSummary(errors, STATUS_FIELDS)}
<form class="partner-form" method="post" action="/partners/status">
${inputField({
  name: 'applicationId',
  label: 'Application id',
  hint: 'It starts with pap_ and is also in the acknowledgement we mailed you.',
  value: state.applicationId,
  error: errors.applicationId,
  attributes: html` required maxlength="26" autocomplete="off" autocapitalize="none" spellcheck="false"`,
})}
${inputField({
  name: 'statusToken',
  label: 'Status token',
  hint: 'The 43 characters shown once when you applied. We never mail it.',
  error: errors.statusToken,
  attributes: html` required maxlength="43" autocomplete="off" autocapitalize="none" spellcheck="false"`,
})}
<p class="form-actions"><button class="button primary" type="submit">Show the status</button></p>
</form>
<p class="muted">Lost the token? It cannot be shown again: <a href="/partners/apply">apply again</a> and keep the new one.</p>`;
  const title = state.notFound || Object.keys(errors).length > 0 ? 'Error: follow your application' : 'Follow your application';
  return page(siteName, title, main);
}

/** The forward stages, the current one marked; an application that left the path shows where it stopped. */
function progress(view: StatusView): SafeHtml {
  const reached = new Set(view.history.map((h) => h.stage));
  const current = view.stage;
  const steps = FORWARD_STAGES.map((s) => {
    const state = s === current ? 'current' : reached.has(s) ? 'done' : 'todo';
    const label = STAGE_CONTENT[s].label;
    return state === 'current'
      ? html`<li class="step current" aria-current="step">${label}</li>`
      : html`<li class="step ${state}">${label}${state === 'done' ? html`<span class="step-note"> (done)</span>` : null}</li>`;
  });
  const exit = FORWARD_STAGES.includes(current as PartnerStage)
    ? null
    : html`<li class="step current exit" aria-current="step">${stageLabel(current)}</li>`;
  return html`<ol class="stage-path" aria-label="Stages of an application">${steps}${exit}</ol>`;
}

function nextSteps(stage: string): SafeHtml {
  if (!isStage(stage)) return html`<p>No further stage is known for this application.</p>`;
  const next = TRANSITIONS[stage];
  if (next.length === 0) return html`<p>Nothing: <strong>${stageLabel(stage)}</strong> is a final stage.</p>`;
  const forward = next.filter((s) => s !== 'rejected' && s !== 'withdrawn');
  const exits = next.filter((s) => s === 'rejected' || s === 'withdrawn').map(stageLabel);
  return html`<p>${
    forward.length > 0
      ? html`The next stage is <strong>${stageLabel(forward[0] as string)}</strong>, when an operator moves your application on.`
      : null
  } ${exits.length > 0 ? `From here it can also end as ${exits.join(' or ').toLowerCase()}.` : null}</p>`;
}

export function renderStatusPage(siteName: string, view: StatusView): RenderedPage {
  const meaning = isStage(view.stage) ? STAGE_CONTENT[view.stage].meaning : null;
  const main = html`${breadcrumb}
<h1>Your application</h1>
<dl class="application-facts">
<dt>Organisation</dt><dd>${view.organisation}</dd>
<dt>Kind</dt><dd>${kindLabel(view.kind)}</dd>
<dt>Application id</dt><dd><code>${view.applicationId}</code></dd>
<dt>Submitted</dt><dd>${when(view.submittedAt)}</dd>
</dl>
<section class="stage-panel" aria-labelledby="stage-title">
<h2 id="stage-title">Stage: ${stageLabel(view.stage)}</h2>
<p class="muted">Since ${when(view.stageSince)}.</p>
${meaning ? html`<p>${meaning}</p>` : null}
<h3>What comes next</h3>
${nextSteps(view.stage)}
${progress(view)}
</section>
<section aria-labelledby="history-title">
<h2 id="history-title">History</h2>
<table>
<caption>Every stage of your application, oldest first</caption>
<thead><tr><th scope="col">Stage</th><th scope="col">Date</th></tr></thead>
<tbody>${view.history.map((h) => html`<tr><td>${stageLabel(h.stage)}</td><td>${when(h.at)}</td></tr>`)}</tbody>
</table>
</section>
<p><a href="/partners/status">Follow another application</a> · <a href="/partners">The partner programme</a></p>`;
  return page(siteName, 'Your application', main);
}
