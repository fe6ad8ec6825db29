// The /demo page: a live issue, present and revoke on the demonstration tenant. It calls
// POST /demo/offer, /demo/progress and /demo/revoke and the public hosted-verification API. The
// demo token and the result token stay in this script's memory, never in the document, a URL or a
// QR code. Every value from the network is inserted as text. Inlined by the page; its hash is in
// script-src.
(() => {
  const $ = (id) => document.getElementById(id);
  const el = (tag, text) => {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = String(text);
    return e;
  };
  const POLL_MS = 1500;
  let demo; // { offerId, demoToken, vct, askClaims, expiresAt }
  let progressTimer;
  let resultTimer;
  let asking; // the presentation request being watched: an older one's answer is ignored

  const nonce = () => {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    return btoa(String.fromCharCode(...bytes))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
  };

  /** A call's answer, or a status 0 answer when the network failed: never an exception. */
  async function post(path, body) {
    let response;
    try {
      response = await fetch(path, {
        method: 'POST',
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
    } catch {
      return { ok: false, status: 0, body: { error: 'unreachable', message: 'The service could not be reached.' } };
    }
    let answer = {};
    try {
      answer = await response.json();
    } catch {
      answer = { error: 'unreadable_answer', message: `The service answered ${response.status}.` };
    }
    return { ok: response.ok, status: response.status, body: answer };
  }

  const refused = (answer) =>
    answer.status === 429
      ? 'Too many tries from here: wait a few minutes and try again.'
      : `Refused: ${answer.body.error}: ${answer.body.message}`;

  function showLink(prefix, uri) {
    $(`${prefix}-qr`).src = `/api/qr?data=${encodeURIComponent(uri)}`;
    $(`${prefix}-link`).href = uri;
    $(`${prefix}-uri`).textContent = uri;
    $(prefix === 'offer' ? 'offer' : 'request').hidden = false;
  }

  async function issue() {
    clearTimeout(progressTimer);
    clearTimeout(resultTimer);
    asking = undefined;
    $('issue').disabled = true;
    const answer = await post('/demo/offer');
    $('issue').disabled = false;
    if (!answer.ok) {
      $('issue-status').textContent = refused(answer);
      return;
    }
    demo = answer.body;
    $('present').disabled = true;
    $('revoke').disabled = true;
    $('request').hidden = true;
    $('outcome').replaceChildren();
    $('present-status').textContent = '';
    $('revoke-status').textContent = '';
    $('issue').textContent = 'Get another demo pass';
    showLink('offer', demo.offerUri);
    $('issue-status').textContent = 'Waiting for a wallet to collect the pass…';
    watchProgress(demo);
  }

  async function watchProgress(current) {
    if (current !== demo) return;
    const answer = await post('/demo/progress', { offerId: current.offerId, demoToken: current.demoToken });
    if (current !== demo) return;
    if (!answer.ok && answer.status !== 0) {
      $('issue-status').textContent = refused(answer);
      return;
    }
    if (!answer.ok) {
      // The network failed: try again at the next beat rather than stop watching.
      progressTimer = setTimeout(() => watchProgress(current), POLL_MS);
      return;
    }
    if (answer.body.collected) {
      $('offer').hidden = true;
      $('issue-status').textContent = 'Collected: the pass is in your wallet. Now present it.';
      $('present').disabled = false;
      $('revoke').disabled = false;
      return;
    }
    if (answer.body.expired) {
      $('issue-status').textContent = 'The offer expired before a wallet collected it: get a new pass.';
      return;
    }
    progressTimer = setTimeout(() => watchProgress(current), POLL_MS);
  }

  async function present() {
    clearTimeout(resultTimer);
    asking = undefined;
    $('present').disabled = true;
    $('outcome').replaceChildren();
    const answer = await post('/verify/request', {
      vct: demo.vct,
      claims: demo.askClaims,
      nonce: nonce(),
      aud: location.origin,
    });
    $('present').disabled = false;
    if (!answer.ok) {
      $('present-status').textContent = refused(answer);
      return;
    }
    const current = answer.body;
    asking = current;
    showLink('request', current.requestUri);
    $('present-status').textContent = 'Waiting for the wallet to answer…';
    pollResult(current);
  }

  async function pollResult(current) {
    let response;
    try {
      response = await fetch(`/verify/result/${encodeURIComponent(current.transactionId)}`, {
        headers: { authorization: `Bearer ${current.resultToken}` },
      });
    } catch {
      response = undefined;
    }
    if (current !== asking) return;
    if (!response) {
      resultTimer = setTimeout(() => pollResult(current), POLL_MS);
      return;
    }
    if (!response.ok) {
      $('present-status').textContent = 'The result cannot be read: ask again.';
      return;
    }
    const { outcome, reason } = await response.json();
    if (current !== asking) return;
    // outcome null says why beside it (docs/verification.md): only "pending" is worth asking again.
    if (!outcome && reason && reason !== 'pending') {
      $('present-status').textContent =
        reason === 'unknown_transaction'
          ? 'The request expired: ask again.'
          : `The result cannot be read (${reason}): ask again.`;
      return;
    }
    if (!outcome) {
      resultTimer = setTimeout(() => pollResult(current), POLL_MS);
      return;
    }
    $('request').hidden = true;
    const box = $('outcome');
    box.dataset.ok = String(outcome.ok);
    if (!outcome.ok) {
      $('present-status').textContent = 'Not verified';
      box.replaceChildren(el('p', `${outcome.error} (${outcome.link}): ${outcome.detail}`));
      return;
    }
    $('present-status').textContent = 'Verified';
    const table = el('table');
    const caption = el('caption', 'What the wallet disclosed');
    table.append(caption);
    for (const [name, value] of Object.entries(outcome.presentation.claims)) {
      const row = el('tr');
      const header = el('th', name);
      header.scope = 'row';
      row.append(header, el('td', typeof value === 'string' ? value : JSON.stringify(value)));
      table.append(row);
    }
    box.replaceChildren(table, el('p', `Issued by ${outcome.presentation.issuer}`));
  }

  async function revoke() {
    $('revoke').disabled = true;
    const answer = await post('/demo/revoke', { offerId: demo.offerId, demoToken: demo.demoToken });
    if (!answer.ok) {
      $('revoke').disabled = false;
      $('revoke-status').textContent = refused(answer);
      return;
    }
    $('revoke').disabled = true;
    $('revoke-status').textContent = 'Revoked. Ask for the pass again and present it: the check now fails.';
  }

  $('issue').addEventListener('click', issue);
  $('present').addEventListener('click', present);
  $('revoke').addEventListener('click', revoke);
})();
