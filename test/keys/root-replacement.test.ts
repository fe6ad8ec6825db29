/**
 * Replacing the platform root through the four-eyes desk (`ca.replace`, docs/keys.md, "Replacing
 * the platform root"), on each engine, as a deployment that began with sealed keys moves its root
 * into a SoftHSM token: the new root is made in the token and published beside the old one at
 * once; it takes over when the operators said; the certificate job then certifies every key under
 * it and destroys the old root's sealed key; the old anchor stays published, so credentials issued
 * before keep verifying by their certificate chain, and HAIP requests name both authorities.
 * Refusals (a second replacement while one waits, a role that may not, the same operator) change
 * nothing, and a key prepared for an approval that fails is not left in the token.
 */
import 'reflect-metadata'; // before @peculiar/x509 (ChainVerifier), as x509.ts does
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pkcs11js from 'pkcs11js';
import { ChainVerifier, toPem } from '../../src/adapters/crypto/x509.ts';
import type { Clock } from '../../src/core/clock.ts';
import { certificatesOfPem } from '../../src/core/pem.ts';
import { IssuerCertificates } from '../../src/features/verification/issuer-certificates.ts';
import { ROOT_TAKEOVER_MIN_MS } from '../../src/ports/key-certifier.ts';
import { type TestDatabase, testDatabases } from '../helpers/databases.ts';
import { issueOne, PASS_SUBJECT, registerType } from '../helpers/issuance.ts';
import { signedInOperator } from '../helpers/operators.ts';
import { owner, startRail, type TestRail } from '../helpers/rail.ts';
import { countObjects, deleteObjects, type SoftToken, softhsmMissing, softToken } from '../helpers/softhsm.ts';
import { keyFromX5c } from '../helpers/x5c.ts';

const skip = softhsmMissing();
const DAY = 24 * 60 * 60 * 1000;
const HOUR = 60 * 60 * 1000;

/** The anchors a relying party reads from `/.well-known/openrail-ca.pem`, in order, as PEM each. */
const anchorsOf = (pem: string) => certificatesOfPem(pem).map(toPem);
describe('replacing the platform root: a sealed root moved into the token', { skip }, () => {
  let token: SoftToken;
  before(() => {
    token = softToken('openrail-roots');
  });
  after(() => token?.remove());

  for (const factory of testDatabases()) {
    describe(factory.name, () => {
      let db: TestDatabase;
      let rail: TestRail;
      let typeId: string;
      let now = Date.now();
      const clock: Clock = { now: () => now };
      let owner1: { authorization: string };
      let owner2: { authorization: string };

      before(async () => {
        db = await factory.create();
        // The deployment's first start, sealed: its root is made and sealed under the master key.
        const sealed = await startRail(db, { OPENRAIL_DEMO: 'off' }, clock, { runJobs: false });
        await sealed.stop();
        rail = await startRail(db, { ...token.env, OPENRAIL_DEMO: 'off' }, clock, { runJobs: false });
        const made = await rail.app.inject({ method: 'POST', url: '/api/tenants', headers: owner, payload: { name: 'Alpha' } });
        assert.equal(made.statusCode, 201, made.body);
        typeId = (await registerType(rail.app, 'alpha', 'pass')).typeId;
        owner1 = await signedInOperator(rail.app, 'root-one', ['owner']);
        owner2 = await signedInOperator(rail.app, 'root-two', ['owner']);
      });
      after(async () => {
        await rail?.stop();
        await db?.drop();
      });

      const get = async (url: string, headers: Record<string, string> = {}) => rail.app.inject({ method: 'GET', url, headers });
      const post = (url: string, payload: unknown, headers: Record<string, string>) =>
        rail.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });
      const anchors = async () => anchorsOf((await get('/.well-known/openrail-ca.pem')).body);
      const roots = async () => {
        // The owner token: operator sessions end while the test moves the clock by days.
        const health = await get('/api/admin/ops/health', owner);
        assert.equal(health.statusCode, 200, health.body);
        return health.json().components.keys.roots as {
          authorityKeyId: string;
          state: string;
          published: boolean;
          keyDestroyed: boolean;
        }[];
      };
      const rows = () =>
        rail.db
          .selectFrom('certificate_authority')
          .select(['id', 'key_backend', 'sealed_private_key', 'object_label', 'retired_at'])
          .orderBy('active_from')
          .execute();
      const tokenObjects = (label: string) => countObjects(token, [{ type: pkcs11js.CKA_LABEL, value: label }]);
      const privateKeys = () => countObjects(token, [{ type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY }]);
      /** Whether the credential's x5c chain ends at `anchorPem` (Node's OpenSSL, not our code). */
      const chainsTo = (credential: string, anchorPem: string) => {
        try {
          keyFromX5c(credential.split('~')[0] as string, anchorPem, new Date(now));
          return true;
        } catch {
          return false;
        }
      };
      /** The service's own HAIP rule for the issuer's key, given the anchors published now. */
      const certificateProblem = async (credential: string) => {
        const published = (await get('/.well-known/openrail-ca.pem')).body;
        const judge = new IssuerCertificates(
          () => published,
          clock,
          (a) => new ChainVerifier(a),
        );
        const did = (await get('/t/alpha/did.json')).json() as Record<string, unknown>;
        return judge.problem(credential, did);
      };

      let early: { credential: string };
      let secondApproval: string;
      let replacedBy: { authorityKeyId: string; previousAuthorityKeyId: string; takesOverAt: string };

      test('the sealed root, then a replacement asked by one owner and approved by another: made in the token, published at once', async () => {
        const [first] = await anchors();
        assert.ok(first, 'one anchor is published');
        assert.equal((await anchors()).length, 1);
        assert.deepEqual(
          (await rows()).map((r) => [r.id, r.key_backend, r.sealed_private_key !== null]),
          [['platform', 'sealed', true]],
          'the root of the first start is sealed',
        );
        early = await issueOne(rail.app, 'alpha', typeId, PASS_SUBJECT);
        assert.ok(chainsTo(early.credential, first), 'a credential issued now chains to the sealed root');

        // Refusals first: each leaves nothing behind.
        const auditor = await signedInOperator(rail.app, 'root-auditor', ['auditor']);
        const ops = await signedInOperator(rail.app, 'root-ops', ['ops']);
        for (const [who, headers] of [
          ['auditor', auditor],
          ['ops', ops],
        ] as const) {
          const refused = await post('/api/admin/approvals', { action: 'ca.replace', params: {} }, headers);
          assert.equal(refused.statusCode, 403, `${who}: ${refused.body}`);
        }
        const bad = await post('/api/admin/approvals', { action: 'ca.replace', params: { takeOverInDays: 400 } }, owner1);
        assert.equal(bad.statusCode, 400, bad.body);

        const filed = await post('/api/admin/approvals', { action: 'ca.replace', params: { takeOverInDays: 2 } }, owner1);
        assert.equal(filed.statusCode, 201, filed.body);
        const approvalId = filed.json().approval.approvalId;
        // A second one, filed while nothing waits yet: approved after the first, it must fail (next test).
        const second = await post('/api/admin/approvals', { action: 'ca.replace', params: {} }, owner1);
        assert.equal(second.statusCode, 201, second.body);
        secondApproval = second.json().approval.approvalId;
        const self = await post(`/api/admin/approvals/${approvalId}/approve`, {}, owner1);
        assert.equal(self.json().error, 'same_operator');
        assert.equal((await rows()).length, 1, 'a refused approval made no root');

        const approved = await post(`/api/admin/approvals/${approvalId}/approve`, {}, owner2);
        assert.equal(approved.statusCode, 200, approved.body);
        replacedBy = approved.json().approval.result;
        assert.equal(Date.parse(replacedBy.takesOverAt), now + 2 * DAY);

        const stored = await rows();
        assert.deepEqual(
          stored.map((r) => [r.id, r.key_backend, r.sealed_private_key !== null]),
          [
            ['platform', 'sealed', true],
            ['root-2', 'pkcs11', false],
          ],
          'the new root is made in the token: no private key in its row',
        );
        assert.equal(tokenObjects(String(stored[1]?.object_label)), 2, 'its private and public objects are in the token');

        const published = await anchors();
        assert.equal(published.length, 2, 'both anchors are published from the approval on');
        assert.equal(published[0], first, 'the root in force first');
        assert.deepEqual(
          (await roots()).map((r) => [r.authorityKeyId, r.state, r.published, r.keyDestroyed]),
          [
            [replacedBy.previousAuthorityKeyId, 'in_force', true, false],
            [replacedBy.authorityKeyId, 'waiting', true, false],
          ],
        );
        const audit = await rail.db
          .selectFrom('audit_log')
          .select(['target', 'detail'])
          .where('action', '=', 'ca.replaced')
          .execute();
        assert.deepEqual(
          audit.map((a) => [a.target, JSON.parse(String(a.detail)).approvalId]),
          [[replacedBy.authorityKeyId, approvalId]],
          'ca.replaced is audited',
        );

        // Until it takes over, keys are still certified by the old root.
        const meanwhile = await issueOne(rail.app, 'alpha', typeId, PASS_SUBJECT);
        assert.ok(chainsTo(meanwhile.credential, first));
      });

      test('one replacement at a time: asked for while one waits, refused; approved while one waits, refused with its key destroyed', async () => {
        const refused = await post('/api/admin/approvals', { action: 'ca.replace', params: {} }, owner1);
        assert.equal(refused.statusCode, 409, refused.body);
        assert.equal(refused.json().error, 'root_replacement_pending');

        const keysBefore = privateKeys();
        const rowsBefore = await rows();
        const late = await post(`/api/admin/approvals/${secondApproval}/approve`, {}, owner2);
        assert.equal(late.statusCode, 409, late.body);
        assert.equal(late.json().error, 'root_replacement_pending');
        assert.deepEqual(await rows(), rowsBefore, 'no root was stored');
        assert.equal(privateKeys(), keysBefore, 'the key made for it was destroyed, not left in the token');
        const still = await get(`/api/admin/approvals/${secondApproval}`, owner1);
        assert.equal(still.json().state, 'pending', 'the approval stays pending, as any refused approval does');
      });

      test('it takes over when the operators said: every key certified again under it, the old root’s sealed key destroyed, its anchor still published', async () => {
        const [oldAnchor] = await anchors();
        // Before its time nothing changes (past the three minutes every process needs to learn of it).
        now += ROOT_TAKEOVER_MIN_MS;
        await rail.jobs.tick();
        assert.equal((await roots()).filter((r) => r.state === 'in_force')[0]?.authorityKeyId, replacedBy.previousAuthorityKeyId);

        now = Date.parse(replacedBy.takesOverAt) + HOUR;
        await rail.jobs.tick();
        const published = await anchors();
        assert.equal(published.length, 2);
        assert.equal(published[1], oldAnchor, 'the replaced root stays published, after the one in force');
        const newAnchor = published[0] as string;
        assert.deepEqual(
          (await roots()).map((r) => [r.authorityKeyId, r.state, r.published, r.keyDestroyed]),
          [
            [replacedBy.previousAuthorityKeyId, 'replaced', true, true],
            [replacedBy.authorityKeyId, 'in_force', true, false],
          ],
        );
        const stored = await rows();
        assert.deepEqual(
          stored.map((r) => [r.id, r.sealed_private_key, r.retired_at !== null]),
          [
            ['platform', null, true],
            ['root-2', null, false],
          ],
          'no row holds a private key of a root any more',
        );

        const late = await issueOne(rail.app, 'alpha', typeId, PASS_SUBJECT);
        assert.ok(chainsTo(late.credential, newAnchor), 'a credential issued now chains to the new root');
        assert.ok(!chainsTo(late.credential, oldAnchor as string));
        assert.ok(chainsTo(early.credential, oldAnchor as string), 'one issued before still chains to the old root');
        // The service's own HAIP rule trusts both published anchors; given only the old one, it refuses the new chain.
        assert.equal(await certificateProblem(early.credential), undefined);
        assert.equal(await certificateProblem(late.credential), undefined);
        const onlyOld = new IssuerCertificates(
          () => oldAnchor as string,
          clock,
          (a) => new ChainVerifier(a),
        );
        const did = (await get('/t/alpha/did.json')).json() as Record<string, unknown>;
        assert.ok(await onlyOld.problem(late.credential, did), 'the check bites');

        // A HAIP request names both authorities, so a wallet offers credentials of either.
        const { vct } = JSON.parse(Buffer.from(early.credential.split('.')[1] as string, 'base64url').toString('utf8'));
        const opened = await post(
          '/verify/request',
          { vct, claims: ['holder_name'], nonce: 'n-0123456789abcdef', aud: 'https://rp.example.test', profile: 'haip' },
          {},
        );
        assert.equal(opened.statusCode, 201, opened.body);
        const jws = (await get(`/oid4vp/request/${opened.json().transactionId}`)).body;
        const payload = JSON.parse(Buffer.from(jws.split('.')[1] as string, 'base64url').toString('utf8'));
        assert.deepEqual(payload.dcql_query.credentials[0].trusted_authorities, [
          { type: 'aki', values: [replacedBy.authorityKeyId, replacedBy.previousAuthorityKeyId] },
        ]);
      });

      test('a year and a day after the takeover the old anchor is no longer published', async () => {
        now = Date.parse(replacedBy.takesOverAt) + 367 * DAY;
        const published = await anchors();
        assert.equal(published.length, 1);
        assert.deepEqual(
          (await roots()).map((r) => [r.state, r.published]),
          [
            ['replaced', false],
            ['in_force', true],
          ],
        );
      });

      test('a root whose key is lost from the token: the service still starts and says so; a replacement lets keys be certified again', async () => {
        const inForce = (await rows()).find((r) => r.id === 'root-2');
        assert.equal(tokenObjects(String(inForce?.object_label)), 2);
        deleteObjects(token, String(inForce?.object_label));
        await rail.stop();
        const backupDir = mkdtempSync(join(tmpdir(), 'openrail-root-backups-'));
        after(() => rmSync(backupDir, { recursive: true, force: true }));
        const env = { ...token.env, OPENRAIL_DEMO: 'off', OPENRAIL_BACKUP_DIR: backupDir };
        rail = await startRail(db, env, clock, { runJobs: false });
        const keys = (await get('/api/admin/ops/health', owner)).json().components.keys;
        assert.deepEqual([keys.state, keys.rootKeyPresent], ['down', false]);
        assert.match(keys.note, /platform root in force has no key/);
        /** A backup taken now and the keys check of the drill the job makes of it. */
        const drilledKeys = async () => {
          const taken = await post('/api/admin/ops/backup', {}, owner);
          assert.equal(taken.statusCode, 200, taken.body);
          now += 60 * 1000;
          await rail.jobs.tick();
          const drills = (await get(`/api/admin/ops/backup-drills?backupId=${taken.json().backupId}`, owner)).json().drills;
          return (drills[0].checks as { check: string; ok: boolean; detail: string }[]).find((c) => c.check === 'keys');
        };
        const lost = await drilledKeys();
        assert.equal(lost?.ok, false);
        assert.match(
          String(lost?.detail),
          new RegExp(`platform root ${replacedBy.authorityKeyId} \\(object ${inForce?.object_label}`),
        );

        const [ownerA, ownerB] = [
          await signedInOperator(rail.app, 'root-three', ['owner']),
          await signedInOperator(rail.app, 'root-four', ['owner']),
        ];
        const approve = async (action: string, params: Record<string, unknown>) => {
          const filed = await post('/api/admin/approvals', { action, params }, ownerA);
          assert.equal(filed.statusCode, 201, filed.body);
          return post(`/api/admin/approvals/${filed.json().approval.approvalId}/approve`, {}, ownerB);
        };
        const before = privateKeys();
        const rotation = await approve('key.rotate', { tenant: 'alpha' });
        assert.equal(rotation.statusCode, 503, rotation.body);
        assert.equal(rotation.json().error, 'signing_unavailable');
        assert.equal(privateKeys(), before, 'the key made for a rotation that could not be certified is destroyed');

        const replaced = await approve('ca.replace', { takeOverInDays: 0 });
        assert.equal(replaced.statusCode, 200, replaced.body);
        assert.equal(Date.parse(replaced.json().approval.result.takesOverAt), now + ROOT_TAKEOVER_MIN_MS);
        now += ROOT_TAKEOVER_MIN_MS;
        const rotated = await approve('key.rotate', { tenant: 'alpha' });
        assert.equal(rotated.statusCode, 200, rotated.body);
        const healthy = (await get('/api/admin/ops/health', owner)).json().components.keys;
        assert.equal(healthy.rootKeyPresent, true);
        // The lost root still holds certificates until the certificate job certifies every key again.
        now += HOUR;
        await rail.jobs.tick();
        const drilled = await drilledKeys();
        assert.equal(drilled?.ok, true, drilled?.detail);
        const late = await issueOne(rail.app, 'alpha', typeId, PASS_SUBJECT);
        assert.ok(chainsTo(late.credential, (await anchors())[0] as string), 'issued under the newest root');
      });
    });
  }
});
