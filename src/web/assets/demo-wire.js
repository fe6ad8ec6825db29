// What went over the wire, for the /demo page (docs/public-pages.md, "The demo"): each exchange of
// the page and of its wallet (demo-wallet.js) as a list item saying who did what, the method and
// address, the status, and what was sent and answered. Every secret is shortened to its first
// characters and "…" before it reaches the document: the demo token, the pre-authorized code, the
// access token, the result token, nonces, state, salts, and any JWT or SD-JWT (a proof, a
// credential, a request object, a presentation), wherever it sits. A full one is never written.
// Values are inserted as text. Inlined by the page; its hash is in script-src. It defines
// window.openrailWire:
//   shorten(text)         the first characters of a secret and "…";
//   add(list, exchange)   appends the exchange (demo-wallet.js's trace shape) to the <ol> `list`.
(() => {
  /** Members whose values are secrets, or stand for one, wherever they appear. */
  const SECRET = new Set([
    'demoToken',
    'resultToken',
    'pre-authorized_code',
    'access_token',
    'refresh_token',
    'c_nonce',
    'nonce',
    'state',
    'salt',
    'tx_code',
    'credential',
    'vp_token',
    'jwt',
    'request',
    'response_code',
    'presentedNonce',
  ]);
  /** A compact JWS, or an SD-JWT that starts with one. */
  const JWT = /^eyJ[\w-]*\.[\w-]*\./;

  const shorten = (text) => `${text.slice(0, Math.min(8, Math.floor(text.length / 2)))}…`;

  /** `value` with every secret in it shortened: by the member it sits under, or by its look. */
  function hide(value, member) {
    if (typeof value === 'string') return SECRET.has(member) || JWT.test(value) ? shorten(value) : value;
    if (Array.isArray(value)) return value.map((v) => hide(v, member));
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, hide(v, k)]));
    }
    return value;
  }

  /** An Authorization header keeps its scheme; its credential is shortened. */
  const hideHeader = (name, value) =>
    name.toLowerCase() === 'authorization'
      ? value.replace(/^(\S+ )(.+)$/, (_, scheme, token) => `${scheme}${shorten(token)}`)
      : value;

  const el = (tag, text, className) => {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = String(text);
    if (className) e.className = className;
    return e;
  };

  /** A form body one `name=value` a line, a JSON body indented, a text body as it is: secrets shortened. */
  function bodyText(body, form) {
    const shown = hide(body, '');
    if (typeof shown === 'string') return shown;
    if (form) {
      return Object.entries(shown)
        .map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
        .join('\n');
    }
    return JSON.stringify(shown, null, 2);
  }

  const sameOrigin = (url) => {
    const parsed = new URL(url, location.href);
    return parsed.origin === location.origin ? `${parsed.pathname}${parsed.search}` : parsed.href;
  };

  function add(list, exchange) {
    const item = el('li');
    item.append(el('p', exchange.what, 'wire-what'));
    const line = el('p', undefined, 'wire-line');
    const status = exchange.status === 0 ? 'no answer' : String(exchange.status);
    line.append(el('code', `${exchange.method} ${sameOrigin(exchange.url)}`), ' → ', el('strong', status));
    item.append(line);
    const parts = el('dl', undefined, 'wire-parts');
    const part = (label, text) => {
      if (text === undefined || text === '') return;
      const block = el('pre');
      block.append(el('code', text));
      const details = el('dd');
      details.append(block);
      parts.append(el('dt', label), details);
    };
    const headers = Object.entries(exchange.headers ?? {});
    part('Headers', headers.length > 0 ? headers.map(([n, v]) => `${n}: ${hideHeader(n, v)}`).join('\n') : undefined);
    part('Sent', exchange.sent === undefined ? undefined : bodyText(exchange.sent, exchange.form));
    part('Sent, decoded', exchange.sentDecoded === undefined ? undefined : bodyText(exchange.sentDecoded, false));
    part('Answered', exchange.answer === undefined ? undefined : bodyText(exchange.answer, false));
    part('Answered, decoded', exchange.answerDecoded === undefined ? undefined : bodyText(exchange.answerDecoded, false));
    if (parts.children.length > 0) {
      // Folded: the list reads as a sequence of calls; each opens to what it carried.
      const more = el('details');
      more.append(el('summary', 'What was sent and answered'), parts);
      item.append(more);
    }
    list.append(item);
  }

  window.openrailWire = { shorten, add };
})();
