// The /verify page: a relying party with no account picks a type and claims, shows the QR code to
// a holder (or, where the browser has the Digital Credentials API, asks a wallet on this device
// through dc-api.js), and sees the outcome. It calls only the public hosted-verification API; the
// result token stays in script memory, never in the document. Every value from the network is
// inserted as text. Inlined by the page after dc-api.js; its hash is in script-src.
(() => {
  const $ = (id) => document.getElementById(id);
  const el = (tag, text) => {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = String(text);
    return e;
  };
  let types = [];
  let polling;
  let opened; // the transaction on screen: an older one's answer is ignored

  const nonce = () => {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    return btoa(String.fromCharCode(...bytes))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
  };

  const selected = () => types.find((t) => t.vct === $('type').value);
  const labelOf = (type, claim) => type?.claimLabels?.[claim] ?? claim;
  const FORMAT_NAMES = { 'dc+sd-jwt': 'SD-JWT VC', mso_mdoc: 'ISO mdoc' };

  /** A type issued as ISO mdoc too lists its formats (docs/mdoc.md): the relying party picks the one to ask for. */
  function showFormats(type) {
    const formats = type?.formats ?? [];
    const select = $('format');
    select.replaceChildren();
    for (const format of formats) {
      const option = el(
        'option',
        format === 'mso_mdoc' ? `${FORMAT_NAMES[format]} (${type.doctype})` : (FORMAT_NAMES[format] ?? format),
      );
      option.value = format;
      select.append(option);
    }
    $('format-choice').hidden = formats.length < 2;
  }

  function showClaims() {
    const type = selected();
    showFormats(type);
    const box = $('claims');
    box.replaceChildren();
    for (const claim of type ? type.claims : []) {
      const label = el('label');
      const input = el('input');
      input.type = 'checkbox';
      input.name = 'claim';
      input.value = claim;
      input.checked = true;
      label.append(input, ' ', labelOf(type, claim));
      box.append(label);
    }
  }

  async function load() {
    const response = await fetch('/verify/catalog');
    types = (await response.json()).types;
    const select = $('type');
    select.replaceChildren();
    for (const t of types) {
      const option = el('option', `${t.name} (${t.tenantName})`);
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
    let body;
    try {
      // With the Digital Credentials API, the request also names this page's origin (dc-api.js).
      const format = $('format-choice').hidden ? {} : { format: $('format').value };
      body = await openrailDcApi.open({ vct: $('type').value, claims, nonce: nonce(), aud: location.origin, ...format });
    } catch (error) {
      $('status').textContent = `Refused: ${error.message}`;
      return;
    }
    opened = body;
    $('qr').src = `/api/qr?data=${encodeURIComponent(body.requestUri)}`;
    $('qr').hidden = false;
    $('wallet-link').href = body.requestUri;
    $('wallet-link').hidden = false;
    $('device-wallet').hidden = !body.dcApi;
    $('status').textContent = 'Waiting for the wallet…';
    poll(body.transactionId, body.resultToken, Date.parse(body.expiresAt));
  }

  /** A wallet on this device, through the browser; the QR code stays for a wallet elsewhere. */
  async function askDevice() {
    const asked = opened;
    if (!asked) return;
    $('status').textContent = 'Waiting for the wallet on this device…';
    try {
      const outcome = await openrailDcApi.ask(asked);
      if (asked === opened) {
        clearTimeout(polling);
        show(outcome);
      }
    } catch (error) {
      if (asked === opened)
        $('status').textContent = `No answer from a wallet on this device (${error.message}); scan the QR code instead.`;
    }
  }

  // Why the service shows no outcome (docs/verification.md, "GET /verify/result"): only
  // "pending" is worth polling again; every other reason ends this request.
  const withheld = {
    unknown_transaction: 'The service no longer knows this request: it expired (after 10 minutes) or was cleared away.',
    result_token_required: 'The result could not be asked for: this page sent no result token.',
    wrong_result_token: 'The service did not accept this page’s result token for this request.',
    response_code_required: 'A wallet on the same device answered, and its outcome goes only to the page it returned to.',
    wrong_response_code: 'A wallet on the same device answered, and its outcome goes only to the page it returned to.',
  };

  async function poll(id, token, expiresAt) {
    let response;
    try {
      response = await fetch(`/verify/result/${encodeURIComponent(id)}`, { headers: { authorization: `Bearer ${token}` } });
    } catch {
      response = undefined; // the network, for a moment: ask again
    }
    if (id !== opened?.transactionId) return;
    if (response && !response.ok) {
      $('status').textContent = `The result cannot be read (the service answered ${response.status}); create a new request.`;
      return;
    }
    const answer = response ? await response.json() : undefined;
    if (answer?.outcome) return show(answer.outcome);
    const reason = answer?.reason;
    if (reason && reason !== 'pending') {
      const why = withheld[reason] ?? 'The service shows no outcome for this request.';
      $('status').textContent = `${why} Create a new request. (reason: ${reason})`;
      return;
    }
    if (Date.now() > expiresAt) {
      $('status').textContent = 'The request expired: no wallet answered within 10 minutes. Create a new one.';
      return;
    }
    polling = setTimeout(() => poll(id, token, expiresAt), 1000);
  }

  function show(outcome) {
    $('qr').hidden = true;
    $('wallet-link').hidden = true;
    $('device-wallet').hidden = true;
    const box = $('outcome');
    box.dataset.ok = String(outcome.ok);
    if (!outcome.ok) {
      $('status').textContent = 'Not verified';
      box.replaceChildren(el('p', `${outcome.error} (${outcome.link}): ${outcome.detail}`));
      return;
    }
    $('status').textContent = 'Verified';
    const type = types.find((t) => t.vct === outcome.presentation.vct);
    const table = el('table');
    for (const [name, value] of Object.entries(outcome.presentation.claims)) {
      const row = el('tr');
      const header = el('th', labelOf(type, name));
      header.scope = 'row';
      row.append(header, el('td', typeof value === 'string' ? value : JSON.stringify(value)));
      table.append(row);
    }
    const issuer = type ? `${type.tenantName} (${outcome.presentation.issuer})` : outcome.presentation.issuer;
    const mdoc = outcome.presentation.format === 'mso_mdoc' ? `, presented as an ISO mdoc (${outcome.presentation.doctype})` : '';
    box.replaceChildren(table, el('p', `Issued by ${issuer}${mdoc}`));
  }

  $('type').addEventListener('change', showClaims);
  $('form').addEventListener('submit', create);
  $('device-wallet').addEventListener('click', askDevice);
  load();
})();
