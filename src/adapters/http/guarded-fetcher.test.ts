import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { hasOpenssl, selfSignedCertificate } from '../../../test/helpers/tls.ts';
import { isPublicAddress } from '../../core/public-address.ts';
import { FetchRefused } from '../../ports/http-fetcher.ts';
import { GuardedFetcher, type Resolver } from './guarded-fetcher.ts';

describe('isPublicAddress', () => {
  const notPublic = [
    // IPv4, one or more per refused range, edges included
    '0.0.0.0',
    '0.255.255.255',
    '10.0.0.0',
    '10.255.255.255',
    '100.64.0.0',
    '100.127.255.255',
    '127.0.0.1',
    '127.255.255.254',
    '169.254.0.1',
    '169.254.169.254',
    '172.16.0.0',
    '172.31.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '192.168.0.1',
    '192.168.255.255',
    '198.18.0.0',
    '198.19.255.255',
    '198.51.100.7',
    '203.0.113.9',
    '192.88.99.1',
    '192.88.99.255',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
    // IPv6
    '::',
    '::1',
    '0:0:0:0:0:0:0:1',
    'fc00::1',
    'fd12:3456:789a::1',
    'fe80::1',
    'fe80::1%eth0',
    'febf:ffff::1',
    'ff02::1',
    'ff0e::1',
    '2001:db8::1',
    '2001:0db8:ffff::1',
    '64:ff9b::808:808',
    '64:ff9b::127.0.0.1',
    // tunnels to an embedded IPv4 host, and other IETF assignments and documentation in 2000::/3
    '2002:7f00:1::1',
    '2002:a9fe:a9fe::1',
    '2002:c0a8:101::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '2001::1',
    '2001:2::1',
    '2001:1ff:ffff::1',
    '3fff::1',
    '3fff:fff::1',
    // IPv4-mapped: judged by the embedded IPv4, in both notations
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '0:0:0:0:0:ffff:c0a8:101',
    // outside 2000::/3: IPv4-compatible, discard-only
    '::8.8.8.8',
    '100::1',
    // not addresses at all
    '',
    'localhost',
    'example.com',
    '127.1',
    '0177.0.0.1',
    '2130706433',
    '256.0.0.1',
    '1.2.3',
    '[::1]',
    '1::2::3',
  ];
  const isPublic = [
    '1.1.1.1',
    '8.8.8.8',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.1',
    '192.0.3.1',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '203.0.114.1',
    '223.255.255.255',
    '2001:4860:4860::8888',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '2001:db9::1',
    '3fff:ffff::1',
    '3fff:1000::1',
    '2001:200::1',
    '2003::1',
    '192.88.98.255',
    '192.88.100.0',
    '::ffff:8.8.8.8',
    '::ffff:101:101',
  ];
  for (const ip of notPublic) it(`${JSON.stringify(ip)} is not public`, () => assert.equal(isPublicAddress(ip), false));
  for (const ip of isPublic) it(`${ip} is public`, () => assert.equal(isPublicAddress(ip), true));
});

/** The refusal a fetch ends in; fails the test if it succeeds or throws anything else. */
async function refusal(fetching: Promise<unknown>): Promise<FetchRefused> {
  try {
    await fetching;
  } catch (error) {
    assert.ok(error instanceof FetchRefused, `expected a FetchRefused, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the fetch to be refused');
}

const SECRET = 'SECRET-ERROR-BODY';
const MIB = 1024 * 1024;

describe('GuardedFetcher against a real HTTPS server', { skip: hasOpenssl ? false : 'openssl is not on PATH' }, () => {
  let cert: string;
  let server: Server;
  let port: number;
  const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
  const hits = (path: string) => seen.filter((r) => r.path === path).length;

  /** fetch.test is 127.0.0.1; every other name does not resolve. */
  const lookups: string[] = [];
  const testLookup: Resolver = async (hostname) => {
    lookups.push(hostname);
    if (hostname === 'fetch.test' || hostname === 'other.test') return [{ address: '127.0.0.1', family: 4 }];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  };
  const loopbackOnly = (ip: string) => ip === '127.0.0.1';
  /** Trusts the test certificate and lets 127.0.0.1 through; everything else is the real policy. */
  const testFetcher = (options: { timeoutMs?: number; maxBytes?: number } = {}) =>
    new GuardedFetcher({ ca: cert, lookup: testLookup, allowAddress: loopbackOnly, ...options });
  const at = (path: string, host = 'fetch.test') => `https://${host}:${port}${path}`;
  const accept = { accept: 'application/json' };

  before(async () => {
    const tls = selfSignedCertificate('fetch.test', 'DNS:fetch.test,IP:127.0.0.1');
    cert = tls.cert;
    server = createServer({ key: tls.key, cert }, (req, res) => {
      const url = new URL(req.url ?? '/', 'https://fetch.test');
      seen.push({ path: url.pathname, headers: req.headers });
      const [, route = '', arg = ''] = url.pathname.split('/');
      switch (route) {
        case 'ok':
          res.writeHead(200, { 'Content-Type': 'Application/Statuslist+JWT ; charset=UTF-8' });
          return res.end('eyJ.héllo.✓');
        case 'no-type':
          return res.end('plain');
        case 'echo':
          res.writeHead(200, { 'Content-Type': 'application/json' });
          return res.end(JSON.stringify({ url: req.url, headers: req.headers }));
        case 'redirect':
          res.writeHead(Number(arg), { Location: at('/target') });
          return res.end('moved');
        case 'target':
          return res.end('reached');
        case 'status':
          res.writeHead(Number(arg), { 'Content-Type': 'text/plain' });
          return res.end(SECRET);
        case 'declared':
          res.writeHead(200, { 'Content-Length': String(Number(arg)) });
          return res.end('x'.repeat(Number(arg)));
        case 'chunked': {
          // No Content-Length: the size is only known by counting.
          res.writeHead(200, { 'Content-Type': 'text/plain' });
          let left = Number(arg);
          while (left > 0) {
            const n = Math.min(left, 64 * 1024);
            res.write('y'.repeat(n));
            left -= n;
          }
          return res.end();
        }
        case 'endless': {
          res.writeHead(200);
          const timer = setInterval(() => res.write('z'.repeat(4096)), 1);
          res.on('close', () => clearInterval(timer));
          return;
        }
        case 'hang':
          return; // never answers
        case 'drip': {
          res.writeHead(200);
          res.write('first byte, then nothing');
          return;
        }
        default:
          res.writeHead(404);
          return res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('post: answers the status whatever it is, never follows a redirect, drops what the target writes back', async () => {
    const post = (path: string, fetcher = testFetcher()) =>
      fetcher.post(at(path), { headers: { 'content-type': 'application/json', 'x-svc-event': 'webhook.ping' }, body: '{"a":1}' });
    const echoed = await post('/echo');
    assert.equal(echoed.status, 200);
    assert.ok(echoed.latencyMs >= 0);
    const sent = seen.at(-1)?.headers;
    assert.equal(sent?.['x-svc-event'], 'webhook.ping');
    assert.equal(sent?.['content-length'], '7');
    assert.equal(sent?.cookie, undefined);
    const before = hits('/target');
    assert.equal((await post('/redirect/302/post')).status, 302);
    assert.equal(hits('/target'), before, 'the Location was never visited');
    assert.equal((await post('/status/500')).status, 500);
    // An endless answer is cut off at the size limit; the status was already known.
    assert.equal((await post('/endless', testFetcher({ maxBytes: 10_000 }))).status, 200);
  });

  it('post: the policy refuses before sending, and a silent target times out', async () => {
    const body = { headers: {}, body: '{}' };
    assert.equal((await refusal(testFetcher().post(`http://fetch.test:${port}/ok`, body))).reason, 'scheme');
    assert.equal((await refusal(new GuardedFetcher({ ca: cert, lookup: testLookup }).post(at('/ok'), body))).reason, 'address');
    assert.equal((await refusal(testFetcher().post(at('/hang'), { ...body, timeoutMs: 200 }))).reason, 'timeout');
    const allowed = new GuardedFetcher({ ca: cert, lookup: testLookup, allowOrigins: [`https://fetch.test:${port}`] });
    assert.equal((await allowed.post(at('/ok'), body)).status, 200, 'an allowed origin skips the address rule');
  });

  it('fetches over https and returns status, parameter-free lower-cased media type and utf-8 body', async () => {
    const got = await testFetcher().get(at('/ok'), accept);
    assert.deepEqual(got, { url: at('/ok'), status: 200, contentType: 'application/statuslist+jwt', body: 'eyJ.héllo.✓' });
    assert.equal((await testFetcher().get(at('/no-type'), accept)).contentType, '');
    assert.equal((await testFetcher().get(at('/ok', '127.0.0.1'), accept)).status, 200, 'a literal IP the policy allows');
  });

  it('resolves once, inside the connection, so the address judged is the address connected to', async () => {
    lookups.length = 0;
    await testFetcher().get(at('/ok'), accept);
    assert.deepEqual(lookups, ['fetch.test']);
  });

  it('sends Accept and nothing identifying: no cookie, no authorization, no fragment', async () => {
    const got = await testFetcher().get(`${at('/echo')}?a=1&b=2#frag`, { accept: 'application/did+json' });
    const echoed = JSON.parse(got.body) as { url: string; headers: Record<string, string> };
    assert.equal(echoed.url, '/echo?a=1&b=2');
    assert.equal(echoed.headers.accept, 'application/did+json');
    assert.equal(echoed.headers.cookie, undefined);
    assert.equal(echoed.headers.authorization, undefined);
    assert.equal(echoed.headers['proxy-authorization'], undefined);
  });

  it("refuses a URL that does not parse or carries credentials ('url')", async () => {
    const before = seen.length;
    for (const url of [
      '',
      'not a url',
      '/relative/path',
      'https://',
      at('/ok').replace('//', '//user:pass@'),
      at('/ok').replace('//', '//user@'),
      at('/ok').replace('//', '//:pass@'),
    ]) {
      assert.equal((await refusal(testFetcher().get(url, accept))).reason, 'url', url);
    }
    assert.equal(seen.length, before, 'nothing reached the server');
  });

  it("refuses every scheme but https ('scheme')", async () => {
    const before = seen.length;
    for (const url of [
      at('/ok').replace('https:', 'http:'),
      'file:///etc/passwd',
      'data:text/plain,hello',
      'ftp://fetch.test/x',
      'ws://fetch.test/',
      'wss://fetch.test/',
      'javascript:alert(1)',
      'gopher://fetch.test/',
    ]) {
      assert.equal((await refusal(testFetcher().get(url, accept))).reason, 'scheme', url);
    }
    assert.equal(seen.length, before, 'nothing reached the server');
  });

  it("by default refuses loopback, private and metadata addresses, literal or resolved ('address')", async () => {
    const before = seen.length;
    const strict = new GuardedFetcher({ ca: cert }); // the production policy, real DNS
    for (const url of [
      at('/ok', '127.0.0.1'),
      at('/ok', 'localhost'),
      at('/ok', '[::1]'),
      at('/ok', '[::ffff:127.0.0.1]'),
      at('/ok', '0177.0.0.1'), // the URL parser reads these as 127.0.0.1
      at('/ok', '2130706433'),
      at('/ok', '0x7f.1'),
      'https://10.1.2.3/',
      'https://169.254.169.254/latest/meta-data/',
      'https://[fd00::1]/',
    ]) {
      assert.equal((await refusal(strict.get(url, accept))).reason, 'address', url);
    }
    assert.equal(seen.length, before, 'nothing reached the server');
  });

  it("refuses a name when any of its addresses is not public, before connecting ('address')", async () => {
    const before = seen.length;
    const answers =
      (...ips: string[]): Resolver =>
      async () =>
        ips.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
    const cases: [Resolver, ((ip: string) => boolean) | undefined][] = [
      [answers('127.0.0.1'), undefined],
      [answers('93.184.216.34', '127.0.0.1'), undefined], // a rebinding answer hiding behind a public one
      [answers('2606:2800:220:1::1', '::1'), undefined],
      [answers('93.184.216.34', '::ffff:192.168.1.1'), undefined],
      [answers('127.0.0.1', '10.0.0.1'), loopbackOnly], // any address outside the policy is enough
    ];
    for (const [lookup, allowAddress] of cases) {
      const fetcher = new GuardedFetcher({ ca: cert, lookup, ...(allowAddress ? { allowAddress } : {}) });
      assert.equal((await refusal(fetcher.get(at('/ok'), accept))).reason, 'address');
    }
    assert.equal(seen.length, before, 'nothing reached the server');
  });

  it("refuses every redirect and never requests its target ('redirect')", async () => {
    for (const code of [301, 302, 303, 307, 308]) {
      assert.equal((await refusal(testFetcher().get(at(`/redirect/${code}`), accept))).reason, 'redirect', String(code));
      assert.equal(hits(`/redirect/${code}`), 1);
    }
    assert.equal(hits('/target'), 0, 'the Location was never followed');
    // The target itself is reachable, so the zero above is the fetcher's doing.
    assert.equal((await testFetcher().get(at('/target'), accept)).body, 'reached');
    assert.equal(hits('/target'), 1);
  });

  it("refuses a non-2xx answer without ever returning its body ('status')", async () => {
    for (const code of [400, 401, 403, 404, 410, 500, 503]) {
      const refused = await refusal(testFetcher().get(at(`/status/${code}`), accept));
      assert.equal(refused.reason, 'status', String(code));
      assert.ok(!refused.message.includes(SECRET), 'the error body does not leak into the message');
      assert.ok(!JSON.stringify(refused).includes(SECRET));
    }
  });

  it("refuses a body over the limit, declared or counted as it arrives ('size')", async () => {
    const small = testFetcher({ maxBytes: 1000 });
    assert.equal((await small.get(at('/declared/1000'), accept)).body.length, 1000);
    assert.equal((await refusal(small.get(at('/declared/1001'), accept))).reason, 'size');
    assert.equal((await refusal(small.get(at('/chunked/1001'), accept))).reason, 'size');
    assert.equal((await refusal(small.get(at('/endless'), accept))).reason, 'size', 'an endless body is cut off');
    // The default limit is 1 MiB.
    assert.equal((await testFetcher().get(at(`/chunked/${MIB}`), accept)).body.length, MIB);
    assert.equal((await refusal(testFetcher().get(at(`/chunked/${MIB + 1}`), accept))).reason, 'size');
  });

  it("bounds the whole exchange in time, headers and body ('timeout')", async () => {
    const quick = testFetcher({ timeoutMs: 200 });
    assert.equal((await refusal(quick.get(at('/hang'), accept))).reason, 'timeout', 'no answer at all');
    assert.equal((await refusal(quick.get(at('/drip'), accept))).reason, 'timeout', 'a body that never ends');
  });

  it("reports TLS, connection and resolution failures as 'network'", async () => {
    const untrusted = new GuardedFetcher({ lookup: testLookup, allowAddress: loopbackOnly }); // system CAs only
    assert.equal((await refusal(untrusted.get(at('/ok'), accept))).reason, 'network', 'self-signed certificate');
    assert.equal(
      (await refusal(testFetcher().get(at('/ok', 'other.test'), accept))).reason,
      'network',
      'name not in the certificate',
    );
    assert.equal(
      (await refusal(testFetcher().get(at('/ok', 'nowhere.test'), accept))).reason,
      'network',
      'name does not resolve',
    );
    const closed = createTcpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await refusal(testFetcher().get(`https://fetch.test:${closedPort}/`, accept));
    assert.equal(refused.reason, 'network', 'connection refused');
  });
});
