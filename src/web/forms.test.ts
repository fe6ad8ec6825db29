import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Fastify from 'fastify';
import { assertSameOriginForm, checkFormOrigin, type FormRequestHeaders, originOf, seeOther, seeOtherLocation } from './forms.ts';

const PUBLIC = 'https://rail.example.org';

describe('checkFormOrigin', () => {
  const table: Array<[string, FormRequestHeaders, boolean]> = [
    ['Origin is the public origin', { origin: PUBLIC }, true],
    ['Origin is the public origin, whatever Sec-Fetch-Site says', { origin: PUBLIC, secFetchSite: 'same-origin' }, true],
    ['Origin is another site', { origin: 'https://evil.example' }, false],
    ['Origin is another site claiming same-origin', { origin: 'https://evil.example', secFetchSite: 'same-origin' }, false],
    ['Origin is a sibling subdomain', { origin: 'https://www.rail.example.org' }, false],
    ['Origin is the same host over http', { origin: 'http://rail.example.org' }, false],
    ['Origin is the same host on another port', { origin: 'https://rail.example.org:8443' }, false],
    ['Origin has a trailing slash', { origin: `${PUBLIC}/` }, false],
    ['Origin is "null" (sandboxed or privacy-sensitive context)', { origin: 'null' }, false],
    ['Origin is empty', { origin: '' }, false],
    ['Origin sent twice', { origin: [PUBLIC, PUBLIC] }, false],
    ['no Origin, Sec-Fetch-Site same-origin', { secFetchSite: 'same-origin' }, true],
    ['no Origin, Sec-Fetch-Site same-site', { secFetchSite: 'same-site' }, false],
    ['no Origin, Sec-Fetch-Site cross-site', { secFetchSite: 'cross-site' }, false],
    ['no Origin, Sec-Fetch-Site none (typed in the address bar)', { secFetchSite: 'none' }, false],
    ['no Origin, Sec-Fetch-Site sent twice', { secFetchSite: ['same-origin', 'same-origin'] }, false],
    ['neither header', {}, false],
  ];
  for (const [what, headers, ok] of table) {
    test(`${what}: ${ok ? 'accepted' : 'refused'}`, () => {
      const verdict = checkFormOrigin(headers, PUBLIC);
      assert.equal(verdict.ok, ok);
      if (!verdict.ok) assert.ok(verdict.reason.length > 0);
    });
  }

  test('the public origin may be given as PUBLIC_URL (a URL, default port, trailing slash)', () => {
    assert.equal(checkFormOrigin({ origin: PUBLIC }, new URL(`${PUBLIC}/`)).ok, true);
    assert.equal(checkFormOrigin({ origin: PUBLIC }, 'https://RAIL.example.org:443').ok, true);
    assert.equal(checkFormOrigin({ origin: 'http://localhost:3000' }, 'http://localhost:3000').ok, true);
    assert.equal(originOf('http://127.0.0.1:8080/'), 'http://127.0.0.1:8080');
    assert.throws(() => originOf('ftp://rail.example.org'));
  });
});

describe('seeOtherLocation', () => {
  test('local paths pass', () => {
    for (const ok of ['/', '/verify', '/verify?x=1#r', '/a/b']) assert.equal(seeOtherLocation(ok), ok);
  });
  test('anything that could leave the site is refused', () => {
    for (const bad of [
      'https://evil.example/',
      '//evil.example',
      '/\\evil.example',
      'verify',
      '',
      'javascript:x',
      '/a\nLocation: x',
    ]) {
      assert.throws(() => seeOtherLocation(bad), /not a local path/, bad);
    }
  });
});

describe('the Fastify adapter', () => {
  async function app() {
    const fastify = Fastify();
    fastify.post('/form', async (request, reply) => {
      assertSameOriginForm(request, PUBLIC);
      return seeOther(reply, '/done?id=1');
    });
    await fastify.ready();
    return fastify;
  }

  test('a form from our origin is answered 303 See Other to the local result page', async () => {
    const fastify = await app();
    const res = await fastify.inject({ method: 'POST', url: '/form', headers: { origin: PUBLIC } });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/done?id=1');
    assert.equal(res.headers['cache-control'], 'no-store');
    await fastify.close();
  });

  test('a form from another origin, or with no evidence of one, is refused 403', async () => {
    const fastify = await app();
    for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }, {}]) {
      const res = await fastify.inject({ method: 'POST', url: '/form', headers });
      assert.equal(res.statusCode, 403, JSON.stringify(headers));
      assert.equal(res.headers.location, undefined);
    }
    const sameOrigin = await fastify.inject({ method: 'POST', url: '/form', headers: { 'sec-fetch-site': 'same-origin' } });
    assert.equal(sameOrigin.statusCode, 303);
    await fastify.close();
  });
});
