import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, testDatabases } from '../../../../test/helpers/databases.ts';
import { signedInOperator } from '../../../../test/helpers/operators.ts';
import { freePort } from '../../../../test/helpers/process.ts';
import { owner, startRail, type TestRail } from '../../../../test/helpers/rail.ts';

type Edit = 'none' | 'swap' | 'extra' | 'down';

for (const factory of testDatabases()) {
  describe(`DID drift: published documents against the stored keys (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let front: Server;
    let ops: { authorization: string };
    // The public front (a CDN, a proxy) serves what the service serves, unless the test edits it.
    let edit: Edit = 'none';

    before(async () => {
      const [frontPort, railPort] = [await freePort(), await freePort()];
      const origin = `http://127.0.0.1:${frontPort}`;
      front = createServer(async (req, res) => {
        const upstream = await fetch(`http://127.0.0.1:${railPort}${req.url}`);
        let body = await upstream.text();
        if (req.url === '/t/alpha/did.json' && edit !== 'none') {
          if (edit === 'down') {
            res.writeHead(503).end();
            return;
          }
          const doc = JSON.parse(body);
          const [first] = doc.verificationMethod;
          // Another key: the last two characters changed, to ones they cannot already be.
          if (edit === 'swap') {
            const x = first.publicKeyJwk.x;
            first.publicKeyJwk.x = `${x.slice(0, -2)}${x.endsWith('AA') ? 'BA' : 'AA'}`;
          }
          if (edit === 'extra') {
            doc.verificationMethod.push({ ...first, id: `${doc.id}#stranger` });
            doc.assertionMethod.push(`${doc.id}#stranger`);
          }
          body = JSON.stringify(doc);
        }
        res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' }).end(body);
      });
      await new Promise<void>((resolve) => front.listen(frontPort, '127.0.0.1', resolve));
      db = await factory.create();
      rail = await startRail(db, { PUBLIC_URL: origin, OPENRAIL_OUTBOUND_ALLOW: origin, OPENRAIL_DEMO: 'off' }, undefined, {
        runJobs: false,
      });
      await rail.app.listen({ port: railPort, host: '127.0.0.1' });
      const made = await rail.app.inject({ method: 'POST', url: '/api/tenants', headers: owner, payload: { name: 'Alpha' } });
      assert.equal(made.statusCode, 201, made.body);
      ops = await signedInOperator(rail.app, 'on-call', ['ops']);
    });
    after(async () => {
      await rail.stop();
      await new Promise((resolve) => front.close(resolve));
      await db.drop();
    });

    const drift = async (query = '?tenant=alpha') => {
      const res = await rail.app.inject({ method: 'GET', url: `/api/admin/ops/did-drift${query}`, headers: ops });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };

    test('every published document matches the stored keys', async () => {
      const all = await drift('');
      assert.equal(all.ok, true, JSON.stringify(all));
      assert.deepEqual(all.tenants.map((t: { tenant: string }) => t.tenant).sort(), ['alpha', 'root']);
    });

    test('an edited document is found, each difference named', async () => {
      const kids = (await rail.app.inject({ method: 'GET', url: '/api/admin/ops/keys?tenant=alpha', headers: ops })).json().keys;

      edit = 'swap';
      const swapped = (await drift()).tenants[0].documents[0];
      assert.equal(swapped.ok, false);
      assert.equal(swapped.changed.length, 1);
      assert.ok(
        kids.some((k: { kid: string }) => k.kid === swapped.changed[0]),
        'a stored kid, listed with other material',
      );

      edit = 'extra';
      const extra = await drift();
      assert.equal(extra.ok, false);
      assert.deepEqual(extra.tenants[0].documents[0].extra, ['stranger']);
      assert.deepEqual(extra.tenants[0].documents[0].missing, []);

      edit = 'down';
      const down = (await drift()).tenants[0].documents[0];
      assert.equal(down.ok, false);
      assert.match(down.error, /could not be read/);
      edit = 'none';
      assert.equal((await drift()).ok, true);
    });
  });
}
