import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { checkReachable, didWebDocumentUrl, WalletError, walletFetch } from './net.ts';

describe('what the reference wallet may reach', () => {
  test('https anywhere; plain http only to this machine, and only when allowed', () => {
    const allowed = { allowHttp: true };
    const strict = { allowHttp: false };
    assert.doesNotThrow(() => checkReachable(new URL('https://rail.example.org/x'), strict));
    for (const host of ['localhost', '127.0.0.1', '127.5.0.9', '[::1]']) {
      assert.doesNotThrow(() => checkReachable(new URL(`http://${host}:3000/`), allowed), host);
      assert.throws(() => checkReachable(new URL(`http://${host}:3000/`), strict), /add --allow-http/, host);
    }
    for (const url of [
      'http://rail.example.org/',
      'http://10.0.0.1/',
      'http://localhost.example.org/',
      'ftp://localhost/',
      'file:///etc/passwd',
    ]) {
      assert.throws(() => checkReachable(new URL(url), allowed), WalletError, url);
    }
  });

  test('did:web documents are fetched over https, or over http from this machine when allowed', () => {
    assert.equal(
      didWebDocumentUrl('did:web:rail.example.org', { allowHttp: false }).href,
      'https://rail.example.org/.well-known/did.json',
    );
    assert.equal(
      didWebDocumentUrl('did:web:rail.example.org:t:ghent', { allowHttp: true }).href,
      'https://rail.example.org/t/ghent/did.json',
    );
    assert.equal(
      didWebDocumentUrl('did:web:localhost%3A3000:t:a', { allowHttp: true }).href,
      'http://localhost:3000/t/a/did.json',
    );
    assert.equal(
      didWebDocumentUrl('did:web:localhost%3A3000', { allowHttp: false }).href,
      'https://localhost:3000/.well-known/did.json',
    );
    for (const bad of ['did:key:z6Mk', 'did:web:', 'did:web:a/b', 'did:web:a#k']) {
      assert.throws(() => didWebDocumentUrl(bad, { allowHttp: true }), WalletError, bad);
    }
  });

  describe('answers are bounded and never redirected', () => {
    let server: Server;
    let base: string;
    before(async () => {
      server = createServer((req, res) => {
        if (req.url === '/redirect') res.writeHead(302, { location: 'http://127.0.0.1:1/' }).end();
        else if (req.url === '/big') res.end(Buffer.alloc(2048, 97));
        else if (req.url === '/slow') setTimeout(() => res.end('late'), 2000);
        else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const fetchFn = () => walletFetch({ allowHttp: true, maxBytes: 1024, timeoutMs: 500 });

    test('a plain answer comes through whole', async () => {
      const res = await fetchFn()(`${base}/ok`);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { ok: true });
    });
    test('a redirect is a failure', async () => {
      await assert.rejects(fetchFn()(`${base}/redirect`), /answered a redirect \(302\)/);
    });
    test('an answer over the size limit is a failure', async () => {
      await assert.rejects(fetchFn()(`${base}/big`), /more than 1024 bytes/);
    });
    test('an answer that does not come in time is a failure', async () => {
      await assert.rejects(fetchFn()(`${base}/slow`), WalletError);
    });
  });
});
