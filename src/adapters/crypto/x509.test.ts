/**
 * The certificates x509.ts makes, read back with Node's own X509Certificate and the openssl
 * command (both OpenSSL), not with the library that made them: the root is a self-signed CA limited to signing certificates; a key's
 * certificate is issued by it (never self-signed), carries exactly the key it certifies, may only
 * sign, names the DID and issuer URL as alternative names, and points at the root's key identifier;
 * a certificate from another root does not verify against this one.
 */
import 'reflect-metadata'; // before @peculiar/x509
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createPublicKey, generateKeyPairSync, type JsonWebKey, webcrypto, X509Certificate } from 'node:crypto';
import { describe, test } from 'node:test';
import * as x509 from '@peculiar/x509';
import { ChainVerifier, certifyKey, createRootCertificate, fileAuthorityKey } from './x509.ts';

const newKey = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as JsonWebKey;
const publicOf = ({ kty, crv, x, y }: JsonWebKey) => ({ kty, crv, x, y });
const der = (base64: string) => new X509Certificate(Buffer.from(base64, 'base64'));
const validity = { notBefore: new Date('2026-01-01T00:00:00Z'), notAfter: new Date('2036-01-01T00:00:00Z') };
/** `openssl x509 -text`: the certificate as OpenSSL reads it, names in RFC 2253 form. */
const text = (cert: X509Certificate) =>
  execFileSync('openssl', ['x509', '-inform', 'DER', '-noout', '-text', '-nameopt', 'RFC2253'], { input: cert.raw }).toString();
/** One extension's lines in that text: its heading (with `critical`) and its value. */
const extension = (cert: X509Certificate, name: string) => {
  const all = text(cert);
  const at = all.indexOf(`X509v3 ${name}:`);
  return at < 0 ? undefined : all.slice(at, all.indexOf('\n', all.indexOf('\n', at) + 1));
};

/** The openssl command reads the extensions; CI installs it (.ci/run), elsewhere its absence skips, saying so. */
const noOpenssl = spawnSync('openssl', ['version']).status === 0 ? false : 'install openssl to read the certificates back';
if (noOpenssl && process.env.CI === 'true') throw new Error(noOpenssl);

describe('platform CA and key certificates', { skip: noOpenssl }, async () => {
  const caKey = newKey();
  const root = der(
    await createRootCertificate({ subject: { commonName: 'openrail platform CA' }, key: fileAuthorityKey(caKey), validity }),
  );
  const tenantKey = newKey();
  const did = 'did:web:rail.example.org:t:city-of-ghent';
  const issuerUrl = 'https://rail.example.org/t/city-of-ghent';
  const leaf = der(
    await certifyKey({
      ca: { certificate: root.raw.toString('base64'), key: fileAuthorityKey(caKey) },
      subject: { commonName: 'City of Ghent, "Stad Gent"=city', uris: [did, issuerUrl], dnsNames: ['rail.example.org'] },
      publicJwk: publicOf(tenantKey),
      validity,
    }),
  );

  test('the root is a self-signed CA that may sign certificates, for end entities only', () => {
    assert.equal(root.ca, true);
    assert.equal(root.subject, root.issuer);
    assert.ok(root.verify(root.publicKey), 'self-signed');
    assert.match(String(extension(root, 'Basic Constraints')), /critical[\s\S]*CA:TRUE, pathlen:0/);
    assert.match(String(extension(root, 'Key Usage')), /critical[\s\S]*Certificate Sign, CRL Sign/);
    assert.equal(root.validFrom, 'Jan  1 00:00:00 2026 GMT');
    assert.equal(root.validTo, 'Jan  1 00:00:00 2036 GMT');
  });

  test('a key’s certificate is issued by the root, not self-signed, and certifies exactly that key', () => {
    assert.ok(leaf.checkIssued(root), 'issued by the root');
    assert.ok(leaf.verify(root.publicKey), 'signed by the root’s key');
    assert.ok(!leaf.verify(leaf.publicKey), 'not self-signed');
    assert.notEqual(leaf.subject, leaf.issuer);
    assert.equal(leaf.ca, false);
    assert.deepEqual(
      leaf.publicKey.export({ format: 'jwk' }),
      createPublicKey({ key: publicOf(tenantKey), format: 'jwk' }).export({ format: 'jwk' }),
    );
    assert.match(String(extension(leaf, 'Key Usage')), /critical[\s\S]*Digital Signature$/);
    assert.match(String(extension(leaf, 'Basic Constraints')), /critical[\s\S]*CA:FALSE/);
  });

  test('its alternative names are the DID, the issuer URL and the host; its name stays one common name', () => {
    assert.equal(leaf.subjectAltName, `URI:${did}, URI:${issuerUrl}, DNS:rail.example.org`);
    assert.match(text(leaf), /^ {8}Subject: CN=City of Ghent\\, \\"Stad Gent\\"=city$/m, 'one attribute, whole');
  });

  test('its authority key identifier is the root’s subject key identifier', () => {
    const ski = /Subject Key Identifier:\s*\n\s*([0-9A-F:]+)/.exec(text(root))?.[1];
    const aki = /Authority Key Identifier:\s*\n\s*(?:keyid:)?([0-9A-F:]+)/.exec(text(leaf))?.[1];
    assert.ok(ski);
    assert.equal(aki, ski);
  });

  test('serial numbers are positive, 16 bytes, and differ between certificates', () => {
    assert.match(root.serialNumber, /^[0-7][0-9A-F]{31}$/);
    assert.match(leaf.serialNumber, /^[0-7][0-9A-F]{31}$/);
    assert.notEqual(root.serialNumber, leaf.serialNumber);
  });

  test('a certificate from another root does not verify against this one', async () => {
    const otherKey = newKey();
    const other = der(
      await createRootCertificate({ subject: { commonName: 'openrail platform CA' }, key: fileAuthorityKey(otherKey), validity }),
    );
    const stranger = der(
      await certifyKey({
        ca: { certificate: other.raw.toString('base64'), key: fileAuthorityKey(otherKey) },
        subject: { commonName: 'City of Ghent', uris: [did] },
        publicJwk: publicOf(tenantKey),
        validity,
      }),
    );
    assert.ok(!stranger.verify(root.publicKey), 'the same names, another root: refused');
    assert.ok(stranger.verify(other.publicKey));
  });
});

/**
 * ChainVerifier (wallet attestation trust, docs/haip.md): an x5c chain is trusted only when it
 * ends at, or is signed by, an anchor, every certificate is valid, and every one above the leaf is
 * a CA. Built with this module's own CA functions; judged by the key it answers or its refusal.
 */
describe('x5c chains against anchors', async () => {
  const rootKey = newKey();
  const root = await createRootCertificate({
    subject: { commonName: 'Wallet Provider Root' },
    key: fileAuthorityKey(rootKey),
    validity,
  });
  const otherRoot = await createRootCertificate({
    subject: { commonName: 'Someone Else' },
    key: fileAuthorityKey(newKey()),
    validity,
  });
  const leafKey = newKey();
  const leaf = await certifyKey({
    ca: { certificate: root, key: fileAuthorityKey(rootKey) },
    subject: { commonName: 'Wallet Attestation Signer' },
    publicJwk: publicOf(leafKey),
    validity,
  });
  // A certificate signed by the leaf, which is not a CA: a chain through it is no chain.
  const underLeaf = await certifyKey({
    ca: { certificate: leaf, key: fileAuthorityKey(leafKey) },
    subject: { commonName: 'Not Really' },
    publicJwk: publicOf(newKey()),
    validity,
  });
  const during = new Date('2027-06-01T00:00:00Z');

  test('a leaf signed by an anchor answers the leaf’s key; the anchor itself answers its own', async () => {
    const verifier = new ChainVerifier([root]);
    assert.deepEqual(publicOf((await verifier.keyOf([leaf], during)) as JsonWebKey), publicOf(leafKey));
    assert.deepEqual(publicOf((await verifier.keyOf([root], during)) as JsonWebKey), publicOf(rootKey));
  });

  test('another anchor, a certificate out of its validity, a non-CA in the middle, or no anchors: refused', async () => {
    assert.equal(await new ChainVerifier([otherRoot]).keyOf([leaf], during), undefined, 'another anchor');
    assert.equal(await new ChainVerifier([root]).keyOf([leaf], new Date('2040-01-01T00:00:00Z')), undefined, 'expired');
    assert.equal(await new ChainVerifier([root]).keyOf([leaf], new Date('2020-01-01T00:00:00Z')), undefined, 'not yet valid');
    assert.equal(await new ChainVerifier([root]).keyOf([underLeaf, leaf], during), undefined, 'through a non-CA');
    assert.equal(await new ChainVerifier([]).keyOf([leaf], during), undefined, 'no anchors');
    assert.equal(new ChainVerifier([]).empty, true);
  });

  test('a chain that held is remembered only inside every certificate’s validity: one verifier asked later, or earlier, refuses it', async () => {
    const verifier = new ChainVerifier([root]);
    assert.ok(await verifier.keyOf([leaf], during), 'held, and remembered');
    assert.equal(await verifier.keyOf([leaf], new Date('2040-01-01T00:00:00Z')), undefined, 'expired since');
    assert.equal(await verifier.keyOf([leaf], new Date('2020-01-01T00:00:00Z')), undefined, 'not yet valid then');
    assert.ok(await verifier.keyOf([leaf], during), 'and held again now');
    // Remembered ten seconds before the certificates expire, refused one second after, well inside the memory's minute.
    const end = validity.notAfter.getTime();
    const late = new ChainVerifier([root]);
    assert.ok(await late.keyOf([leaf], new Date(end - 10_000)));
    assert.equal(await late.keyOf([leaf], new Date(end + 1_000)), undefined, 'expired while remembered');
    // A chain that fails is never remembered: the same verifier refuses it each time.
    assert.equal(await verifier.keyOf([underLeaf, leaf], during), undefined);
    assert.equal(await verifier.keyOf([underLeaf, leaf], during), undefined);
  });

  test('a CA above the leaf must be allowed to sign certificates there: keyCertSign, and its path length', async () => {
    // Intermediates our CA functions never make, built with the library itself (x509.ts has set its crypto).
    const ES256 = { name: 'ECDSA', hash: 'SHA-256' } as const;
    const P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
    type Authority = { certificate: x509.X509Certificate; keys: webcrypto.CryptoKeyPair };
    const newPair = async () => (await webcrypto.subtle.generateKey(P256, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    const der = (c: x509.X509Certificate) => Buffer.from(c.rawData).toString('base64');
    const authority = async (name: string, over: Authority | null, pathLength: number | undefined, usage: number) => {
      const keys = await newPair();
      const extensions = [new x509.BasicConstraintsExtension(true, pathLength, true), new x509.KeyUsagesExtension(usage, true)];
      const certificate = over
        ? await x509.X509CertificateGenerator.create({
            serialNumber: '0a',
            subject: `CN=${name}`,
            issuer: over.certificate.subject,
            notBefore: validity.notBefore,
            notAfter: validity.notAfter,
            publicKey: keys.publicKey,
            signingKey: over.keys.privateKey,
            signingAlgorithm: ES256,
            extensions,
          })
        : await x509.X509CertificateGenerator.createSelfSigned({
            serialNumber: '01',
            name: `CN=${name}`,
            notBefore: validity.notBefore,
            notAfter: validity.notAfter,
            keys,
            signingAlgorithm: ES256,
            extensions,
          });
      return { certificate, keys };
    };
    const leafUnder = async (ca: Authority) => {
      const keys = await newPair();
      const certificate = await x509.X509CertificateGenerator.create({
        serialNumber: '0b',
        subject: 'CN=Signer',
        issuer: ca.certificate.subject,
        notBefore: validity.notBefore,
        notAfter: validity.notAfter,
        publicKey: keys.publicKey,
        signingKey: ca.keys.privateKey,
        signingAlgorithm: ES256,
        extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
      });
      return der(certificate);
    };
    const certSign = x509.KeyUsageFlags.keyCertSign;
    const root = await authority('Root', null, 1, certSign);
    const fine = await authority('Issuing CA', root, 0, certSign);
    const anchoredAt = new ChainVerifier([der(root.certificate)]);
    assert.ok(await anchoredAt.keyOf([await leafUnder(fine), der(fine.certificate)], during), 'root → issuing CA → leaf');

    const noCertSign = await authority('Signs CRLs only', root, 0, x509.KeyUsageFlags.cRLSign);
    assert.equal(
      await anchoredAt.keyOf([await leafUnder(noCertSign), der(noCertSign.certificate)], during),
      undefined,
      'no keyCertSign',
    );

    const deeper = await authority('Below the issuing CA', fine, 0, certSign);
    const chain = [await leafUnder(deeper), der(deeper.certificate), der(fine.certificate)];
    assert.equal(await anchoredAt.keyOf(chain, during), undefined, 'a CA below one whose path length is 0');

    const rootZero = await authority('Root allowing no intermediate', null, 0, certSign);
    const under = await authority('Intermediate', rootZero, 0, certSign);
    const zeroAnchored = new ChainVerifier([der(rootZero.certificate)]);
    assert.equal(
      await zeroAnchored.keyOf([await leafUnder(under), der(under.certificate)], during),
      undefined,
      'the anchor’s own path length',
    );
    assert.equal(
      await zeroAnchored.keyOf([await leafUnder(under), der(under.certificate), der(rootZero.certificate)], during),
      undefined,
      'the same, with the anchor in the chain',
    );
  });

  test('what a caller sends cannot make it throw: garbage, an empty or an over-long chain', async () => {
    const verifier = new ChainVerifier([root]);
    assert.equal(await verifier.keyOf(['not base64 DER'], during), undefined);
    assert.equal(await verifier.keyOf([], during), undefined);
    assert.equal(await verifier.keyOf(Array(6).fill(leaf), during), undefined);
  });
});
