/**
 * GET /: what openrail is, what this deployment serves (from its OpenAPI document, summarised by
 * summarizeOpenApi), and links to the verifier, the API reference and the public documents that
 * are actually served. A pure renderer: no script, so script-src is 'none'.
 */
import type { WebAssets } from '../../web/assets.ts';
import { html } from '../../web/html.ts';
import { type RenderedPage, renderPage } from '../../web/layout.ts';
import type { ApiSummary } from './openapi-summary.ts';

/** The public documents the home page may link to, each shown only when the summary has its GET path. */
export const PUBLIC_DOCUMENTS: ReadonlyArray<{ path: string; what: string }> = [
  { path: '/.well-known/did.json', what: "The platform's DID document (did:web)" },
  { path: '/.well-known/openid-credential-issuer', what: 'Credential issuer metadata (OpenID4VCI)' },
  { path: '/.well-known/oauth-authorization-server', what: 'Authorization server metadata (OAuth 2.0)' },
  { path: '/.well-known/security.txt', what: 'Security contact (RFC 9116)' },
  { path: '/openapi.json', what: 'The OpenAPI contract of this deployment' },
  { path: '/conformance/vectors', what: 'The conformance set for verifiers' },
  { path: '/build', what: 'Build provenance: commit and source digest' },
  { path: '/readyz', what: 'Readiness of the service' },
];

export interface HomePageData {
  summary: ApiSummary;
  siteName?: string;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function renderHomePage(data: HomePageData, assets?: WebAssets): RenderedPage {
  const { summary } = data;
  const served = new Set(summary.getPaths);
  const documents = PUBLIC_DOCUMENTS.filter((d) => served.has(d.path));
  const total = summary.groups.reduce((n, g) => n + g.operations, 0);

  const groups =
    summary.groups.length === 0
      ? html`<p>This deployment lists no operations in its OpenAPI document.</p>`
      : html`<table class="groups">
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
</table>`;

  const main = html`<h1>${summary.title}</h1>
<p class="lead">openrail is an open-source, multi-tenant credential trust service. Organisations issue
selectively disclosable credentials (SD-JWT VC over OpenID4VCI) to their holders' wallets, and anyone
can verify them (OpenID4VP, <code>did:web</code> issuers, token status lists) without an account.</p>
<ul class="actions">
${served.has('/verify') ? html`<li><a class="button primary" href="/verify">Verify a credential</a></li>` : null}
<li><a class="button" href="/docs">API reference</a></li>
</ul>

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

  return renderPage(
    { title: 'Home', current: '/', main, ...(data.siteName ? { siteName: data.siteName } : {}) },
    ...(assets ? [assets] : []),
  );
}
