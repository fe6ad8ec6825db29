// The /demo page's own wallet (docs/public-pages.md, "The demo"): a holder that lives in this page
// for one visit. Its key is a P-256 key the browser makes (WebCrypto) and marks not extractable:
// the private half stays in the browser's key store, this script only asks it to sign, and only
// the public JWK is ever sent (in the key proof's header). The pass it collects is kept in script
// memory, nothing in storage: leaving or reloading the page forgets both. It talks to this page's
// own origin only, without cookies, and reports every exchange to the `trace` it is given, which
// the page shows with its secrets shortened (demo-wire.js). Inlined by the page; its hash is in
// script-src. It defines window.openrailDemoWallet:
//   supported()                whether this browser gives the page WebCrypto (a secure context);
//   holds()                    the pass it holds ({vct, issuer, claims}), or undefined;
//   forget()                   drops the pass (the key stays for the visit);
//   collect(offerUri, trace)   OID4VCI 1.0, pre-authorized code: collects and checks one dc+sd-jwt pass;
//   present(requestUri, trace) OID4VP 1.0, signed request by reference, direct_post: answers {status, body, disclosed}.
(() => {
  const PRE_AUTHORIZED = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
  const ECDSA = { name: 'ECDSA', namedCurve: 'P-256' };
  const ES256 = { name: 'ECDSA', hash: 'SHA-256' };
  const utf8 = new TextEncoder();

  const b64u = (bytes) =>
    btoa(String.fromCharCode(...new Uint8Array(bytes)))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
  const fromB64u = (text) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
  const jsonOf = (segment) => JSON.parse(new TextDecoder().decode(fromB64u(segment)));
  const sha256 = async (text) => b64u(await crypto.subtle.digest('SHA-256', utf8.encode(text)));
  const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
  const now = () => Math.floor(Date.now() / 1000);

  const fail = (message) => {
    throw new Error(message);
  };

  let key; // { privateKey, publicJwk }: made on first use, for this visit
  let held; // { jwt, disclosures: [{encoded, salt, name, value}], vct, issuer, claims }

  /** The holder key: private half not extractable, public half as a bare P-256 JWK. */
  async function holderKey() {
    if (!key) {
      const pair = await crypto.subtle.generateKey(ECDSA, false, ['sign']);
      const { kty, crv, x, y } = await crypto.subtle.exportKey('jwk', pair.publicKey);
      key = { privateKey: pair.privateKey, publicJwk: { kty, crv, x, y } };
    }
    return key;
  }

  async function signJwt(header, payload) {
    const input = `${b64u(utf8.encode(JSON.stringify(header)))}.${b64u(utf8.encode(JSON.stringify(payload)))}`;
    const signature = await crypto.subtle.sign(ES256, (await holderKey()).privateKey, utf8.encode(input));
    return `${input}.${b64u(signature)}`;
  }

  /** A compact JWS read, never trusted by itself: {header, payload, input, signature}. */
  function readJws(compact) {
    const parts = typeof compact === 'string' ? compact.split('.') : [];
    if (parts.length !== 3) return undefined;
    try {
      const [header, payload] = [jsonOf(parts[0]), jsonOf(parts[1])];
      return isObject(header) && isObject(payload)
        ? { header, payload, input: `${parts[0]}.${parts[1]}`, signature: parts[2] }
        : undefined;
    } catch {
      return undefined;
    }
  }

  /** `url` when it is on this page's origin: the page's CSP allows no other, and the wallet trusts no other. */
  function here(url) {
    let target;
    try {
      target = new URL(url);
    } catch {
      fail(`${String(url).slice(0, 80)} is not an address.`);
    }
    if (target.origin !== location.origin)
      fail(`this wallet talks to ${location.origin} only, and was sent to ${target.origin}.`);
    return target;
  }

  /**
   * One exchange, reported to `trace` as {what, method, url, headers?, sent?, form?, sentDecoded?,
   * status, answer, answerDecoded?}: `shown` says what to report beside the address (the headers
   * and body as the wallet means them, what it decoded of them) and may pick what of the answer to
   * report (`answer`) and decode it (`decoded`). Answers {status, body}.
   */
  async function exchange(trace, what, url, init = {}, shown = {}) {
    const target = here(url);
    const method = init.method ?? 'GET';
    const { headers, sent, form, sentDecoded } = shown;
    const report = { what, method, url: target.href, headers, sent, form, sentDecoded };
    let response;
    try {
      response = await fetch(target, { ...init, credentials: 'omit', redirect: 'error', cache: 'no-store' });
    } catch {
      trace({ ...report, status: 0, answer: 'no answer' });
      fail(`${target.pathname} could not be reached.`);
    }
    const text = await response.text();
    let body = text;
    if (response.headers.get('content-type')?.startsWith('application/json')) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    let answerDecoded;
    try {
      answerDecoded = response.ok ? shown.decoded?.(body) : undefined;
    } catch {
      answerDecoded = undefined; // what the wallet cannot decode it refuses below, in its own words
    }
    const answer = response.ok && isObject(body) && shown.answer ? shown.answer(body) : body;
    trace({ ...report, status: response.status, answer, answerDecoded });
    return { status: response.status, body };
  }

  /** GET a JSON document that must be there. */
  async function readDocument(trace, what, url, shownPart) {
    const { status, body } = await exchange(trace, what, url, {}, { answer: shownPart });
    if (status !== 200 || !isObject(body)) fail(`${here(url).pathname} answered ${status}, not a JSON document.`);
    return body;
  }

  /** `object` with only `names` (the wallet's view of a long document), saying how many members it leaves out. */
  function pick(object, names) {
    const kept = Object.fromEntries(names.filter((n) => n in object).map((n) => [n, object[n]]));
    const left = Object.keys(object).length - Object.keys(kept).length;
    return left > 0 ? { ...kept, '…': `${left} more, left out here` } : kept;
  }

  const wellKnown = (identifier, name) => {
    const url = new URL(identifier);
    return `${url.origin}/.well-known/${name}${url.pathname === '/' ? '' : url.pathname}`;
  };

  /** Checks that `jws` is signed by `kid`, a key the did:web DID document of its DID lists under `relation`. */
  async function checkSignature(trace, what, jws, kid, relation) {
    const [did] = kid.split('#');
    const parts = did.split(':');
    if (parts.length < 3 || parts[0] !== 'did' || parts[1] !== 'web') fail(`${kid} is not a did:web key.`);
    if (decodeURIComponent(parts[2]) !== location.host)
      fail(`${did} is not of ${location.host}, the only service this wallet talks to.`);
    const path = parts.slice(3).map(decodeURIComponent).join('/') || '.well-known';
    const doc = await readDocument(trace, what, `${location.origin}/${path}/did.json`, (d) =>
      pick(d, ['id', 'verificationMethod', relation]),
    );
    const method = Array.isArray(doc.verificationMethod) ? doc.verificationMethod.find((m) => m?.id === kid) : undefined;
    const jwk = method?.publicKeyJwk;
    if (doc.id !== did || !jwk || !doc[relation]?.includes?.(kid)) fail(`${did} lists no ${relation} key ${kid}.`);
    const publicKey = await crypto.subtle.importKey('jwk', { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, ECDSA, false, [
      'verify',
    ]);
    if (!(await crypto.subtle.verify(ES256, publicKey, fromB64u(jws.signature), utf8.encode(jws.input)))) {
      fail(`the signature does not verify with ${did}’s key.`);
    }
  }

  /** The issuer-signed JWT of an SD-JWT and its disclosures, decoded. */
  function readSdJwt(compact) {
    const [jwt, ...rest] = compact.split('~');
    const jws = readJws(jwt);
    if (!jws) fail('the credential is not an SD-JWT.');
    const disclosures = rest.filter(Boolean).map((encoded) => {
      let decoded;
      try {
        decoded = jsonOf(encoded);
      } catch {
        fail('a disclosure of the credential is not JSON.');
      }
      if (!Array.isArray(decoded) || decoded.length !== 3 || typeof decoded[1] !== 'string') fail('a disclosure is not a claim.');
      return { encoded, salt: decoded[0], name: decoded[1], value: decoded[2] };
    });
    return { jwt, jws, disclosures };
  }

  const showDisclosures = (disclosures) => disclosures.map(({ salt, name, value }) => ({ salt, name, value }));

  async function collect(offerUri, trace) {
    const { publicJwk } = await holderKey();
    let reference = null;
    try {
      reference = new URL(offerUri).searchParams.get('credential_offer_uri');
    } catch {
      // said below
    }
    if (!reference) fail('the offer is not an offer by reference (credential_offer_uri).');
    const offer = await readDocument(trace, 'The wallet reads the offer.', reference);
    const code = offer.grants?.[PRE_AUTHORIZED]?.['pre-authorized_code'];
    if (typeof offer.credential_issuer !== 'string' || typeof code !== 'string') fail('the offer has no pre-authorized code.');
    if (offer.grants[PRE_AUTHORIZED].tx_code)
      fail('the offer asks for a transaction code, which this wallet cannot ask you for.');
    const issuer = offer.credential_issuer;

    const configurationId = offer.credential_configuration_ids?.[0];
    const metadata = await readDocument(
      trace,
      'The wallet reads the issuer’s metadata.',
      wellKnown(issuer, 'openid-credential-issuer'),
      (m) => {
        // The endpoints, and the one configuration offered: the rest is left out here.
        const all = isObject(m.credential_configurations_supported) ? m.credential_configurations_supported : {};
        const offered = isObject(all[configurationId]) ? pick(all[configurationId], ['format', 'vct']) : undefined;
        const fields = ['credential_issuer', 'authorization_servers', 'credential_endpoint', 'nonce_endpoint'];
        const configurations = pick({ ...all, [configurationId]: offered }, [configurationId]);
        return {
          ...pick(m, [...fields, 'credential_configurations_supported']),
          credential_configurations_supported: configurations,
        };
      },
    );
    const configuration = metadata.credential_configurations_supported?.[configurationId];
    if (metadata.credential_issuer !== issuer || configuration?.format !== 'dc+sd-jwt') {
      fail('the issuer describes no dc+sd-jwt credential of the offer.');
    }
    const server = metadata.authorization_servers?.[0] ?? issuer;
    const authorization = await readDocument(
      trace,
      'The wallet reads the authorization server’s metadata.',
      wellKnown(server, 'oauth-authorization-server'),
      (m) => pick(m, ['issuer', 'token_endpoint', 'grant_types_supported', 'pre-authorized_grant_anonymous_access_supported']),
    );

    const form = { grant_type: PRE_AUTHORIZED, 'pre-authorized_code': code };
    const token = await exchange(
      trace,
      'The wallet redeems the pre-authorized code for an access token.',
      authorization.token_endpoint,
      { method: 'POST', body: new URLSearchParams(form) },
      { sent: form, form: true },
    );
    if (token.status !== 200 || typeof token.body?.access_token !== 'string') {
      fail(`the token endpoint refused: ${token.body?.error ?? token.status}.`);
    }

    let nonce = token.body.c_nonce;
    if (typeof metadata.nonce_endpoint === 'string') {
      const fresh = await exchange(trace, 'The wallet asks for a fresh nonce for its key proof.', metadata.nonce_endpoint, {
        method: 'POST',
      });
      nonce = fresh.body?.c_nonce;
    }
    if (typeof nonce !== 'string') fail('the issuer handed out no nonce.');

    const proofHeader = { typ: 'openid4vci-proof+jwt', alg: 'ES256', jwk: publicJwk };
    const proofPayload = { aud: issuer, iat: now(), nonce };
    const proof = await signJwt(proofHeader, proofPayload);
    const request = { credential_configuration_id: configurationId, proofs: { jwt: [proof] } };
    const headers = { authorization: `Bearer ${token.body.access_token}`, 'content-type': 'application/json' };
    const answered = await exchange(
      trace,
      'The wallet asks for the credential, proving it holds the key (its public half in the proof header).',
      metadata.credential_endpoint,
      { method: 'POST', headers, body: JSON.stringify(request) },
      {
        headers,
        sent: request,
        sentDecoded: { 'key proof': { header: proofHeader, payload: proofPayload } },
        decoded: (body) => {
          const compact = body?.credentials?.[0]?.credential;
          if (typeof compact !== 'string') return undefined;
          const { jws, disclosures } = readSdJwt(compact);
          return { 'issuer-signed JWT': { header: jws.header, payload: jws.payload }, disclosures: showDisclosures(disclosures) };
        },
      },
    );
    const compact = answered.body?.credentials?.[0]?.credential;
    if (answered.status !== 200 || typeof compact !== 'string') {
      fail(`the credential endpoint refused: ${answered.body?.error ?? answered.status}.`);
    }

    // What a wallet checks before it keeps a credential (docs/wallet-cli.md, "Collecting").
    const { jwt, jws, disclosures } = readSdJwt(compact);
    const { header, payload } = jws;
    if (header.alg !== 'ES256' || typeof header.kid !== 'string' || header.kid.split('#')[0] !== payload.iss) {
      fail('the credential is not signed ES256 by a key of its issuer’s DID.');
    }
    await checkSignature(
      trace,
      'The wallet reads the issuer’s DID document to check the credential’s signature.',
      jws,
      header.kid,
      'assertionMethod',
    );
    if (payload.vct !== configuration.vct) fail('the credential is not of the type the offer named.');
    const cnf = payload.cnf?.jwk;
    if (cnf?.x !== publicJwk.x || cnf?.y !== publicJwk.y) fail('the credential is not bound to this wallet’s key.');
    const digests = new Set(Array.isArray(payload._sd) ? payload._sd : []);
    for (const disclosure of disclosures) {
      if (!digests.has(await sha256(disclosure.encoded))) fail('a disclosure is not among the digests the issuer signed.');
    }
    const claims = Object.fromEntries(disclosures.map((d) => [d.name, d.value]));
    held = { jwt, disclosures, vct: payload.vct, issuer: payload.iss, claims };
    return holds();
  }

  async function present(requestUri, trace) {
    if (!held) fail('this wallet holds no pass: collect one first.');
    let params;
    try {
      params = new URL(requestUri).searchParams;
    } catch {
      fail('the request is not a URI.');
    }
    const clientId = params.get('client_id') ?? '';
    const requestAt = params.get('request_uri');
    if (!clientId.startsWith('decentralized_identifier:did:web:') || !requestAt) {
      fail('this wallet answers signed requests by reference (request_uri) from a verifier named by a did:web DID only.');
    }
    const fetched = await exchange(
      trace,
      'The wallet fetches the verifier’s signed request.',
      requestAt,
      {},
      {
        decoded: (text) => {
          const jws = readJws(text);
          return jws ? { header: jws.header, payload: jws.payload } : undefined;
        },
      },
    );
    const jws = fetched.status === 200 ? readJws(fetched.body) : undefined;
    if (!jws) fail(`the request_uri answered ${fetched.status}, not a signed request.`);
    const { header, payload: request } = jws;
    const did = clientId.slice('decentralized_identifier:'.length);
    if (header.alg !== 'ES256' || typeof header.kid !== 'string' || header.kid.split('#')[0] !== did) {
      fail('the request is not signed ES256 by a key of the verifier’s DID.');
    }
    await checkSignature(
      trace,
      'The wallet reads the verifier’s DID document to check the request’s signature.',
      jws,
      header.kid,
      'authentication',
    );
    if (request.client_id !== clientId) fail('the signed request names another verifier than its link.');
    if (typeof request.exp === 'number' && request.exp < now()) fail('the request has expired.');
    if (
      request.response_mode !== 'direct_post' ||
      typeof request.response_uri !== 'string' ||
      typeof request.nonce !== 'string'
    ) {
      fail('the request asks for an answer this wallet cannot give (direct_post to a response_uri, with a nonce).');
    }
    const query = request.dcql_query?.credentials?.[0];
    if (
      !isObject(query) ||
      typeof query.id !== 'string' ||
      query.format !== 'dc+sd-jwt' ||
      !query.meta?.vct_values?.includes(held.vct)
    ) {
      fail('the verifier asks for no pass this wallet holds.');
    }
    const asked = (Array.isArray(query.claims) ? query.claims : []).map((c) => (c?.path?.length === 1 ? c.path[0] : undefined));
    if (asked.some((name) => typeof name !== 'string')) fail('the verifier asks for a claim this wallet cannot read.');
    const missing = asked.filter((name) => !Object.hasOwn(held.claims, name));
    if (missing.length > 0) fail(`the pass has no ${missing.join(', ')}.`);

    // Exactly the claims asked for; the rest stay in the wallet. Then the key binding (RFC 9901).
    const chosen = held.disclosures.filter((d) => asked.includes(d.name));
    const sdJwt = `${[held.jwt, ...chosen.map((d) => d.encoded)].join('~')}~`;
    const kbHeader = { typ: 'kb+jwt', alg: 'ES256' };
    const kbPayload = { iat: now(), aud: clientId, nonce: request.nonce, sd_hash: await sha256(sdJwt) };
    const presentation = `${sdJwt}${await signJwt(kbHeader, kbPayload)}`;
    const vpToken = { [query.id]: [presentation] };
    const state = typeof request.state === 'string' ? { state: request.state } : {};
    const form = { vp_token: JSON.stringify(vpToken), ...state };
    const answer = await exchange(
      trace,
      'The wallet posts its presentation: the issuer-signed JWT, the disclosures asked for, and a key binding.',
      request.response_uri,
      { method: 'POST', body: new URLSearchParams(form) },
      {
        sent: { vp_token: vpToken, ...state },
        form: true,
        sentDecoded: { disclosed: showDisclosures(chosen), 'key binding': { header: kbHeader, payload: kbPayload } },
      },
    );
    return { status: answer.status, body: answer.body, disclosed: chosen.map((d) => d.name) };
  }

  function holds() {
    return held ? { vct: held.vct, issuer: held.issuer, claims: { ...held.claims } } : undefined;
  }

  window.openrailDemoWallet = {
    supported: () => window.isSecureContext && typeof crypto.subtle?.generateKey === 'function',
    holds,
    forget: () => {
      held = undefined;
    },
    collect,
    present,
  };
})();
