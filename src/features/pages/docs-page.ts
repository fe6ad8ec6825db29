/**
 * GET /docs: the interactive API reference over the deployment's OpenAPI document, drawn by
 * Swagger UI from the swagger-ui-dist package, whose two files are served from node_modules at
 * /docs/assets/ (assets.ts, VENDOR_FILES). No CDN, no web fonts, no workers.
 *
 * Swagger UI runs under the site's ordinary policy: script-src 'self' (its bundle, with an SRI
 * integrity attribute) and the hash of docs.js (the init script); style-src 'self' with no
 * 'unsafe-inline' (it sets its few dynamic styles through the CSSOM, which CSP does not restrict,
 * and its markdown sanitiser drops style attributes); no 'unsafe-eval'. Its stylesheet draws
 * icons from data: URLs, hence img-src data: on this page only.
 */
import type { WebAssets } from '../../web/assets.ts';
import { html } from '../../web/html.ts';
import { type RenderedPage, renderPage } from '../../web/layout.ts';

export interface DocsPageData {
  /** Where the OpenAPI document is. Default: /openapi.json. */
  specUrl?: string;
  siteName?: string;
}

export function renderDocsPage(data: DocsPageData = {}, assets?: WebAssets): RenderedPage {
  const specUrl = data.specUrl ?? '/openapi.json';
  const main = html`<h1>API reference</h1>
<p class="lead">Every operation this deployment serves, drawn from its OpenAPI document
<a href="${specUrl}"><code>${specUrl}</code></a>. Open an operation to see its parameters, request body
and responses, or to try it.</p>
<noscript><p>The interactive reference needs JavaScript. The document itself is at
<a href="${specUrl}">${specUrl}</a>.</p></noscript>
<div id="api-reference" class="api-reference" data-spec-url="${specUrl}"></div>`;

  return renderPage(
    {
      title: 'API reference',
      current: '/developers',
      main,
      mainClass: 'docs',
      stylesheets: ['/docs/assets/swagger-ui.css'],
      scriptFiles: ['/docs/assets/swagger-ui-bundle.js'],
      scripts: ['docs.js'],
      imgSrc: ['data:'],
      ...(data.siteName ? { siteName: data.siteName } : {}),
    },
    ...(assets ? [assets] : []),
  );
}
