import { html } from '../../web/html.ts';
import { type RenderedPage, renderPage } from '../../web/layout.ts';

/**
 * GET /verify: a relying party with no account asks a holder to present a credential. The form
 * is driven by verify.js (a page script of the web kit, allowed by its hash), which fills the
 * types from /verify/catalog with their display names and claim labels, and offers the formats of a
 * type issued as ISO mdoc too (docs/mdoc.md); dc-api.js before it lets
 * a browser with the Digital Credentials API ask a wallet on the same device (docs/dc-api.md).
 */
export function renderVerifyPage(siteName: string, wallets: { name: string; homepage: string }[] = []): RenderedPage {
  const walletList =
    wallets.length === 0
      ? html``
      : html`<section aria-labelledby="wallets"><h2 id="wallets">Wallets admitted by this service</h2>
<ul class="wallets">${wallets.map((w) => html`<li><a href="${w.homepage}" rel="noopener">${w.name}</a></li>`)}</ul></section>`;
  const main = html`<h1>Verify a credential</h1>
<p class="lead">Ask a holder to present a credential from their wallet. No account is needed.</p>
<form id="form" class="verify-form">
<p><label for="type">Credential type</label>
<select id="type" name="type"></select></p>
<p id="format-choice" hidden><label for="format">Format</label>
<select id="format" name="format"></select></p>
<fieldset><legend>Claims to ask for</legend><div id="claims" class="claims"></div></fieldset>
<p><button id="create" class="button primary" type="submit" disabled>Create request</button></p>
</form>
<p id="status" role="status" aria-live="polite"></p>
<img id="qr" class="qr" alt="QR code of the presentation request: scan it with your wallet" width="256" height="256" hidden>
<p><a id="wallet-link" hidden>Open in a wallet on this device</a></p>
<p><button id="device-wallet" class="button" type="button" hidden>Use a wallet on this device</button></p>
<div id="outcome" class="outcome"></div>
${walletList}`;
  return renderPage({ title: 'Verify a credential', current: '/verify', main, scripts: ['dc-api.js', 'verify.js'], siteName });
}
