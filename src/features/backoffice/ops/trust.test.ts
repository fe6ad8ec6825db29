import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import { type TestDatabase, testDatabases } from '../../../../test/helpers/databases.ts';
import type { HolderKey } from '../../../../test/helpers/holder.ts';
import { issueOne, PASS_SUBJECT, registerType } from '../../../../test/helpers/issuance.ts';
import { signedInOperator } from '../../../../test/helpers/operators.ts';
import { presentAndRead } from '../../../../test/helpers/presentation.ts';
import { owner, startRail, startRailOnSocket, type TestRail } from '../../../../test/helpers/rail.ts';

for (const factory of testDatabases()) {
  describe(`the trust registry (${factory.name})`, () => {
    // Another deployment, on a real socket, whose tenant issues what this one is asked to trust.
    let elsewhereDb: TestDatabase;
    let elsewhere: TestRail;
    let origin: string;
    // This deployment, as two processes on one database: a suspension holds on both at once.
    let db: TestDatabase;
    let first: TestRail;
    let second: TestRail;
    let ops: { authorization: string };
    let did: string;
    let vct: string;
    let issued: { credential: string; key: HolderKey };

    before(async () => {
      elsewhereDb = await factory.create();
      ({ rail: elsewhere, origin } = await startRailOnSocket(elsewhereDb, { OPENRAIL_DEMO: 'off' }));
      const made = await elsewhere.app.inject({ method: 'POST', url: '/api/tenants', headers: owner, payload: { name: 'Acme' } });
      assert.equal(made.statusCode, 201, made.body);
      did = made.json().did;
      await registerType(elsewhere.app, 'acme', 'pass');
      issued = await issueOne(elsewhere.app, 'acme', 'pass', PASS_SUBJECT, origin);
      vct = (decodeJwt(issued.credential.split('~')[0] as string) as { vct: string }).vct;

      db = await factory.create();
      const env = { OPENRAIL_OUTBOUND_ALLOW: origin, OPENRAIL_DEMO: 'off' };
      first = await startRail(db, env, undefined, { runJobs: false });
      second = await startRail(db, env, undefined, { runJobs: false });
      ops = await signedInOperator(first.app, 'on-call', ['ops']);
    });
    after(async () => {
      await first.stop();
      await second.stop();
      await db.drop();
      await elsewhere.stop();
      await elsewhereDb.drop();
    });

    const trust = (rail: TestRail, path: string, payload: Record<string, unknown>, headers = ops) =>
      rail.app.inject({ method: 'POST', url: `/api/admin/ops/trust/${path}`, headers, payload });
    const open = (rail: TestRail, body: Record<string, unknown> = {}) =>
      rail.app.inject({
        method: 'POST',
        url: '/verify/request',
        payload: {
          vct,
          issuer: did,
          claims: ['holder_name'],
          nonce: randomBytes(16).toString('base64url'),
          aud: 'https://shop.example',
          ...body,
        },
      });
    const answer = (created: { transactionId: string; resultToken: string }, answerer: TestRail) =>
      presentAndRead(answerer.app, created, issued, ['holder_name']);
    /** Opens on `opener`, presents, and reads the outcome on `answerer`. */
    const verify = async (opener: TestRail, answerer: TestRail) => {
      const created = await open(opener);
      assert.equal(created.statusCode, 201, created.body);
      return answer(created.json(), answerer);
    };

    test('an issuer outside the registry cannot be asked for', async () => {
      const res = await open(first);
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(res.json().error, 'untrusted_issuer');
    });

    test('adding an issuer resolves its DID document; its own tenants and unknown documents are refused and change nothing', async () => {
      const own = await trust(first, 'add', { did: 'did:web:rail.example.test:t:alpha', label: 'Ours' });
      assert.equal(own.statusCode, 409, own.body);
      assert.equal(own.json().error, 'issuer_is_tenant');
      const nowhere = await trust(first, 'add', { did: `${did}-nowhere`, label: 'Nowhere' });
      assert.equal(nowhere.statusCode, 502, nowhere.body);
      assert.equal(nowhere.json().error, 'did_unresolvable');
      const asAuditor = await trust(
        first,
        'add',
        { did, label: 'Acme' },
        await signedInOperator(first.app, 'auditor', ['auditor']),
      );
      assert.equal(asAuditor.statusCode, 403);
      assert.deepEqual((await first.app.inject({ method: 'GET', url: '/api/admin/ops/trust', headers: ops })).json().issuers, []);

      const added = await trust(first, 'add', { did, label: 'Acme' });
      assert.equal(added.statusCode, 200, added.body);
      const body = added.json();
      assert.equal(body.ok, true);
      assert.equal(typeof body.auditSeq, 'number');
      assert.equal(body.issuer.state, 'active');
      assert.ok(body.issuer.keys.length >= 1 && body.issuer.keys.every((k: string) => k.startsWith(`${did}#`)));
      const again = await trust(first, 'add', { did, label: 'Acme' });
      assert.equal(again.json().error, 'issuer_known');
    });

    test('a trusted issuer’s credential verifies; suspended, it verifies as untrusted on the next request of either process', async () => {
      const accepted = await verify(first, second);
      assert.equal(accepted.ok, true, JSON.stringify(accepted));
      assert.equal(accepted.presentation.issuer, did);
      assert.deepEqual(accepted.presentation.claims, { holder_name: PASS_SUBJECT.holder_name });

      // Opened while trusted, answered after the suspension: refused with the named link.
      const pending = await open(second);
      assert.equal(pending.statusCode, 201, pending.body);
      const suspended = await trust(second, 'suspend', { did, reason: 'key compromise reported' });
      assert.equal(suspended.statusCode, 200, suspended.body);
      assert.equal(suspended.json().issuer.state, 'suspended');
      for (const rail of [first, second]) {
        const refused = await open(rail);
        assert.equal(refused.statusCode, 403, refused.body);
        assert.equal(refused.json().error, 'untrusted_issuer');
      }
      const outcome = await answer(pending.json(), first);
      assert.equal(outcome.ok, false);
      assert.equal(outcome.error, 'untrusted_issuer');
      assert.equal(outcome.link, 'trust');

      const twice = await trust(first, 'suspend', { did, reason: 'again' });
      assert.equal(twice.statusCode, 409);
      assert.equal(twice.json().error, 'issuer_state');
    });

    test('the console removes and restores on the same registry, and a restored issuer verifies again', async () => {
      const consolePost = (rail: TestRail, path: string, payload: Record<string, unknown>) =>
        rail.app.inject({ method: 'POST', url: `/api/trust/${path}`, headers: ops, payload });
      const removed = await consolePost(first, 'remove', { did, reason: 'contract ended' });
      assert.equal(removed.statusCode, 200, removed.body);
      assert.equal(removed.json().issuer.state, 'removed');
      const listed = (await second.app.inject({ method: 'GET', url: '/api/admin/ops/trust?state=removed', headers: ops })).json();
      assert.deepEqual(
        listed.issuers.map((i: { did: string }) => i.did),
        [did],
      );
      const restored = await consolePost(second, 'restore', { did });
      assert.equal(restored.statusCode, 200, restored.body);
      assert.equal(restored.json().issuer.state, 'active');
      assert.equal((await verify(second, first)).ok, true);
      const unknown = await consolePost(first, 'remove', { did: 'did:web:unknown.example', reason: 'never there' });
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.json().error, 'unknown_issuer');
    });
  });
}
