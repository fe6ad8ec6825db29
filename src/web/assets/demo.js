// The /demo page: a live issue, present and revoke on the demonstration tenant, with the page's
// own wallet (demo-wallet.js), a wallet app, the command-line wallet or, where the browser has the
// Digital Credentials API, a wallet of this device (dc-api.js). It calls POST /demo/offer,
// /demo/progress and /demo/revoke and the public hosted-verification API, and shows under each
// step what went over the wire (demo-wire.js, which shortens every secret). The demo token and
// the result token stay in this script's memory, never in full in the document, a URL or a QR
// code. Every value from the network is inserted as text. Inlined by the page after dc-api.js,
// demo-wire.js and demo-wallet.js; its hash is in script-src.
(() => {
  const $ = (id) => document.getElementById(id);
  const el = (tag, text) => {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = String(text);
    return e;
  };
  const POLL_MS = 1500;
  const wallet = window.openrailDemoWallet;
  const walletReady = wallet?.supported() ?? false;
  let demo; // { offerId, offerUri, demoToken, vct, askClaims, expiresAt, collected?, trace }
  let progressTimer;
  let resultTimer;
  let asking; // the presentation request being watched: an older one's answer is ignored
  let presentations = 0;

  const nonce = () => {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    return btoa(String.fromCharCode(...bytes))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
  };

  /** A new list of exchanges under a step (every earlier list folds away, a click opens it again): answers where to report them. */
  function wireGroup(step, title) {
    const box = $(`wire-${step}`);
    for (const earlier of document.querySelectorAll('.wire > details')) earlier.open = false;
    const group = el('details');
    group.open = true;
    const list = el('ol');
    group.append(el('summary', title), list);
    box.append(group);
    return (exchange) => openrailWire.add(list, exchange);
  }

  /** A call's answer, or a status 0 answer when the network failed: never an exception. Reported to `trace`. */
  async function post(path, body, trace, what) {
    const report = { what, method: 'POST', url: new URL(path, location.href).href, sent: body };
    let response;
    try {
      response = await fetch(path, {
        method: 'POST',
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
    } catch {
      trace({ ...report, status: 0 });
      return { ok: false, status: 0, body: { error: 'unreachable', message: 'The service could not be reached.' } };
    }
    let answer = {};
    try {
      answer = await response.json();
    } catch {
      answer = { error: 'unreadable_answer', message: `The service answered ${response.status}.` };
    }
    trace({ ...report, status: response.status, answer });
    return { ok: response.ok, status: response.status, body: answer };
  }

  const refused = (answer) =>
    answer.status === 429
      ? 'Too many tries from here: wait a few minutes and try again.'
      : `Refused: ${answer.body.error}: ${answer.body.message}`;

  /**
   * The reference wallet's command for `uri`, to run as printed in a clone of the repository: a
   * service at a plain http address (`target`, the address the wallet connects to) needs --allow-http.
   */
  function command(verb, uri, target, extra = '') {
    let http = false;
    try {
      http = new URL(target).protocol === 'http:';
    } catch {
      http = false;
    }
    return `npx openrail wallet ${verb} '${uri.replace(/'/g, "'\\''")}'${extra}${http ? ' --allow-http' : ''}`;
  }
  const param = (uri, name) => new URL(uri).searchParams.get(name) ?? '';

  function showLink(prefix, uri) {
    $(`${prefix}-qr`).src = `/api/qr?data=${encodeURIComponent(uri)}`;
    $(`${prefix}-link`).href = uri;
    $(prefix === 'offer' ? 'offer' : 'request').hidden = false;
  }

  /** What this page's wallet holds, claim by claim. */
  function showHeld() {
    const pass = walletReady ? wallet.holds() : undefined;
    if (!walletReady) {
      $('wallet-status').textContent =
        'This browser gives this page no WebCrypto (it needs https), so the page has no wallet here: use a wallet app or the command-line wallet.';
    } else {
      $('wallet-status').textContent = pass ? `It holds a pass issued by ${pass.issuer}.` : 'It holds nothing yet.';
    }
    if (!pass) {
      $('wallet-held').replaceChildren();
      return;
    }
    const table = el('table');
    table.append(el('caption', 'What this page’s wallet holds'));
    for (const [name, value] of Object.entries(pass.claims)) {
      const row = el('tr');
      const header = el('th', name);
      header.scope = 'row';
      row.append(header, el('td', typeof value === 'string' ? value : JSON.stringify(value)));
      table.append(row);
    }
    $('wallet-held').replaceChildren(table);
  }

  async function issue() {
    clearTimeout(progressTimer);
    clearTimeout(resultTimer);
    asking = undefined;
    for (const step of ['collect', 'present', 'revoke']) $(`wire-${step}`).replaceChildren();
    $('issue').disabled = true;
    const trace = wireGroup('collect', 'What went over the wire');
    const answer = await post('/demo/offer', undefined, trace, 'The page asks the issuer for a demonstration offer.');
    $('issue').disabled = false;
    if (!answer.ok) {
      $('issue-status').textContent = refused(answer);
      return;
    }
    demo = { ...answer.body, trace };
    if (walletReady) wallet.forget();
    showHeld();
    for (const id of ['present', 'present-here', 'revoke']) $(id).disabled = true;
    $('request').hidden = true;
    $('outcome').replaceChildren();
    $('present-status').textContent = '';
    $('revoke-status').textContent = '';
    $('issue').textContent = 'Get another demo pass';
    showLink('offer', demo.offerUri);
    $('offer-command').textContent = command('collect', demo.offerUri, param(demo.offerUri, 'credential_offer_uri'));
    $('collect-here').disabled = !walletReady;
    $('issue-status').textContent = 'Waiting for a wallet to collect the pass…';
    watchProgress(demo);
  }

  function markCollected(current, message) {
    if (current !== demo) return;
    current.collected = true;
    clearTimeout(progressTimer);
    $('offer').hidden = true;
    $('issue-status').textContent = message;
    $('present').disabled = false;
    $('present-here').disabled = !(walletReady && wallet.holds());
    $('revoke').disabled = false;
  }

  async function watchProgress(current) {
    if (current !== demo || current.collected) return;
    const answer = await post('/demo/progress', { offerId: current.offerId, demoToken: current.demoToken }, () => {});
    if (current !== demo || current.collected) return;
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
      // While this page's wallet is collecting, it is the one to say so, once it has checked the pass.
      if (!current.collecting) markCollected(current, 'Collected: the pass is in your wallet. Now present it.');
      return;
    }
    if (answer.body.expired) {
      $('issue-status').textContent = 'The offer expired before a wallet collected it: get a new pass.';
      return;
    }
    progressTimer = setTimeout(() => watchProgress(current), POLL_MS);
  }

  async function collectHere() {
    const current = demo;
    if (!current || !walletReady) return;
    $('collect-here').disabled = true;
    $('issue-status').textContent = 'This page’s wallet is collecting the pass…';
    current.collecting = true;
    try {
      await wallet.collect(current.offerUri, current.trace);
    } catch (error) {
      current.collecting = false;
      if (current !== demo) return;
      $('collect-here').disabled = false;
      $('issue-status').textContent = `This page’s wallet stopped: ${error.message}`;
      // Another wallet may still collect the offer: watch for it again.
      clearTimeout(progressTimer);
      watchProgress(current);
      return;
    }
    current.collecting = false;
    if (current !== demo) {
      wallet.forget(); // another pass was asked for meanwhile
      return;
    }
    showHeld();
    markCollected(current, 'Collected: this page’s wallet holds the pass. Now present it.');
  }

  /** The relying party's request (POST /verify/request), naming this page's origin when the browser has the Digital Credentials API. */
  async function ask(forOthers) {
    clearTimeout(resultTimer);
    asking = undefined;
    $('outcome').replaceChildren();
    $('request').hidden = true;
    presentations += 1;
    const trace = wireGroup('present', `What went over the wire: presentation ${presentations}`);
    const origin = window.openrailDcApi?.available() ? { origin: location.origin } : {};
    const body = { vct: demo.vct, claims: demo.askClaims, nonce: nonce(), aud: location.origin, ...origin };
    const answer = await post('/verify/request', body, trace, 'The relying party asks openrail to verify a Transit Pass.');
    if (!answer.ok) {
      $('present-status').textContent = refused(answer);
      return undefined;
    }
    const current = { ...answer.body, trace };
    asking = current;
    if (forOthers) {
      showLink('request', current.requestUri);
      $('request-command').textContent = command(
        'present',
        current.requestUri,
        param(current.requestUri, 'request_uri'),
        ' --all',
      );
      $('device-wallet').hidden = !current.dcApi;
      $('present-status').textContent = 'Waiting for the wallet to answer…';
    }
    pollResult(current);
    return current;
  }

  async function present() {
    $('present').disabled = true;
    await ask(true);
    $('present').disabled = false;
  }

  async function presentHere() {
    if (!walletReady || !wallet.holds()) return;
    $('present-here').disabled = true;
    $('present').disabled = true;
    const current = await ask(false);
    $('present').disabled = false;
    if (!current) {
      $('present-here').disabled = false;
      return;
    }
    $('present-status').textContent = 'This page’s wallet is answering the request…';
    let answer;
    try {
      answer = await wallet.present(current.requestUri, current.trace);
    } catch (error) {
      if (current === asking) $('present-status').textContent = `This page’s wallet stopped: ${error.message}`;
      return;
    } finally {
      $('present-here').disabled = !wallet.holds();
    }
    if (current !== asking || current.done) return;
    $('present-status').textContent =
      answer.status === 200
        ? 'The verifier accepted the presentation; reading the outcome…'
        : `The verifier refused the presentation (${answer.body?.error ?? answer.status}); reading the outcome…`;
  }

  /** A wallet on this device, through the browser's Digital Credentials API; the QR code stays for a wallet elsewhere. */
  async function askDevice() {
    const current = asking;
    if (!current?.dcApi) return;
    $('present-status').textContent = 'Waiting for a wallet on this device…';
    try {
      const outcome = await openrailDcApi.ask(current);
      if (current !== asking) return;
      clearTimeout(resultTimer);
      current.done = true;
      show(outcome);
    } catch (error) {
      if (current === asking)
        $('present-status').textContent = `No answer from a wallet on this device (${error.message}); scan the QR code instead.`;
    }
  }

  async function pollResult(current) {
    const url = `/verify/result/${encodeURIComponent(current.transactionId)}`;
    const headers = { authorization: `Bearer ${current.resultToken}` };
    let response;
    try {
      response = await fetch(url, { headers });
    } catch {
      response = undefined;
    }
    if (current !== asking) return;
    if (!response) {
      resultTimer = setTimeout(() => pollResult(current), POLL_MS);
      return;
    }
    const answer = response.ok ? await response.json().catch(() => undefined) : undefined;
    if (current !== asking || current.done) return;
    const { outcome, reason } = answer ?? {};
    if (response.ok && !outcome && reason === 'pending') {
      resultTimer = setTimeout(() => pollResult(current), POLL_MS);
      return;
    }
    current.done = true;
    current.trace({
      what: 'The relying party reads the outcome, with its result token.',
      method: 'GET',
      url: new URL(url, location.href).href,
      headers,
      status: response.status,
      answer,
    });
    if (!outcome) {
      // outcome null says why beside it (docs/verification.md): only "pending" is worth asking again.
      $('present-status').textContent =
        reason === 'unknown_transaction'
          ? 'The request expired: ask again.'
          : `The result cannot be read (${reason ?? response.status}): ask again.`;
      return;
    }
    show(outcome);
  }

  function show(outcome) {
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
    table.append(el('caption', 'What the wallet disclosed'));
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
    const trace = wireGroup('revoke', 'What went over the wire');
    const answer = await post(
      '/demo/revoke',
      { offerId: demo.offerId, demoToken: demo.demoToken },
      trace,
      'The page asks the issuer to revoke the pass, proving with its demo token that it got the offer.',
    );
    if (!answer.ok) {
      $('revoke').disabled = false;
      $('revoke-status').textContent = refused(answer);
      return;
    }
    $('revoke-status').textContent = 'Revoked. Ask for the pass again and present it: the check now fails.';
  }

  showHeld();
  $('dc-note').hidden = !window.openrailDcApi?.available();
  $('issue').addEventListener('click', issue);
  $('collect-here').addEventListener('click', collectHere);
  $('present').addEventListener('click', present);
  $('present-here').addEventListener('click', presentHere);
  $('device-wallet').addEventListener('click', askDevice);
  $('revoke').addEventListener('click', revoke);
})();
