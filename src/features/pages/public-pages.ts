/**
 * The public pages (docs/public-pages.md): the home page, the four readers' pages, capabilities,
 * standards, regulations, the developers' page and the demo. Pure renderers on the web kit's one
 * layout; only /demo runs scripts (its wallet and demo.js, by their hashes). Their words are in public-content.ts.
 */
import type { WebAssets } from '../../web/assets.ts';
import { html, type SafeHtml } from '../../web/html.ts';
import { type RenderedPage, renderPage } from '../../web/layout.ts';
import type { ApiSummary } from './openapi-summary.ts';
import { AUDIENCES, type AudiencePage, CAPABILITIES, doc, REGULATIONS, STANDARDS } from './public-content.ts';

/** The public documents the developers' page may link to, each shown only when the deployment serves its GET path. */
export const PUBLIC_DOCUMENTS: ReadonlyArray<{ path: string; what: string }> = [
  { path: '/.well-known/did.json', what: "The platform's DID document (did:web)" },
  { path: '/.well-known/openid-credential-issuer', what: 'Credential issuer metadata (OpenID4VCI)' },
  { path: '/.well-known/oauth-authorization-server', what: 'Authorization server metadata (OAuth 2.0)' },
  { path: '/.well-known/security.txt', what: 'Security contact (RFC 9116)' },
  { path: '/openapi.json', what: 'The OpenAPI contract of this deployment' },
  { path: '/conformance/vectors', what: 'The conformance set for verifiers' },
  { path: '/conformance/vectors/2', what: 'The conformance set with the HAIP and Digital Credentials API cases' },
  { path: '/conformance/vectors/3', what: 'The conformance set with the ISO mdoc cases as well' },
  { path: '/build', what: 'Build provenance: commit and source digest' },
  { path: '/readyz', what: 'Readiness of the service' },
];

export interface PublicPageContext {
  siteName: string;
  assets: WebAssets;
  /** The deployment's public origin, for the curl recipes. */
  origin: string;
  /**
   * Whether this deployment serves a GET at the path (OPENRAIL_UNMOUNTED_GROUPS may leave some
   * out): a link to a path it does not serve keeps its words and loses the link. Default: all.
   */
  served?: (path: string) => boolean;
}

/** A GET-path test from the contract document's GET paths, templates (`/t/{tenant}/did.json`) included. */
export function servedPaths(getPaths: readonly string[]): (path: string) => boolean {
  const exact = new Set(getPaths);
  const templates = getPaths
    .filter((p) => p.includes('{'))
    .map(
      (p) =>
        new RegExp(
          `^${p
            .split(/\{[^}]+\}/)
            .map(escapeRegExp)
            .join('[^/]+')}$`,
        ),
    );
  return (path) => exact.has(path) || templates.some((t) => t.test(path));
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The page's links to site paths this deployment does not serve, replaced by their words. */
function unlinkUnserved(page: string, served: (path: string) => boolean): string {
  return page.replace(/<a [^>]*?href="(\/[^"#?]*)[^"]*"[^>]*>([\s\S]*?)<\/a>/g, (link, path: string, words: string) =>
    served(path) ? link : words,
  );
}

const page = (
  ctx: PublicPageContext,
  title: string,
  current: string,
  main: SafeHtml,
  extra: { scripts?: string[]; mainClass?: string } = {},
) => {
  const rendered = renderPage({ title, current, main, siteName: ctx.siteName, ...extra }, ctx.assets);
  return ctx.served ? { ...rendered, html: unlinkUnserved(rendered.html, ctx.served) } : rendered;
};

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function renderHome(ctx: PublicPageContext): RenderedPage {
  const cards = AUDIENCES.map(
    (a) => html`<li class="kind-card"><h3><a href="${a.path}">${a.title}</a></h3><p>${a.card}</p></li>`,
  );
  const who = ctx.siteName === 'openrail' ? 'openrail is' : `${ctx.siteName} runs openrail,`;
  const main = html`<h1>Credentials people carry, and anyone can check</h1>
<p class="lead">${who} an open-source credential trust service. Cities, businesses and governments issue
credentials (a resident card, a pass, a membership) to the wallets of the people they serve. Holders show only what is
asked for. Anyone can check a credential, without an account, and a revoked one stops verifying within minutes.</p>
<ul class="actions">
<li><a class="button primary" href="/demo">Try the demo</a></li>
<li><a class="button" href="/verify">Verify a credential</a></li>
<li><a class="button" href="/developers">For developers</a></li>
</ul>

<h2 id="who">Who it is for</h2>
<ul class="kind-cards">${cards}</ul>

<h2 id="how">How it works</h2>
<ol class="onboarding-steps">
<li><strong>Issue.</strong> An organisation registers a credential type and makes an offer; the holder's wallet scans it and collects a credential bound to its own key.</li>
<li><strong>Hold.</strong> The credential stays in the wallet. Each claim can be shown on its own.</li>
<li><strong>Verify.</strong> A relying party asks for some claims with a QR code; the wallet answers with those alone, and the service checks the issuer's signature, the holder's key and the revocation status.</li>
<li><strong>Revoke.</strong> The issuer revokes a credential that is no longer valid; every verifier sees it in the published status list, at once or within its five-minute cache.</li>
</ol>

<h2 id="more">Learn more</h2>
<ul class="documents">
<li><a href="/capabilities">Capabilities</a><span class="what">Everything the service does, with its documentation</span></li>
<li><a href="/standards">Standards</a><span class="what">Which standards, which versions, and how that is shown</span></li>
<li><a href="/regulations">Regulations</a><span class="what">How the service supports data-protection duties and EU wallets</span></li>
<li><a href="/partners">Partners</a><span class="what">Build on the service as an issuer, relying party, data partner or wallet</span></li>
<li><a href="/developers">Developers</a><span class="what">Quick start, API reference, recipes, conformance kit</span></li>
</ul>`;
  return page(ctx, 'Home', '/', main);
}

export function renderAudience(ctx: PublicPageContext, a: AudiencePage): RenderedPage {
  const main = html`<h1>${a.title}</h1>
<p class="lead">${a.lead}</p>
<h2 id="problems">What it solves</h2>
<ul class="kind-cards">${a.problems.map((p) => html`<li class="kind-card"><h3>${p.title}</h3><p>${p.text}</p></li>`)}</ul>
<h2 id="private">What stays private</h2>
<ul class="points">${a.private.map((p) => html`<li>${p}</li>`)}</ul>
<h2 id="start">How to start</h2>
<ol class="points">${a.start.map((p) => html`<li>${p}</li>`)}</ol>`;
  return page(ctx, a.title, a.path, main);
}

export function renderCapabilities(ctx: PublicPageContext): RenderedPage {
  const main = html`<h1>Capabilities</h1>
<p class="lead">What the service does, in the order a credential lives: each with the document that describes its contract.</p>
${CAPABILITIES.map(
  (c) => html`<section class="capability"><h2>${c.title}</h2><p>${c.what}</p>
<p class="muted">Documentation: ${c.docs.map((d, i) => html`${i > 0 ? ', ' : ''}${d}`)}</p></section>`,
)}
<p>The list of every operation this deployment serves is on the <a href="/developers#served">developers' page</a>.</p>`;
  return page(ctx, 'Capabilities', '/capabilities', main);
}

export function renderStandards(ctx: PublicPageContext): RenderedPage {
  const main = html`<h1>Standards</h1>
<p class="lead">The open standards the service speaks, the versions it follows, and what shows that it does.</p>
${STANDARDS.map(
  (s) => html`<section class="standard"><h2>${s.name} <span class="muted">(${s.version})</span></h2>
<dl><dt>What the service does</dt><dd>${s.use}</dd><dt>Evidence</dt><dd>${s.evidence}</dd></dl></section>`,
)}
<h2 id="kit">Check a verifier yourself</h2>
<p>The <a href="/conformance/vectors">conformance set</a> and the <code>openrail conformance</code> runner check any
verifier, in any language, against the reference verifier (${doc('conformance', 'conformance')}). A
<a href="/conformance/vectors/2">second set</a> adds issuer keys certified by <code>x5c</code>, verifiers known by
<code>x509_hash</code>, and answers through the Digital Credentials API; a <a href="/conformance/vectors/3">third</a>
adds ISO mdoc presentations.</p>
<h2 id="not-yet">Not served yet</h2>
<p>Of HAIP 1.0: an issuer identified by an https URL in <code>iss</code> (credentials name the issuer's
<code>did:web</code>, and its certificate names both), refresh tokens, and wallet-initiated issuance at an issuer that
has no sign-in hook (${doc('haip', 'HAIP')}).</p>`;
  return page(ctx, 'Standards', '/standards', main);
}

export function renderRegulations(ctx: PublicPageContext): RenderedPage {
  const main = html`<h1>Regulations</h1>
<p class="lead">How the service supports the duties of those who run it under data-protection law, and where it stands
with the EU Digital Identity Wallet. These are facts about the software, not legal advice.</p>
${REGULATIONS.map(
  (r) =>
    html`<section><h2 id="${r.id}">${r.title}</h2><ul class="points">${r.points.map((p) => html`<li>${p}</li>`)}</ul></section>`,
)}`;
  return page(ctx, 'Regulations', '/regulations', main);
}

export function renderDevelopers(ctx: PublicPageContext, summary: ApiSummary, docsCount: number): RenderedPage {
  const served = new Set(summary.getPaths);
  const documents = PUBLIC_DOCUMENTS.filter((d) => served.has(d.path));
  const total = summary.groups.reduce((n, g) => n + g.operations, 0);
  const B = ctx.origin;
  const groups =
    summary.groups.length === 0
      ? html`<p>This deployment lists no operations in its OpenAPI document.</p>`
      : html`<div class="scroll-box" tabindex="0" role="region" aria-labelledby="served"><table class="groups">
<caption>${plural(total, 'operation', 'operations')} in ${plural(summary.groups.length, 'group', 'groups')}, as listed by <a href="/openapi.json">/openapi.json</a></caption>
<thead><tr><th scope="col">Group</th><th scope="col">Operations</th><th scope="col">For example</th></tr></thead>
<tbody>
${summary.groups.map(
  (g) => html`<tr>
<th scope="row">${g.name}${g.description ? html`<br><span class="muted">${g.description}</span>` : null}</th>
<td class="count">${g.operations}</td>
<td><ul>${g.examples.map((e) => html`<li><code>${e}</code></li>`)}</ul></td>
</tr>
`,
)}</tbody>
</table></div>`;

  const main = html`<h1>Developers</h1>
<p class="lead">${summary.title}: an HTTP API with an OpenAPI contract, standard protocols for wallets, and no SDK needed.</p>
<ul class="actions">
<li><a class="button primary" href="/docs">API reference</a></li>
<li><a class="button" href="/developers/docs">Documents (${docsCount})</a></li>
</ul>

<h2 id="quick-start">Quick start</h2>
<p>Run your own deployment (Node.js 20.19 or newer):</p>
<pre tabindex="0"><code>git clone &lt;this repository&gt; openrail &amp;&amp; cd openrail
npm install
npm start    # prints the URL and, on the first start only, the owner token</code></pre>

<h2 id="recipes">Recipes with curl</h2>
<p>Verify a credential without an account: ask for some claims of a type from the catalogue, show the
<code>requestUri</code> to the holder (as a QR code from <code>/api/qr</code>), and read the outcome with the result token.</p>
<pre tabindex="0"><code>curl -s ${B}/verify/catalog
curl -s -X POST ${B}/verify/request -H 'Content-Type: application/json' \\
     -d '{"vct":"${B}/t/demo-transit/types/transit-pass","claims":["given_name"],"nonce":"'$(node -p 'crypto.randomUUID()')'","aud":"https://shop.example"}'
curl -s ${B}/verify/result/&lt;transactionId&gt; -H 'Authorization: Bearer &lt;resultToken&gt;'</code></pre>
<p>Issue one, as an operator with a bearer token (${doc('offers', 'offers')}, ${doc('issuance', 'issuance')}), and collect it with
the reference wallet, from a clone of the repository:</p>
<pre tabindex="0"><code>curl -s -X POST ${B}/api/offers -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\
     -d '{"tenant":"demo-transit","typeId":"transit-pass","subject":{"given_name":"Ada","family_name":"Lovelace","pass_number":"MT-000001","fare_zone":"central","valid_until":"2030-12-31"}}'
npx openrail wallet collect '&lt;offerUri&gt;'</code></pre>
<p>Every refusal names its code (${doc('errors', 'errors')}); events reach your systems as signed webhooks (${doc('webhooks', 'webhooks')}).</p>

<h2 id="conformance">The conformance kit</h2>
<p>Check a verifier of your own against the <a href="/conformance/vectors">conformance set</a>, from a clone of the repository:
<code>npx openrail conformance --verifier "&lt;your verifier&gt;" --vectors ${B}/conformance/vectors</code> (${doc('conformance', 'conformance')}).</p>

<h2 id="served">What this deployment serves</h2>
${summary.version ? html`<p class="muted">${summary.title} API version ${summary.version}.</p>` : null}
${groups}
${
  documents.length > 0
    ? html`<h2 id="documents">Public documents</h2>
<ul class="documents">
${documents.map((d) => html`<li><a href="${d.path}"><code>${d.path}</code></a><span class="what">${d.what}</span></li>\n`)}</ul>`
    : null
}`;
  return page(ctx, 'Developers', '/developers', main);
}

export function renderDemo(ctx: PublicPageContext, enabled: boolean): RenderedPage {
  if (!enabled) {
    const main = html`<h1>Demo</h1>
<p class="lead">This deployment runs without its demonstration tenant, so the demo is off here.</p>
<p>You can still <a href="/verify">verify a credential</a> or read the <a href="/developers">developers' page</a>.</p>`;
    return page(ctx, 'Demo', '/demo', main);
  }
  // The reference wallet reaches a plain http deployment (npm start on this machine) only when told to.
  const allowHttp = ctx.origin.startsWith('http:') ? ' --allow-http' : '';
  const main = html`<h1>Demo: issue, present, revoke</h1>
<p class="lead">Metro Transit (Demo), a demonstration organisation, issues you a sample transit pass. Present it, then
revoke it and see the same check fail. Everything here is live, and marked as demonstration data. This browser is all you need.</p>
<section class="demo-wallet" aria-labelledby="wallet-heading">
<h2 id="wallet-heading">This page’s wallet</h2>
<p>A small wallet lives in this page for this visit. Its holder key is made by your browser and cannot be exported:
only its public half is ever sent. It keeps the pass in the page’s memory and stores nothing; leaving or reloading the
page forgets both. Under each step you see what went over the wire, with tokens and other secrets shortened.</p>
<p id="wallet-status" role="status" aria-live="polite"></p>
<div id="wallet-held" class="outcome"></div>
</section>
<ol class="demo-steps">
<li id="step-issue"><h2>1. Collect a pass</h2>
<p>Collect it with this page’s wallet, scan the QR code with any wallet that speaks OpenID for Verifiable Credential
Issuance, or use the reference wallet in a clone of the repository:
<code>npx openrail wallet collect '&lt;the offer link&gt;'${allowHttp}</code>.</p>
<p><button id="issue" class="button primary" type="button">Get a demo pass</button></p>
<div id="offer" hidden>
<p><button id="collect-here" class="button" type="button" disabled>Collect with this page’s wallet</button></p>
<img id="offer-qr" class="qr" alt="QR code of the credential offer: scan it with your wallet" width="256" height="256">
<p><a id="offer-link" href="#step-issue">Open in a wallet on this device</a></p>
<details><summary>With the command-line wallet</summary>
<p>In a clone of the repository, once: <code>npx openrail wallet init</code>. Then:</p>
<pre><code id="offer-command"></code></pre></details>
</div>
<p id="issue-status" role="status" aria-live="polite"></p>
<div id="wire-collect" class="wire"></div></li>
<li id="step-present"><h2>2. Present it</h2>
<p>A relying party asks for your first name, fare zone and validity, but not your pass number or family name. Present
the pass from this page’s wallet, or ask for it and answer with the wallet that collected it.</p>
<p id="dc-note" hidden>This browser offers the Digital Credentials API: once you ask for the pass, it can also ask a
wallet of this device for it. This page’s own wallet is not one of those.</p>
<p class="demo-actions"><button id="present-here" class="button primary" type="button" disabled>Present from this page’s wallet</button>
<button id="present" class="button" type="button" disabled>Ask for the pass</button></p>
<div id="request" hidden>
<img id="request-qr" class="qr" alt="QR code of the presentation request: scan it with your wallet" width="256" height="256">
<p><a id="request-link" href="#step-present">Open in a wallet on this device</a></p>
<p><button id="device-wallet" class="button" type="button" hidden>Ask a wallet on this device (Digital Credentials API)</button></p>
<details><summary>With the command-line wallet</summary><pre><code id="request-command"></code></pre></details>
</div>
<p id="present-status" role="status" aria-live="polite"></p>
<div id="outcome" class="outcome"></div>
<div id="wire-present" class="wire"></div></li>
<li id="step-revoke"><h2>3. Revoke it</h2>
<p>The issuer revokes the pass. Present it again: the check now fails with <code>credential_revoked</code>.</p>
<p><button id="revoke" class="button danger" type="button" disabled>Revoke the pass</button></p>
<p id="revoke-status" role="status" aria-live="polite"></p>
<div id="wire-revoke" class="wire"></div></li>
</ol>
<p class="muted">The demo pass names a made-up rider. Its claims are erased from the service as soon as a wallet collects it, or within about 20 minutes if none does.</p>`;
  return page(ctx, 'Demo', '/demo', main, {
    scripts: ['dc-api.js', 'demo-wire.js', 'demo-wallet.js', 'demo.js'],
    mainClass: 'demo-page',
  });
}
