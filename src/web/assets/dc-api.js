// openrail and the browser's Digital Credentials API (docs/dc-api.md). Inlined by the /verify
// page, and served at /assets/dc-api.js for relying parties to embed on their own pages. It
// defines window.openrailDcApi:
//   available()            whether this browser offers navigator.credentials.get with digital credentials;
//   open(body, service)    POST <service>/verify/request with this page's origin; answers the transaction;
//   ask(opened, service)   asks a wallet on this device, relays its answer, and answers the outcome.
// `service` is the openrail deployment's origin ('' on its own pages). The result token stays in
// the caller's memory: it is sent only to the service, as a bearer. Nothing is written to the page.
(() => {
  const available = () => typeof window.DigitalCredential === 'function' && typeof navigator.credentials?.get === 'function';

  async function call(url, init) {
    const response = await fetch(url, init);
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      const error = new Error(`${body.error ?? response.status}: ${body.message ?? response.statusText}`);
      error.code = body.error;
      throw error;
    }
    return body;
  }

  /** Opens a transaction for `body` ({vct, claims, nonce, aud, format?, profile?, issuer?}), asking for the DC API when the browser has it. */
  function open(body, service = '') {
    const withOrigin = available() ? { ...body, origin: location.origin } : body;
    return call(`${service}/verify/request`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(withOrigin),
    });
  }

  /** The wallet's answer through the browser, relayed to the service: the transaction's outcome. */
  async function ask(opened, service = '') {
    if (!opened.dcApi) throw new Error('this transaction was opened without the Digital Credentials API');
    const credential = await navigator.credentials.get({ mediation: 'required', digital: { requests: opened.dcApi.requests } });
    if (!credential) throw new Error('no wallet answered');
    // Some browsers hand the data over as JSON text.
    const data = typeof credential.data === 'string' ? JSON.parse(credential.data) : credential.data;
    const answer = await call(`${service}/verify/response/${encodeURIComponent(opened.transactionId)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${opened.resultToken}` },
      body: JSON.stringify({ protocol: credential.protocol, data }),
    });
    return answer.outcome;
  }

  window.openrailDcApi = { available, open, ask };
})();
