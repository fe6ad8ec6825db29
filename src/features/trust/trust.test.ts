import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { calculateJwkThumbprint, importJWK, type JWK } from 'jose';
import { type TestDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { owner, railOn, startRail, stopRail, type TestRail } from '../../../test/helpers/rail.ts';
import { BUILD_INFO_FILE, hashShippedFiles, type RecordedBuild, shippedBuildAt } from '../../adapters/fs/source-files.ts';
import { APP_ROOT } from '../../compose.ts';
import { sourceDigest } from '../../core/source-digest.ts';
import { buildReport } from './build-provenance.ts';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;
const SHA256 = /^sha256:[0-9a-f]{64}$/;

type VerificationMethod = { id: string; type: string; controller: string; publicKeyJwk: JWK };
type DidDoc = {
  '@context': unknown;
  id: string;
  verificationMethod: VerificationMethod[];
  assertionMethod: string[];
  authentication?: string[];
};

async function checkVerificationMethods(doc: DidDoc): Promise<void> {
  assert.ok(Array.isArray(doc.verificationMethod) && doc.verificationMethod.length > 0);
  for (const vm of doc.verificationMethod) {
    assert.equal(vm.type, 'JsonWebKey2020');
    assert.equal(vm.controller, doc.id);
    assert.deepEqual(Object.keys(vm.publicKeyJwk).sort(), ['crv', 'kty', 'x', 'y'], 'public parts only');
    assert.equal(vm.publicKeyJwk.kty, 'EC');
    assert.equal(vm.publicKeyJwk.crv, 'P-256');
    assert.equal(Buffer.from(String(vm.publicKeyJwk.x), 'base64url').length, 32);
    assert.equal(Buffer.from(String(vm.publicKeyJwk.y), 'base64url').length, 32);
    await importJWK(vm.publicKeyJwk, 'ES256'); // a point on the curve
    assert.equal(vm.id, `${doc.id}#${await calculateJwkThumbprint(vm.publicKeyJwk, 'sha256')}`, 'fragment = RFC 7638 thumbprint');
  }
}

for (const factory of testDatabases()) {
  describe(`trust artifacts over HTTP (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    before(async () => {
      ({ db, rail } = await railOn(factory));
    });
    after(() => stopRail(rail, db));

    const get = (url: string, app = rail.app) => app.inject({ method: 'GET', url });
    const activeKid = async (tenant: string, purpose: 'issuer' | 'verifier') => {
      const rows = await rail.db
        .selectFrom('signing_keys')
        .select('kid')
        .where('tenant', '=', tenant)
        .where('purpose', '=', purpose)
        .where('retired_at', 'is', null)
        .execute();
      assert.equal(rows.length, 1, `one active ${purpose} key for ${tenant}`);
      return rows[0]?.kid as string;
    };

    describe('GET /.well-known/did.json', () => {
      test('is the platform DID document with the issuer and verifier keys', async () => {
        const res = await get('/.well-known/did.json');
        assert.equal(res.statusCode, 200, res.body);
        assert.match(String(res.headers['content-type']), /^application\/(did\+)?json\b/);
        assert.equal(res.headers['access-control-allow-origin'], '*');
        const doc = res.json() as DidDoc;
        assert.equal(doc.id, 'did:web:rail.example.test');
        assert.ok(Array.isArray(doc['@context']), '@context is an array');
        assert.equal((doc['@context'] as unknown[])[0], 'https://www.w3.org/ns/did/v1');
        await checkVerificationMethods(doc);

        const issuer = `${doc.id}#${await activeKid('root', 'issuer')}`;
        const verifier = `${doc.id}#${await activeKid('root', 'verifier')}`;
        assert.notEqual(issuer, verifier, 'the verifier identity is a different key');
        assert.deepEqual(doc.assertionMethod, [issuer]);
        assert.deepEqual(doc.authentication, [verifier]);
        const ids = doc.verificationMethod.map((vm) => vm.id);
        assert.deepEqual([...ids].sort(), [issuer, verifier].sort(), 'every referenced key is described, once');
        assert.ok(!res.body.includes('"d"'), 'no private key material');
      });

      test('is CORS-open on errors too, and identical on every call', async () => {
        const a = await get('/.well-known/did.json');
        const b = await get('/.well-known/did.json');
        assert.equal(a.body, b.body);
        const missing = await get('/t/no-such-tenant/did.json');
        assert.equal(missing.statusCode, 404);
        assert.equal(missing.json().error, 'unknown_tenant');
        assert.equal(missing.headers['access-control-allow-origin'], '*');
      });

      test('follows PUBLIC_URL: a port is percent-encoded, tenants get :t:<slug>', async () => {
        const local = await startRail(db, { PUBLIC_URL: 'http://localhost:8443' });
        try {
          const platform = (await get('/.well-known/did.json', local.app)).json() as DidDoc;
          assert.equal(platform.id, 'did:web:localhost%3A8443');
          await checkVerificationMethods(platform);
          assert.ok(platform.assertionMethod.every((id) => id.startsWith('did:web:localhost%3A8443#')));

          const demo = await get('/t/demo-transit/did.json', local.app);
          assert.equal(demo.statusCode, 200, demo.body);
          const demoDoc = demo.json() as DidDoc;
          assert.equal(demoDoc.id, 'did:web:localhost%3A8443:t:demo-transit');
          await checkVerificationMethods(demoDoc);
          assert.deepEqual(demoDoc.assertionMethod, [`${demoDoc.id}#${await activeKid('demo-transit', 'issuer')}`]);

          const created = await local.app.inject({
            method: 'POST',
            url: '/api/tenants',
            headers: owner,
            payload: { name: 'Local Port' },
          });
          assert.equal(created.statusCode, 201, created.body);
          assert.equal(created.json().did, `did:web:localhost%3A8443:t:${created.json().slug}`);
          const tenantDoc = (await get(`/t/${created.json().slug}/did.json`, local.app)).json() as DidDoc;
          assert.equal(tenantDoc.id, created.json().did);
        } finally {
          await local.stop();
        }
        // The default rail keeps its own host: the DID is derived from PUBLIC_URL, not stored.
        assert.equal(((await get('/.well-known/did.json')).json() as DidDoc).id, 'did:web:rail.example.test');
      });
    });

    describe('GET /.well-known/security.txt', () => {
      const parse = (body: string) =>
        body
          .split(/\r?\n/)
          .filter((l) => l && !l.startsWith('#'))
          .map((l) => {
            const i = l.indexOf(':');
            return { field: l.slice(0, i), value: l.slice(i + 1).trim() };
          });

      test('is RFC 9116 plain text with contact, one future Expires and the canonical URL', async () => {
        const res = await get('/.well-known/security.txt');
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
        const fields = parse(res.body);
        const contacts = fields.filter((f) => f.field === 'Contact');
        assert.ok(contacts.length >= 1, res.body);
        for (const c of contacts) assert.match(c.value, /^(mailto:|https:|tel:)\S+$/);
        const expires = fields.filter((f) => f.field === 'Expires');
        assert.equal(expires.length, 1, 'exactly one Expires');
        const when = expires[0]?.value ?? '';
        assert.match(when, RFC3339);
        const at = Date.parse(when);
        assert.ok(at > Date.now(), 'Expires lies in the future');
        assert.ok(at < Date.now() + 366 * 24 * 3600 * 1000, 'RFC 9116 2.5.5: less than a year ahead');
        assert.deepEqual(
          fields.filter((f) => f.field === 'Canonical').map((f) => f.value),
          ['https://rail.example.test/.well-known/security.txt'],
        );
        for (const f of fields) assert.match(f.field, /^[A-Za-z-]+$/, `a field line: ${f.field}`);
      });

      test('takes its contacts and Expires from OPENRAIL_SECURITY_CONTACT and OPENRAIL_SECURITY_EXPIRES', async () => {
        const configured = await startRail(db, {
          OPENRAIL_SECURITY_CONTACT: 'mailto:a@b.example,https://b.example/sec',
          OPENRAIL_SECURITY_EXPIRES: '2031-01-02T03:04:05Z',
        });
        try {
          const res = await get('/.well-known/security.txt', configured.app);
          assert.equal(res.statusCode, 200);
          assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
          const fields = parse(res.body);
          assert.deepEqual(
            fields.filter((f) => f.field === 'Contact').map((f) => f.value),
            ['mailto:a@b.example', 'https://b.example/sec'],
          );
          assert.deepEqual(
            fields.filter((f) => f.field === 'Expires').map((f) => f.value),
            ['2031-01-02T03:04:05Z'],
          );
        } finally {
          await configured.stop();
        }
        // The default rail is unaffected.
        assert.ok(!(await get('/.well-known/security.txt')).body.includes('b.example'));
      });
    });

    describe('GET /build', () => {
      test('reports the recorded and observed source digests of this instance', async () => {
        const observedBefore = sourceDigest(hashShippedFiles(APP_ROOT));
        const res = await get('/build');
        const observedAfter = sourceDigest(hashShippedFiles(APP_ROOT));
        assert.equal(res.statusCode, 200, res.body);
        const b = res.json();
        assert.deepEqual(Object.keys(b).sort(), [
          'attestation',
          'commit',
          'divergence',
          'matches',
          'observedSourceDigest',
          'sourceDigest',
        ]);
        assert.equal(typeof b.commit, 'string');
        assert.ok(b.commit.length > 0);
        assert.match(b.sourceDigest, /^(sha256:[0-9a-f]{64}|unrecorded)$/);
        assert.match(b.observedSourceDigest, SHA256);
        // Recomputed from the files on disk now (others may be editing them, hence before or after).
        assert.ok([observedBefore, observedAfter].includes(b.observedSourceDigest), b.observedSourceDigest);
        assert.equal(typeof b.matches, 'boolean');
        assert.deepEqual(Object.keys(b.divergence).sort(), ['changed', 'extra', 'missing']);
        for (const n of Object.values(b.divergence)) assert.ok(Number.isInteger(n) && (n as number) >= 0, String(n));
        const { missing, changed, extra } = b.divergence as { missing: number; changed: number; extra: number };
        assert.equal(b.matches, b.sourceDigest === b.observedSourceDigest && missing + changed + extra === 0);
        assert.deepEqual(Object.keys(b.attestation).sort(), ['available', 'reason']);
        assert.equal(b.attestation.available, false);
        assert.equal(typeof b.attestation.reason, 'string');
        assert.ok(b.attestation.reason.length > 0);
      });
    });

    describe('GET /readyz', () => {
      test('is 200 ready with every part ok, and counts signing attempts', async () => {
        const first = await get('/readyz');
        const second = await get('/readyz');
        for (const res of [first, second]) {
          assert.equal(res.statusCode, 200, res.body);
          const { status, readiness } = res.json();
          assert.equal(status, 'ready');
          assert.deepEqual(Object.keys(readiness).sort(), ['db', 'issuerIdentity', 'signing', 'verifierIdentity']);
          for (const part of ['db', 'signing', 'issuerIdentity', 'verifierIdentity']) {
            assert.equal(readiness[part].ok, true, part);
            assert.equal(readiness[part].required, true, part);
          }
          assert.equal(readiness.signing.state, 'ok');
          assert.equal(typeof readiness.signing.latencyMs, 'number');
          assert.ok(readiness.signing.latencyMs >= 0);
          assert.equal(readiness.signing.failures, 0);
        }
        const a = first.json().readiness.signing.attempts;
        assert.ok(Number.isInteger(a) && a >= 1);
        assert.equal(second.json().readiness.signing.attempts, a + 1, 'one attempt per call');
      });

      test('is 503 not_ready when the database is unreachable, and counts the signing failures', async () => {
        const cut = await startRail(db);
        try {
          const healthy = await get('/readyz', cut.app);
          assert.equal(healthy.statusCode, 200, healthy.body);
          const base = healthy.json().readiness.signing;
          assert.equal(base.failures, 0);

          await cut.db.destroy(); // this instance's connection is gone; the database itself is intact
          for (let i = 1; i <= 2; i++) {
            const res = await get('/readyz', cut.app);
            assert.equal(res.statusCode, 503, res.body);
            const { status, readiness } = res.json();
            assert.equal(status, 'not_ready');
            assert.deepEqual(readiness.db, { ok: false, required: true });
            assert.equal(readiness.signing.ok, false);
            assert.equal(readiness.signing.required, true);
            assert.equal(readiness.signing.state, 'failed');
            assert.equal(readiness.signing.attempts, base.attempts + i);
            assert.equal(readiness.signing.failures, i, 'each failed signature is counted');
            assert.equal(readiness.issuerIdentity.required, true);
            assert.equal(readiness.verifierIdentity.required, true);
          }
        } finally {
          await cut.stop();
        }
        // Readiness is per instance: the suite's own rail still answers ready with no failures.
        const own = await get('/readyz');
        assert.equal(own.statusCode, 200, own.body);
        assert.equal(own.json().readiness.signing.failures, 0);
      });
    });
  });
}

describe('buildReport(root)', () => {
  const roots: string[] = [];
  after(() => {
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });

  /** A fake installation: bin/, src/ and package.json, with build-info.json recorded as scripts/record-build.ts does. */
  function fixture(options: { record?: boolean } = {}): string {
    const root = mkdtempSync(join(tmpdir(), 'openrail-build-'));
    roots.push(root);
    mkdirSync(join(root, 'bin'));
    mkdirSync(join(root, 'src', 'core'), { recursive: true });
    writeFileSync(join(root, 'bin', 'openrail.js'), '#!/usr/bin/env node\nimport "../../../test/src/main.ts";\n');
    writeFileSync(join(root, 'src', 'main.ts'), 'export const main = () => 1;\n');
    writeFileSync(join(root, 'src', 'core', 'util.ts'), 'export const util = 2;\n');
    writeFileSync(join(root, 'package.json'), '{"name":"fake","version":"0.0.0"}\n');
    // Not shipped: must never count.
    writeFileSync(join(root, 'README.md'), 'readme\n');
    if (options.record !== false) {
      const files = hashShippedFiles(root);
      const build: RecordedBuild = {
        commit: 'abc123def',
        recordedAt: new Date().toISOString(),
        sourceDigest: sourceDigest(files),
        files,
      };
      writeFileSync(join(root, BUILD_INFO_FILE), `${JSON.stringify(build, null, 2)}\n`);
    }
    return root;
  }

  test('the fixture records the four shipped files and none other', () => {
    const root = fixture();
    assert.deepEqual(Object.keys(hashShippedFiles(root)).sort(), [
      'bin/openrail.js',
      'package.json',
      'src/core/util.ts',
      'src/main.ts',
    ]);
  });

  test('unchanged files match with zero divergence', () => {
    const root = fixture();
    const r = buildReport(shippedBuildAt(root));
    assert.equal(r.commit, 'abc123def');
    assert.match(r.sourceDigest, SHA256);
    assert.equal(r.observedSourceDigest, r.sourceDigest);
    assert.equal(r.matches, true);
    assert.deepEqual(r.divergence, { missing: 0, changed: 0, extra: 0 });
    assert.equal(r.attestation.available, false);
    assert.equal(typeof r.attestation.reason, 'string');
  });

  test('a change outside the shipped files does not count', () => {
    const root = fixture();
    writeFileSync(join(root, 'README.md'), 'edited\n');
    mkdirSync(join(root, 'test'));
    writeFileSync(join(root, 'test', 'x.test.ts'), 'x\n');
    const r = buildReport(shippedBuildAt(root));
    assert.equal(r.matches, true);
    assert.deepEqual(r.divergence, { missing: 0, changed: 0, extra: 0 });
  });

  test('one changed file: changed 1, no match', () => {
    const root = fixture();
    writeFileSync(join(root, 'src', 'core', 'util.ts'), 'export const util = 3;\n');
    const r = buildReport(shippedBuildAt(root));
    assert.equal(r.matches, false);
    assert.deepEqual(r.divergence, { missing: 0, changed: 1, extra: 0 });
    assert.notEqual(r.observedSourceDigest, r.sourceDigest);
    assert.match(r.observedSourceDigest, SHA256);
  });

  test('one deleted file: missing 1, no match', () => {
    const root = fixture();
    unlinkSync(join(root, 'src', 'main.ts'));
    const r = buildReport(shippedBuildAt(root));
    assert.equal(r.matches, false);
    assert.deepEqual(r.divergence, { missing: 1, changed: 0, extra: 0 });
    assert.notEqual(r.observedSourceDigest, r.sourceDigest);
  });

  test('one added file: extra 1, no match', () => {
    const root = fixture();
    writeFileSync(join(root, 'src', 'core', 'added.ts'), 'export const added = true;\n');
    const r = buildReport(shippedBuildAt(root));
    assert.equal(r.matches, false);
    assert.deepEqual(r.divergence, { missing: 0, changed: 0, extra: 1 });
    assert.notEqual(r.observedSourceDigest, r.sourceDigest);
  });

  test('a renamed file counts as one missing and one extra', () => {
    const root = fixture();
    cpSync(join(root, 'src', 'main.ts'), join(root, 'src', 'renamed.ts'));
    unlinkSync(join(root, 'src', 'main.ts'));
    const r = buildReport(shippedBuildAt(root));
    assert.equal(r.matches, false);
    assert.deepEqual(r.divergence, { missing: 1, changed: 0, extra: 1 });
  });

  test('a recorded digest that disagrees with the recorded files does not match', () => {
    const root = fixture();
    assert.equal(buildReport(shippedBuildAt(root)).matches, true);
    const build: RecordedBuild = {
      commit: 'abc123def',
      recordedAt: new Date().toISOString(),
      sourceDigest: `sha256:${'0'.repeat(64)}`,
      files: hashShippedFiles(root),
    };
    writeFileSync(join(root, BUILD_INFO_FILE), JSON.stringify(build));
    const r = buildReport(shippedBuildAt(root));
    assert.deepEqual(r.divergence, { missing: 0, changed: 0, extra: 0 });
    assert.equal(r.matches, false);
  });

  test('without build-info.json the source digest is unrecorded and nothing matches', () => {
    const root = fixture({ record: false });
    const r = buildReport(shippedBuildAt(root));
    assert.equal(r.sourceDigest, 'unrecorded');
    assert.equal(r.matches, false);
    assert.match(r.observedSourceDigest, SHA256);
    assert.equal(r.observedSourceDigest, sourceDigest(hashShippedFiles(root)));
    assert.equal(r.attestation.available, false);
    assert.ok(r.attestation.reason.length > 0);
  });

  test('an unreadable build-info.json counts as unrecorded', () => {
    const root = fixture();
    writeFileSync(join(root, BUILD_INFO_FILE), '{ not json');
    const r = buildReport(shippedBuildAt(root));
    assert.equal(r.sourceDigest, 'unrecorded');
    assert.equal(r.matches, false);
  });
});
