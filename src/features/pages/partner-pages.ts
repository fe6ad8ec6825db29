/**
 * GET /partners and GET /partners/{issuer,relying-party,data-partner,wallet}: the partner
 * programme and what each kind of partner gets and needs (docs/partner-pages.md). Pure renderers
 * with no script; the scopes, rate classes, limits and stages come from the code that enforces them.
 */
import { INTEGRATION_SCOPES, type IntegrationScope, RATE_CLASS_NAMES, RATE_CLASSES } from '../../core/integration-scopes.ts';
import { PARTNER_KINDS, PARTNER_STAGES, type PartnerKind } from '../../core/partner-pipeline.ts';
import { html, type SafeHtml } from '../../web/html.ts';
import { type RenderedPage, renderPage } from '../../web/layout.ts';
import { CODE_TTL_MS } from '../onboarding/mailed-codes.ts';
import { MAX_ACTIVE_KEYS, MAX_TEAM } from '../partners/partner-access.ts';
import { KIND_CONTENT, STAGE_CONTENT } from './partner-content.ts';

export interface ProgrammeFacts {
  /** Applications one address may file per window (the intake's limit, shared with the form). */
  intakeQuota: number;
  intakeWindowSeconds: number;
}

const page = (siteName: string, title: string, main: SafeHtml, current?: string) =>
  renderPage({ title, main, siteName, mainClass: 'partner-page', ...(current ? { current } : {}) });

const perWindow = (quota: number, seconds: number) =>
  `${quota.toLocaleString('en')} per ${seconds === 60 ? 'minute' : seconds === 3600 ? 'hour' : `${seconds} seconds`}`;

function scopeTable(scopes: readonly IntegrationScope[], caption: string): SafeHtml {
  return html`<table>
<caption>${caption}</caption>
<thead><tr><th scope="col">Scope</th><th scope="col">What a key with it may do</th></tr></thead>
<tbody>${scopes.map((s) => html`<tr><td><code>${s}</code></td><td>${INTEGRATION_SCOPES[s]}</td></tr>`)}</tbody>
</table>`;
}

function rateTable(): SafeHtml {
  return html`<table>
<caption>Rate classes: requests per key, in fixed windows</caption>
<thead><tr><th scope="col">Class</th><th scope="col" class="num">Requests</th><th scope="col">For</th></tr></thead>
<tbody>${RATE_CLASS_NAMES.map((c) => {
    const r = RATE_CLASSES[c];
    return html`<tr><td><code>${c}</code></td><td class="num">${perWindow(r.quota, r.windowSeconds)}</td><td>${r.description}</td></tr>`;
  })}</tbody>
</table>`;
}

export function renderProgrammePage(siteName: string, facts: ProgrammeFacts): RenderedPage {
  const cards = PARTNER_KINDS.map((k) => {
    const c = KIND_CONTENT[k];
    return html`<li class="kind-card"><h3><a href="/partners/${k}">${c.title}</a></h3><p>${c.summary}</p>
<p class="kind-scopes">${c.scopes.length > 0 ? html`Scopes: ${c.scopes.map((s, i) => html`${i > 0 ? ', ' : ''}<code>${s}</code>`)}` : 'No key needed'}</p></li>`;
  });
  const main = html`<h1>Partner programme</h1>
<p class="lead">${siteName === 'openrail' ? 'openrail is' : `${siteName} runs openrail,`} an open-source credential trust service. Organisations issue credentials
(SD-JWT VC over OpenID4VCI) to their holders’ wallets, anyone verifies them over OpenID4VP without an account,
and businesses deposit bills, receipts, tickets and statements into their customers’ wallets. Partners build
their services on it.</p>
<ul class="actions">
<li><a class="button primary" href="/partners/apply">Apply</a></li>
<li><a class="button" href="/partners/status">Follow an application</a></li>
</ul>

<h2 id="kinds">Four kinds of partner</h2>
<ul class="kind-cards">${cards}</ul>

<h2 id="onboarding">How onboarding works</h2>
<ol class="onboarding-steps">
<li><strong>Apply.</strong> The <a href="/partners/apply">application form</a> files your application at the
<em>applied</em> stage and shows you its id and a status token, once. An address may file
${perWindow(facts.intakeQuota, facts.intakeWindowSeconds)}.</li>
<li><strong>Screening and due diligence.</strong> Operators review the application, one stage at a time. You follow it
on the <a href="/partners/status">status page</a> with the id and the token.</li>
<li><strong>Approval, a tenant and a grant.</strong> Once you are approved, an operator links your partnership to a
tenant (an existing one, or one made for you) and attaches a grant: the scopes your keys may carry and their
rate class.</li>
<li><strong>The partner portal.</strong> Your contact signs in at <a href="/portal/signin">/portal/signin</a> with a
six-digit code mailed to them, which works once, for ${CODE_TTL_MS / 60_000} minutes; there is no password. A team
has up to ${MAX_TEAM} members, each an admin, a developer or a viewer; admins add and remove them.</li>
<li><strong>Your own keys.</strong> Your team mints API keys inside the grant, up to ${MAX_ACTIVE_KEYS} active at a
time: each with some of the grant’s scopes, the grant’s rate class, and your tenant. A key is shown once; rotate
or revoke it in the portal.</li>
<li><strong>Onboarding, then live.</strong> You build and test the integration, and an operator moves you to
<em>live</em> when it runs in production.</li>
</ol>
<p>Before it is live, an application can end as <em>rejected</em>, or as <em>withdrawn</em> at the partner’s word; a
live partner can only withdraw. Both are final, and a partner that leaves loses its keys and its portal sessions
at once.</p>
<table>
<caption>The eight stages of an application</caption>
<thead><tr><th scope="col">Stage</th><th scope="col">What it means</th></tr></thead>
<tbody>${PARTNER_STAGES.map((s) => html`<tr><td><strong>${STAGE_CONTENT[s].label}</strong></td><td>${STAGE_CONTENT[s].meaning}</td></tr>`)}</tbody>
</table>

<h2 id="grants">Scopes and rate classes</h2>
<p>A key reaches only the operations of its scopes, for its own tenant only, and is metered per key, never per
address. Verification is never metered.</p>
${scopeTable(Object.keys(INTEGRATION_SCOPES) as IntegrationScope[], 'Scopes a grant can hold')}
${rateTable()}

<h2 id="start">Start</h2>
<ul class="actions">
<li><a class="button primary" href="/partners/apply">Apply to the programme</a></li>
<li><a class="button" href="/partners/status">Follow an application</a></li>
</ul>`;
  return page(siteName, 'Partner programme', main, '/partners');
}

export function renderKindPage(siteName: string, kind: PartnerKind): RenderedPage {
  const c = KIND_CONTENT[kind];
  const others = PARTNER_KINDS.filter((k) => k !== kind);
  const main = html`<nav class="breadcrumb" aria-label="Breadcrumb"><ol><li><a href="/partners">Partners</a></li></ol></nav>
<h1>${c.title}</h1>
<p class="lead">${c.lead}</p>
<div class="kind-columns">
<section aria-labelledby="gets"><h2 id="gets">What you get</h2>
<ul class="gets">${c.gets.map((g) => html`<li>${g}</li>`)}</ul></section>
<section class="needs-panel" aria-labelledby="needs"><h2 id="needs">What you need</h2>
<ul class="needs">${c.needs.map((n) => html`<li>${n}</li>`)}</ul></section>
</div>
<section aria-labelledby="grant"><h2 id="grant">Your grant</h2>
<p>${c.scopesNote}</p>
${c.scopes.length > 0 ? scopeTable(c.scopes, `Scopes for ${c.title.toLowerCase()}`) : null}
<p>Every key carries one rate class: ${RATE_CLASS_NAMES.map((r, i) => html`${i > 0 ? ', ' : ''}<code>${r}</code> (${perWindow(RATE_CLASSES[r].quota, RATE_CLASSES[r].windowSeconds)})`)}.
See <a href="/partners#grants">scopes and rate classes</a>.</p>
</section>
<ul class="actions">
<li><a class="button primary" href="/partners/apply?kind=${kind}">Apply as ${c.one}</a></li>
<li><a class="button" href="/partners#onboarding">How onboarding works</a></li>
</ul>
<nav class="other-kinds" aria-label="Other kinds of partner"><h2>Other kinds of partner</h2>
<ul>${others.map((k) => html`<li><a href="/partners/${k}">${KIND_CONTENT[k].title}</a>: ${KIND_CONTENT[k].summary}</li>`)}</ul></nav>`;
  return page(siteName, c.title, main);
}
