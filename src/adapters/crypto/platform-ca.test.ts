/**
 * The certifier on a real database, both engines: the platform root is made once and shared by
 * every process; keys get certificates that chain to it (checked with Node's X509Certificate, see
 * test/helpers/x5c.ts); rotation certifies the new key; renewal certifies keys made before
 * certificates and those whose certificate is ageing, and nothing else; an operator's own chain is
 * used whole (x5c gains its intermediate) and each fault in it is refused, naming it.
 */
import 'reflect-metadata'; // before @peculiar/x509, as x509.ts does
import assert from 'node:assert/strict';
import { generateKeyPairSync, type JsonWebKey, webcrypto, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as x509 from '@peculiar/x509';
import { CompactSign } from 'jose';
import { certifierOn } from '../../../test/helpers/certifier.ts';
import { openTestDb, type TestDatabase, tenantRecord, testDatabases } from '../../../test/helpers/databases.ts';
import { startRail } from '../../../test/helpers/rail.ts';
import { keyFromX5c, uriNames } from '../../../test/helpers/x5c.ts';
import { ConfigError } from '../../config/config.ts';
import { IssuerUrls } from '../../core/issuer-urls.ts';
import type { KeyCertifier } from '../../ports/key-certifier.ts';
import { type Db, migrate } from '../sql/connect.ts';
import { SqlCertificateAuthorityStore } from '../sql/kernel/sql-certificate-authority-store.ts';
import { SqlKeyCertificateRenewals, SqlSigningKeyStore } from '../sql/kernel/sql-signing-key-store.ts';
import { SqlTenantStore } from '../sql/tenants/sql-tenant-store.ts';
import { AesKeyVault } from './key-vault.ts';
import { SealedKeyBackend } from './keys/sealed-backend.ts';
import {
  authorityEndingSoon,
  KEY_CERTIFICATE_DAYS,
  openExternalCertifier,
  RENEW_WITHIN_DAYS,
  renewKeyCertificates,
} from './platform-ca.ts';
import { TenantKeyStore } from './tenant-key-store.ts';
import { createRootCertificate, fileAuthorityKey, toPem } from './x509.ts';

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.parse('2026-06-01T00:00:00Z');
const PUBLIC_URL = new URL('https://rail.example.org');

/** A JWS signed by a key the store holds, as the service's signer makes it, header and all. */
async function signedBy(keys: TenantKeyStore, tenant: string): Promise<string> {
  const signer = await keys.signer(tenant, 'issuer');
  return signer.sign({ typ: 'JWT', kid: signer.kid, ...(signer.x5c ? { x5c: [...signer.x5c] } : {}) }, { sub: 'x' });
}

for (const factory of testDatabases()) {
  describe(`the platform certificate authority (${factory.name})`, () => {
    let target: TestDatabase;
    let db: Db;
    let now = T0;
    const clock = { now: () => now };
    const vault = new AesKeyVault(Buffer.alloc(32, 7));
    let certifier: KeyCertifier;
    let keys: TenantKeyStore;

    before(async () => {
      target = await factory.create();
      db = openTestDb(target);
      await migrate(db);
      for (const slug of ['alpha', 'beta', 'gamma']) await new SqlTenantStore(db).create(tenantRecord(slug), []);
      certifier = await certifierOn(db, vault, clock, PUBLIC_URL);
      keys = new TenantKeyStore(new SqlSigningKeyStore(db), new SealedKeyBackend(vault), clock, certifier);
    });
    after(async () => {
      await db.destroy();
      await target.drop();
    });

    test('the root is made once: processes opening it later, or at the same time, all share it', async () => {
      const others = await Promise.all([1, 2, 3].map(() => certifierOn(db, vault, clock, PUBLIC_URL)));
      for (const other of others) assert.equal(other.anchorPem, certifier.anchorPem);
      const root = new X509Certificate(certifier.anchorPem);
      assert.ok(root.ca && root.verify(root.publicKey), 'the anchor is a self-signed CA');
      assert.match(root.subject, /CN=openrail root CA \(rail\.example\.org\)/);
      const stored = await new SqlCertificateAuthorityStore(db).list();
      assert.equal(stored.length, 1, 'one root');
      assert.ok(
        stored[0]?.privateKey?.backend === 'sealed' && !stored[0].privateKey.sealed.includes('"d"'),
        'the private key is stored sealed',
      );
      await assert.rejects(
        certifierOn(db, new AesKeyVault(Buffer.alloc(32, 8)), clock, PUBLIC_URL),
        'another master key cannot open it',
      );
    });

    test('a new key is certified by the root: x5c resolves to it, naming the tenant', async () => {
      await keys.ensureKey('alpha', 'issuer');
      const jws = await signedBy(keys, 'alpha');
      const { key, leaf } = keyFromX5c(jws, certifier.anchorPem, new Date(now));
      const active = await keys.activeKey('alpha', 'issuer');
      assert.deepEqual(key.export({ format: 'jwk' }), active?.publicJwk);
      assert.deepEqual(uriNames(leaf), ['did:web:rail.example.org:t:alpha', 'https://rail.example.org/t/alpha']);
      assert.match(leaf.subjectAltName ?? '', /DNS:rail\.example\.org/);
      assert.equal(Date.parse(leaf.validTo), T0 + KEY_CERTIFICATE_DAYS * DAY);
      assert.throws(() => keyFromX5c(jws, certifier.anchorPem, new Date(T0 + (KEY_CERTIFICATE_DAYS + 1) * DAY)), /valid now/);
    });

    test('a certificate from another authority does not resolve against this anchor', async () => {
      const caKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as JsonWebKey;
      const otherRoot = await createRootCertificate({
        subject: { commonName: 'not ours' },
        key: fileAuthorityKey(caKey),
        validity: { notBefore: new Date(T0 - DAY), notAfter: new Date(T0 + 400 * DAY) },
      });
      const jws = await signedBy(keys, 'alpha');
      assert.throws(() => keyFromX5c(jws, toPem(otherRoot), new Date(now)), /issued by the next one up/);
    });

    test('rotation certifies the new key; the superseded key keeps its own certificate', async () => {
      const before = await signedBy(keys, 'alpha');
      const { previous, current } = await keys.rotate('alpha', 'issuer');
      assert.notEqual(previous, current);
      const after = await signedBy(keys, 'alpha');
      const old = keyFromX5c(before, certifier.anchorPem, new Date(now));
      const fresh = keyFromX5c(after, certifier.anchorPem, new Date(now));
      assert.notEqual(fresh.leaf.serialNumber, old.leaf.serialNumber);
      assert.deepEqual(fresh.key.export({ format: 'jwk' }), (await keys.activeKey('alpha', 'issuer'))?.publicJwk);
    });

    test('renewal certifies keys that have no certificate and those ending soon, and nothing else', async () => {
      const store = new SqlSigningKeyStore(db);
      const renewals = new SqlKeyCertificateRenewals(db);
      // beta's key predates certificates: stored without one, as migration 0037 found every key.
      const bare = await keys.prepareKey('beta', 'issuer');
      delete bare.certificate;
      assert.equal(await store.insert(bare), true);
      await keys.ensureKey('gamma', 'verifier');
      const due = async () =>
        (await renewals.due(now + RENEW_WITHIN_DAYS * DAY, certifier.authorityKeyId, 100))
          .map((k) => `${k.tenant}/${k.purpose}`)
          .sort();
      assert.deepEqual(await due(), ['beta/issuer']);
      assert.equal(await renewKeyCertificates(renewals, certifier, now), 1);
      assert.deepEqual(await due(), []);
      const beta = await store.active('beta', 'issuer');
      assert.ok(beta?.certificate);
      assert.equal(await renewKeyCertificates(renewals, certifier, now), 0, 'nothing is due twice');

      // Ten months on, every certificate made at T0 ends within the renewal window.
      now = T0 + (KEY_CERTIFICATE_DAYS - RENEW_WITHIN_DAYS + 1) * DAY;
      assert.deepEqual(await due(), ['alpha/issuer', 'alpha/issuer', 'beta/issuer', 'gamma/verifier']);
      // A retired key is no longer published: it is not renewed.
      const signing = await keys.activeKey('alpha', 'issuer');
      const superseded = (await store.published('alpha')).find((k) => k.kid !== signing?.kid);
      assert.ok(superseded);
      assert.equal(await keys.retire('alpha', superseded.kid), true);
      assert.deepEqual(await due(), ['alpha/issuer', 'beta/issuer', 'gamma/verifier']);
      // A renewal that lost a race to another process writes nothing.
      const [first] = await renewals.due(now + RENEW_WITHIN_DAYS * DAY, certifier.authorityKeyId, 1);
      assert.ok(first);
      assert.equal(await renewals.renew(first, await certifier.certify(first.tenant, first.purpose, first.publicJwk)), true);
      assert.equal(await renewals.renew(first, await certifier.certify(first.tenant, first.purpose, first.publicJwk)), false);
      assert.equal(await renewKeyCertificates(renewals, certifier, now), 2);
      assert.deepEqual(await due(), []);
      const renewed = await store.active('beta', 'issuer');
      assert.equal(renewed?.certificate?.notAfter, now + KEY_CERTIFICATE_DAYS * DAY);
      now = T0;
    });

    test('a change of authority certifies every published key again, once; near its end, renewal stops', async () => {
      const renewals = new SqlKeyCertificateRenewals(db);
      const published = async () =>
        (await Promise.all(['alpha', 'beta', 'gamma'].map((t) => new SqlSigningKeyStore(db).published(t)))).flat();
      // The operator's issuing CA ends 30 days from now: inside the renewal window.
      const chain = await operatorChain({ issuingDays: 30 });
      const operator = await openExternalCertifier({
        store: new SqlCertificateAuthorityStore(db),
        backend: new SealedKeyBackend(vault),
        clock,
        urls: new IssuerUrls(PUBLIC_URL),
        publicUrl: PUBLIC_URL,
        platformName: 'openrail',
        external: { chainPem: `${chain.issuingPem}\n${chain.rootPem}`, privateKeyPem: chain.keyPem },
      });
      assert.ok(authorityEndingSoon(operator, now));
      const keys = await published();
      assert.equal(await renewKeyCertificates(renewals, operator, now), keys.length);
      for (const key of await published()) {
        assert.equal(key.certificate?.authority, operator.authorityKeyId);
        assert.equal(key.certificate?.chain.length, 2, 'the key’s certificate and the issuing CA');
        assert.equal(key.certificate?.notAfter, T0 + 30 * DAY, 'no later than the issuing CA');
      }
      assert.equal(await renewKeyCertificates(renewals, operator, now), 0, 'at the authority’s end: nothing is due again');
      assert.equal(await renewKeyCertificates(renewals, operator, now + DAY), 0);
      // Back to the platform root: every key again.
      assert.equal(await renewKeyCertificates(renewals, certifier, now), keys.length);
      assert.ok(!authorityEndingSoon(certifier, now));
    });

    test('a rotation takes the key prepared before its transaction, and refuses one prepared for another tenant', async () => {
      const prepared = await keys.prepareKey('alpha', 'issuer');
      const { current } = await keys.rotate('alpha', 'issuer', prepared);
      assert.equal(current, prepared.kid);
      assert.equal((await keys.activeKey('alpha', 'issuer'))?.kid, prepared.kid);
      const elsewhere = await keys.prepareKey('beta', 'issuer');
      await assert.rejects(() => keys.rotate('alpha', 'issuer', elsewhere), /cannot replace alpha\/issuer/);
      assert.equal((await keys.activeKey('alpha', 'issuer'))?.kid, prepared.kid, 'the refused rotation changed nothing');
    });
  });
}

/** An operator's chain: a root, an issuing CA under it, and the issuing CA's private key. */
async function operatorChain(opts: { issuingIsCa?: boolean; withoutKeyId?: boolean; issuingDays?: number } = {}) {
  const root = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as JsonWebKey;
  const issuing = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const rootPem = toPem(
    await createRootCertificate({
      subject: { commonName: 'Operator Root' },
      key: fileAuthorityKey(root),
      validity: { notBefore: new Date(T0 - DAY), notAfter: new Date(T0 + 3650 * DAY) },
    }),
  );
  const rootCert = new x509.X509Certificate(rootPem);
  const P256 = { name: 'ECDSA', namedCurve: 'P-256' };
  const issuingPublic = await webcrypto.subtle.importKey(
    'spki',
    issuing.publicKey.export({ format: 'der', type: 'spki' }),
    P256,
    true,
    ['verify'],
  );
  const issuingCert = await x509.X509CertificateGenerator.create({
    serialNumber: '01',
    subject: 'CN=Operator Issuing CA',
    issuer: rootCert.subject,
    notBefore: new Date(T0 - DAY),
    notAfter: new Date(T0 + (opts.issuingDays ?? 1800) * DAY),
    publicKey: issuingPublic,
    signingKey: await webcrypto.subtle.importKey('jwk', root, P256, false, ['sign']),
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions: [
      new x509.BasicConstraintsExtension(opts.issuingIsCa ?? true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature, true),
      ...(opts.withoutKeyId ? [] : [await x509.SubjectKeyIdentifierExtension.create(issuingPublic)]),
    ],
  });
  return {
    rootPem,
    issuingPem: issuingCert.toString('pem'),
    keyPem: issuing.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  };
}

describe('an operator’s own certificate authority', () => {
  const open = (chainPem: string, privateKeyPem: string, at = T0) =>
    openExternalCertifier({
      // Never read with an external chain: the platform root is not made.
      store: {
        list: () => Promise.reject(new Error('the platform root is not read')),
        putIfAbsent: () => Promise.reject(new Error('the platform root is not made')),
        retire: () => Promise.reject(new Error('the platform root is not retired')),
      },
      backend: new SealedKeyBackend(new AesKeyVault(Buffer.alloc(32, 7))),
      clock: { now: () => at },
      urls: new IssuerUrls(PUBLIC_URL),
      publicUrl: PUBLIC_URL,
      platformName: 'openrail',
      external: { chainPem, privateKeyPem },
    });

  test('keys are certified by the issuing CA: x5c carries it, the anchor is the operator’s root', async () => {
    const chain = await operatorChain();
    const certifier = await open(`${chain.issuingPem}\n${chain.rootPem}`, chain.keyPem);
    assert.equal(new X509Certificate(certifier.anchorPem).fingerprint256, new X509Certificate(chain.rootPem).fingerprint256);
    const key = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const publicJwk = key.publicKey.export({ format: 'jwk' });
    const { chain: x5c } = await certifier.certify('alpha', 'issuer', publicJwk as never);
    assert.equal(x5c.length, 2, 'the key’s certificate and the issuing CA; not the root');
    assert.equal(
      new X509Certificate(Buffer.from(x5c[1] as string, 'base64')).fingerprint256,
      new X509Certificate(chain.issuingPem).fingerprint256,
    );
    const jws = await new CompactSign(Buffer.from('{}')).setProtectedHeader({ alg: 'ES256', x5c }).sign(key.privateKey);
    keyFromX5c(jws, certifier.anchorPem, new Date(T0));
  });

  test('a chain that is only its root certifies with that root as the anchor', async () => {
    const root = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const rootPem = toPem(
      await createRootCertificate({
        subject: { commonName: 'Single Root' },
        key: fileAuthorityKey(root.privateKey.export({ format: 'jwk' }) as JsonWebKey),
        validity: { notBefore: new Date(T0 - DAY), notAfter: new Date(T0 + 3650 * DAY) },
      }),
    );
    const certifier = await open(rootPem, root.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
    const { chain } = await certifier.certify(
      'alpha',
      'issuer',
      generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }) as never,
    );
    assert.equal(chain.length, 1);
  });

  test('each fault in the chain or its key is refused, saying what is wrong', async () => {
    const chain = await operatorChain();
    const other = await operatorChain();
    const notCa = await operatorChain({ issuingIsCa: false });
    const noKeyId = await operatorChain({ withoutKeyId: true });
    const cases: [string, string, string, RegExp][] = [
      ['no certificate', 'not a certificate', chain.keyPem, /holds no PEM certificate/],
      ['anchor first', `${chain.rootPem}\n${chain.issuingPem}`, chain.keyPem, /not signed by certificate 2/],
      ['no anchor', chain.issuingPem, chain.keyPem, /self-signed trust anchor/],
      ['another root', `${chain.issuingPem}\n${other.rootPem}`, chain.keyPem, /not signed by certificate 2/],
      ['another key', `${chain.issuingPem}\n${chain.rootPem}`, other.keyPem, /not the first certificate’s/],
      ['no key', `${chain.issuingPem}\n${chain.rootPem}`, 'nothing', /no readable private key/],
      ['not a CA', `${notCa.issuingPem}\n${notCa.rootPem}`, notCa.keyPem, /certificate 1, which is not a certificate authority/],
      ['no key identifier', `${noKeyId.issuingPem}\n${noKeyId.rootPem}`, noKeyId.keyPem, /without a subject key identifier/],
      [
        'another curve',
        `${chain.issuingPem}\n${chain.rootPem}`,
        generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
        /not P-256/,
      ],
    ];
    for (const [name, chainPem, keyPem, message] of cases) {
      await assert.rejects(open(chainPem, keyPem), message, name);
    }
    await assert.rejects(
      open(`${chain.issuingPem}\n${chain.rootPem}`, chain.keyPem, T0 + 1801 * DAY),
      /certificate 1, which is not valid now/,
    );
  });
});

describe('the service started with an operator’s chain (OPENRAIL_CA_CHAIN_FILE, OPENRAIL_CA_KEY_FILE)', () => {
  const [factory] = testDatabases();
  const dir = mkdtempSync(join(tmpdir(), 'openrail-ca-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('publishes the operator’s root and certifies the keys made at start under the issuing CA', async () => {
    const chain = await operatorChain();
    writeFileSync(join(dir, 'chain.pem'), `${chain.issuingPem}\n${chain.rootPem}`);
    writeFileSync(join(dir, 'key.pem'), chain.keyPem, { mode: 0o600 });
    const db = await (factory as NonNullable<typeof factory>).create();
    const rail = await startRail(db, {
      OPENRAIL_CA_CHAIN_FILE: join(dir, 'chain.pem'),
      OPENRAIL_CA_KEY_FILE: join(dir, 'key.pem'),
    });
    try {
      const anchor = await rail.app.inject({ method: 'GET', url: '/.well-known/openrail-ca.pem' });
      assert.equal(anchor.statusCode, 200);
      assert.equal(new X509Certificate(anchor.body).fingerprint256, new X509Certificate(chain.rootPem).fingerprint256);
      const key = await new SqlSigningKeyStore(rail.db).active('root', 'issuer');
      assert.equal(key?.certificate?.chain.length, 2);
      assert.equal(
        new X509Certificate(Buffer.from(key?.certificate?.chain[1] ?? '', 'base64')).fingerprint256,
        new X509Certificate(chain.issuingPem).fingerprint256,
      );
    } finally {
      await rail.stop();
      await db.drop();
    }
  });

  test('a chain that does not fit its key stops the start, naming the variable', async () => {
    const chain = await operatorChain();
    const other = await operatorChain();
    writeFileSync(join(dir, 'chain.pem'), `${chain.issuingPem}\n${chain.rootPem}`);
    writeFileSync(join(dir, 'key.pem'), other.keyPem, { mode: 0o600 });
    const db = await (factory as NonNullable<typeof factory>).create();
    try {
      await assert.rejects(
        startRail(db, { OPENRAIL_CA_CHAIN_FILE: join(dir, 'chain.pem'), OPENRAIL_CA_KEY_FILE: join(dir, 'key.pem') }),
        (err: Error) => err instanceof ConfigError && /^OPENRAIL_CA_CHAIN_FILE .*not the first certificate’s/.test(err.message),
      );
    } finally {
      await db.drop();
    }
  });
});
