import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { digest, ES256 } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { decodeJwt, decodeProtectedHeader, type JWK } from 'jose';
import { type TestDatabase, testDatabases } from '../../../../test/helpers/databases.ts';
import type { HolderKey } from '../../../../test/helpers/holder.ts';
import { issueOne, PASS_SUBJECT, registerType } from '../../../../test/helpers/issuance.ts';
import { signedInOperator } from '../../../../test/helpers/operators.ts';
import { present, verifiedOn } from '../../../../test/helpers/presentation.ts';
import { owner, startRail, type TestRail } from '../../../../test/helpers/rail.ts';
import type { Clock } from '../../../core/clock.ts';
import { verifyPresentation } from '../../../core/verifier/verify-presentation.ts';
import { ACTIVE_KEY_TTL_MS } from '../../../ports/key-store.ts';
import { RETIREMENT } from './rotation.ts';

const kidOf = (jwt: string) =>
  String(decodeProtectedHeader(jwt.split('~')[0] as string).kid)
    .split('#')
    .pop();

for (const factory of testDatabases()) {
  describe(`key rotation through the four-eyes desk (${factory.name})`, () => {
    let db: TestDatabase;
    // Two processes on one database: the second never saw the rotation happen.
    let first: TestRail;
    let second: TestRail;
    let now = Date.now();
    const clock: Clock = { now: () => now };
    let ops1: { authorization: string };
    let ops2: { authorization: string };
    let issuedBefore: { credential: string; key: HolderKey };
    let vct: string;

    before(async () => {
      db = await factory.create();
      first = await startRail(db, { OPENRAIL_DEMO: 'off' }, clock, { runJobs: false });
      second = await startRail(db, { OPENRAIL_DEMO: 'off' }, clock, { runJobs: false });
      const made = await first.app.inject({ method: 'POST', url: '/api/tenants', headers: owner, payload: { name: 'Alpha' } });
      assert.equal(made.statusCode, 201, made.body);
      await registerType(first.app, 'alpha', 'pass');
      ops1 = await signedInOperator(first.app, 'ops-one', ['ops']);
      ops2 = await signedInOperator(first.app, 'ops-two', ['ops']);
      issuedBefore = await issueOne(first.app, 'alpha', 'pass', PASS_SUBJECT);
      vct = (decodeJwt(issuedBefore.credential.split('~')[0] as string) as { vct: string }).vct;
    });
    after(async () => {
      await first.stop();
      await second.stop();
      await db.drop();
    });

    const post = (rail: TestRail, url: string, payload: unknown, headers: Record<string, string>) =>
      rail.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });
    const assertionKids = async (rail: TestRail) => {
      const doc = (await rail.app.inject({ method: 'GET', url: '/t/alpha/did.json' })).json() as { assertionMethod: string[] };
      return doc.assertionMethod.map((m) => m.split('#').pop()).sort();
    };
    const statusToken = async (rail: TestRail) => (await rail.app.inject({ method: 'GET', url: '/t/alpha/status/1' })).body;
    /** A hosted verification of `issued` opened and answered on `rail`: its outcome. */
    const verifies = (rail: TestRail, issued: { credential: string; key: HolderKey }) => verifiedOn(rail.app, issued);

    test('a rotation asked by one operator and approved by another: the new key signs, both are published, old credentials verify', async () => {
      const [oldKid] = await assertionKids(first);
      assert.equal(kidOf(issuedBefore.credential), oldKid);
      assert.equal(kidOf(await statusToken(second)), oldKid, 'the second process signed its list before');

      const unknown = await post(first, '/api/admin/approvals', { action: 'key.rotate', params: { tenant: 'nobody' } }, ops1);
      assert.equal(unknown.statusCode, 404, unknown.body);
      const asAuditor = await post(
        first,
        '/api/admin/approvals',
        { action: 'key.rotate', params: { tenant: 'alpha' } },
        await signedInOperator(first.app, 'auditor', ['auditor']),
      );
      assert.equal(asAuditor.statusCode, 403, asAuditor.body);
      assert.deepEqual(await assertionKids(first), [oldKid], 'a refused request changes nothing');

      const filed = await post(first, '/api/admin/approvals', { action: 'key.rotate', params: { tenant: 'alpha' } }, ops1);
      assert.equal(filed.statusCode, 201, filed.body);
      const approvalId = filed.json().approval.approvalId;
      const self = await post(first, `/api/admin/approvals/${approvalId}/approve`, {}, ops1);
      assert.equal(self.json().error, 'same_operator');
      const approved = await post(second, `/api/admin/approvals/${approvalId}/approve`, {}, ops2);
      assert.equal(approved.statusCode, 200, approved.body);
      const { kid: newKid, previousKid, listsResigned } = approved.json().approval.result;
      assert.equal(previousKid, oldKid);
      assert.equal(listsResigned, 1);

      assert.deepEqual(await assertionKids(first), [oldKid, newKid].sort(), 'the DID document lists both');
      // The first process read the old key as active before the rotation: it keeps it at most
      // ACTIVE_KEY_TTL_MS (the old key stays published meanwhile), then signs with the new one.
      now += ACTIVE_KEY_TTL_MS + 1;
      const after = await issueOne(first.app, 'alpha', 'pass', PASS_SUBJECT);
      assert.equal(kidOf(after.credential), newKid, 'the new key signs');
      assert.equal(kidOf(await statusToken(second)), newKid, 'each list is signed again on every process');
      for (const rail of [first, second]) {
        assert.equal((await verifies(rail, issuedBefore)).ok, true, 'a credential issued before verifies after');
        assert.equal((await verifies(rail, after)).ok, true);
      }
      // And outside the service: the reference verifier and the OWF SD-JWT VC library, each given
      // the DID document and status list as published after the rotation.
      const didDocument = (await first.app.inject({ method: 'GET', url: '/t/alpha/did.json' })).json() as {
        verificationMethod: { id: string; publicKeyJwk: JWK }[];
      };
      const statusList = await statusToken(second);
      const nonce = randomBytes(16).toString('base64url');
      const reference = verifyPresentation({
        presentation: await present(issuedBefore.credential, issuedBefore.key, ['holder_name'], {
          aud: 'https://shop.example',
          nonce,
          iat: Math.floor(now / 1000),
        }),
        didDocument,
        statusList,
        expected: { aud: 'https://shop.example', nonce, vct, claims: ['holder_name'] },
        now: Math.floor(now / 1000),
      });
      assert.equal(reference.verdict, 'accept', JSON.stringify(reference.failure));
      const keyOf = (kid: unknown) => {
        const method = didDocument.verificationMethod.find((m) => m.id.endsWith(`#${String(kid)}`));
        assert.ok(method, `the DID document publishes ${String(kid)}`);
        return method.publicKeyJwk;
      };
      // The library's status verifier is not told the token's kid: it is given the key the token names.
      const statusKey = keyOf(decodeProtectedHeader(statusList).kid);
      const owf = new SDJwtVcInstance({
        hasher: digest,
        verifier: await ES256.getVerifier(keyOf(kidOf(issuedBefore.credential))),
        statusVerifier: await ES256.getVerifier(statusKey),
        statusListFetcher: async () => statusList,
      });
      const verified = await owf.verify(issuedBefore.credential, { currentDate: Math.floor(now / 1000) });
      assert.equal(verified.payload.vct, vct, 'the OWF library verifies it, status list included');
      const event = await first.db.selectFrom('outbox').selectAll().where('type', '=', 'key.rotated').executeTakeFirstOrThrow();
      assert.deepEqual(JSON.parse(event.data), {
        did: 'did:web:rail.example.test:t:alpha',
        kid: newKid,
        previousKid: oldKid,
        approvalId,
      });
      assert.equal(event.tenant, 'alpha');

      const state = (await first.app.inject({ method: 'GET', url: '/api/admin/ops/rotation', headers: ops1 })).json();
      assert.deepEqual(
        state.awaitingRetirement.map((k: { kid: string }) => k.kid),
        [oldKid],
      );
      assert.ok(state.awaitingRetirement[0].outstanding >= 1);
      assert.equal(state.rotations[0].kid, newKid);
      assert.equal(state.rotations[0].previousKid, oldKid);

      // The old key stays published while a credential it signed is live; once none is, the job retires it.
      now += 60_000;
      await first.jobs.tick();
      assert.deepEqual(await assertionKids(first), [oldKid, newKid].sort(), 'kept while a credential it signed is live');
      for (const issued of [issuedBefore, after]) {
        const status = (decodeJwt(issued.credential.split('~')[0] as string) as { status: { status_list: unknown } }).status
          .status_list;
        const revoked = await post(first, '/api/admin/ops/revoke', { tenant: 'alpha', status, reason: 'rotation test' }, ops1);
        assert.equal(revoked.statusCode, 200, revoked.body);
      }
      now += RETIREMENT.everyMs;
      await first.jobs.tick();
      assert.deepEqual(await assertionKids(second), [newKid], 'retired once nothing it signed can be presented');
      const keys = (await first.app.inject({ method: 'GET', url: '/api/admin/ops/keys?tenant=alpha', headers: ops1 })).json()
        .keys;
      const old = keys.find((k: { kid: string }) => k.kid === oldKid);
      assert.ok(old.supersededAt && old.retiredAt && !old.inUse);
      assert.equal(keys.find((k: { kid: string }) => k.kid === newKid).inUse, true);
    });
  });
}
