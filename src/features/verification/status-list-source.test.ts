import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { hasOpenssl, selfSignedCertificate } from '../../../test/helpers/tls.ts';
import { newP256KeyPair } from '../../adapters/crypto/p256-keys.ts';
import { GuardedFetcher } from '../../adapters/http/guarded-fetcher.ts';
import { statusListToken } from '../../core/conformance/builders.ts';
import { IssuerUrls } from '../../core/issuer-urls.ts';
import { StatusListSource } from './status-list-source.ts';

/** The hosted verifier's status lists: ours from the record, others fetched under the SSRF policy and kept for their ttl. */
describe('StatusListSource', { skip: hasOpenssl ? false : 'openssl is not on PATH' }, () => {
  let cert: string;
  let server: Server;
  let port: number;
  let now = 1_800_000_000_000;
  const clock = { now: () => now };
  const hits = new Map<string, number>();
  const key = newP256KeyPair();
  /** A list token with the builder's ttl of 300 s. */
  const token = (sub: string, exp: number) =>
    statusListToken({ signer: key, iss: 'did:web:lists.test', sub, iat: now / 1000, exp, size: 16, revoked: [] });
  const at = (path: string) => `https://lists.test:${port}${path}`;
  const localCalls: string[] = [];
  const source = () =>
    new StatusListSource(
      new IssuerUrls(new URL('https://rail.example.test')),
      async (tenant, seq) => {
        localCalls.push(`${tenant}/${seq}`);
        return `local-${tenant}-${seq}`;
      },
      new GuardedFetcher({
        ca: cert,
        lookup: async () => [{ address: '127.0.0.1', family: 4 }],
        allowAddress: (ip) => ip === '127.0.0.1',
      }),
      clock,
    );

  before(async () => {
    const tls = selfSignedCertificate('lists.test', 'DNS:lists.test');
    cert = tls.cert;
    server = createServer({ key: tls.key, cert }, (req, res) => {
      const path = req.url ?? '/';
      hits.set(path, (hits.get(path) ?? 0) + 1);
      if (path === '/json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{}');
      }
      if (path === '/gone') {
        res.writeHead(404, { 'content-type': 'application/statuslist+jwt' });
        return res.end('not a list');
      }
      const exp = path === '/short' ? now / 1000 + 10 : now / 1000 + 3600;
      res.writeHead(200, { 'content-type': 'application/statuslist+jwt' });
      res.end(token(at(path), exp));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    server.close();
  });

  test("this service's lists come from the record, never over HTTP", async () => {
    const s = source();
    assert.equal(await s.get('https://rail.example.test/t/alpha/status/3'), 'local-alpha-3');
    assert.equal(await s.get('https://rail.example.test/status/1'), 'local-root-1');
    assert.deepEqual(localCalls, ['alpha/3', 'root/1']);
    assert.equal(s.isLocal('https://rail.example.test/status/1'), true);
    assert.equal(s.isLocal(at('/status/1')), false);
  });

  test("another service's list is fetched once and kept for its ttl", async () => {
    const s = source();
    const first = await s.get(at('/lists/1'));
    assert.match(first ?? '', /^ey/);
    assert.equal(await s.get(at('/lists/1')), first);
    assert.equal(hits.get('/lists/1'), 1, 'served from the cache within the ttl');
    now += 301_000;
    await s.get(at('/lists/1'));
    assert.equal(hits.get('/lists/1'), 2, 'fetched again once the ttl has passed');
  });

  test('a list is never kept past its exp, even when its ttl is longer', async () => {
    const s = source();
    await s.get(at('/short'));
    now += 11_000;
    await s.get(at('/short'));
    assert.equal(hits.get('/short'), 2);
  });

  test('a wrong media type, an error status or a refused address gives no list', async () => {
    const s = source();
    assert.equal(await s.get(at('/json')), undefined);
    assert.equal(await s.get(at('/gone')), undefined);
    assert.equal(await s.get(`http://lists.test:${port}/lists/1`), undefined, 'http is refused');
    const guarded = new StatusListSource(
      new IssuerUrls(new URL('https://rail.example.test')),
      async () => 'local',
      new GuardedFetcher({ ca: cert, lookup: async () => [{ address: '127.0.0.1', family: 4 }] }),
      clock,
    );
    const before = hits.get('/lists/9') ?? 0;
    assert.equal(await guarded.get(at('/lists/9')), undefined, 'loopback is not a public address');
    assert.equal(hits.get('/lists/9') ?? 0, before, 'nothing reached the server');
  });
});
