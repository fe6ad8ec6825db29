import { createHash } from 'node:crypto';
import { defineRoute, type RouteGroup } from '../../http/route.ts';

/**
 * GET /verify: a relying party with no account picks a type and claims, shows the QR code to a
 * holder, and sees the outcome. The page only calls the public hosted-verification API; the
 * result token stays in the page's memory. Every value from the network is inserted as text.
 */
const SCRIPT = `
const $ = (id) => document.getElementById(id);
const el = (tag, text) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = String(text); return e; };
let types = [];
let polling;

function nonce() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes)).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
}

function showClaims() {
  const type = types.find((t) => t.vct === $('type').value);
  const box = $('claims');
  box.replaceChildren();
  for (const claim of type ? type.claims : []) {
    const label = el('label');
    const input = el('input');
    input.type = 'checkbox';
    input.name = 'claim';
    input.value = claim;
    input.checked = true;
    label.append(input, ' ', claim);
    box.append(label);
  }
}

async function load() {
  const response = await fetch('/verify/catalog');
  types = (await response.json()).types;
  const select = $('type');
  select.replaceChildren();
  for (const t of types) {
    const option = el('option', t.name + ' (' + t.tenant + ')');
    option.value = t.vct;
    select.append(option);
  }
  $('create').disabled = types.length === 0;
  $('status').textContent = types.length === 0 ? 'No credential types are registered yet.' : '';
  showClaims();
}

async function create(event) {
  event.preventDefault();
  clearTimeout(polling);
  $('outcome').replaceChildren();
  const claims = [...document.querySelectorAll('input[name=claim]:checked')].map((i) => i.value);
  const response = await fetch('/verify/request', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ vct: $('type').value, claims, nonce: nonce(), aud: location.origin }),
  });
  const body = await response.json();
  if (!response.ok) { $('status').textContent = 'Refused: ' + body.error + ': ' + body.message; return; }
  $('qr').src = '/api/qr?data=' + encodeURIComponent(body.requestUri);
  $('qr').hidden = false;
  $('wallet-link').href = body.requestUri;
  $('wallet-link').hidden = false;
  $('status').textContent = 'Waiting for the wallet…';
  poll(body.transactionId, body.resultToken, Date.parse(body.expiresAt));
}

async function poll(id, token, expiresAt) {
  const response = await fetch('/verify/result/' + encodeURIComponent(id), { headers: { authorization: 'Bearer ' + token } });
  const { outcome } = await response.json();
  if (outcome) return show(outcome);
  if (Date.now() > expiresAt) { $('status').textContent = 'The request expired; create a new one.'; return; }
  polling = setTimeout(() => poll(id, token, expiresAt), 1000);
}

function show(outcome) {
  $('qr').hidden = true;
  $('wallet-link').hidden = true;
  const box = $('outcome');
  box.dataset.ok = String(outcome.ok);
  if (!outcome.ok) {
    $('status').textContent = 'Not verified';
    box.replaceChildren(el('p', outcome.error + ' (' + outcome.link + '): ' + outcome.detail));
    return;
  }
  $('status').textContent = 'Verified';
  const table = el('table');
  for (const [name, value] of Object.entries(outcome.presentation.claims)) {
    const row = el('tr');
    row.append(el('th', name), el('td', typeof value === 'string' ? value : JSON.stringify(value)));
    table.append(row);
  }
  box.replaceChildren(table, el('p', 'Issued by ' + outcome.presentation.issuer));
}

$('type').addEventListener('change', showClaims);
$('form').addEventListener('submit', create);
load();
`;

const SCRIPT_HASH = `sha256-${createHash('sha256').update(SCRIPT, 'utf8').digest('base64')}`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Verify a credential · openrail</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; color: #1a1a1a; }
label { display: block; margin: 0.25rem 0; }
#qr { width: 16rem; height: 16rem; display: block; margin: 1rem 0; }
#qr[hidden], #wallet-link[hidden] { display: none; }
table { border-collapse: collapse; } th, td { text-align: left; padding: 0.25rem 0.75rem 0.25rem 0; }
</style>
</head>
<body>
<h1>Verify a credential</h1>
<p>Ask a holder to present a credential from their wallet. No account is needed.</p>
<form id="form">
<label>Credential type <select id="type" name="type"></select></label>
<fieldset><legend>Claims to ask for</legend><div id="claims"></div></fieldset>
<p><button id="create" type="submit" disabled>Create request</button></p>
</form>
<p id="status" role="status" aria-live="polite"></p>
<img id="qr" alt="QR code of the presentation request: scan it with your wallet" hidden>
<p><a id="wallet-link" hidden>Open in a wallet on this device</a></p>
<div id="outcome"></div>
<script>${SCRIPT}</script>
</body>
</html>
`;

export function verifyPageRoutes(): RouteGroup {
  return {
    name: 'pages',
    routes: [
      defineRoute({
        method: 'GET',
        path: '/verify',
        auth: 'public',
        stability: 'unpromised',
        summary: 'The hosted verification page for relying parties.',
        responses: { 200: { description: 'HTML page.', contentType: 'text/html' } },
        handler: async (_request, reply) =>
          reply
            .type('text/html; charset=utf-8')
            .header(
              'content-security-policy',
              `default-src 'none'; script-src '${SCRIPT_HASH}'; style-src 'unsafe-inline'; img-src 'self'; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'`,
            )
            .send(PAGE),
      }),
    ],
  };
}
