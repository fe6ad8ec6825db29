/**
 * X.509 certificates for signing keys (issue 31, HAIP 1.0 "x5c"): a platform root certificate
 * authority, and a certificate per signing key issued by it, never self-signed. Built with
 * @peculiar/x509 on Node's WebCrypto: no DER is written by hand here. Pure functions of keys
 * (JWKs, as the key vault opens them), names and dates; storage and rotation are the key store's.
 *
 * Names are built as typed attribute values, never parsed from a DN string or unescaped, so a
 * tenant name with a comma, a quote or an equals sign stays, whole, inside its common name.
 */
import 'reflect-metadata'; // @peculiar/x509's dependency injection (tsyringe) needs it loaded first
import { createPrivateKey, type JsonWebKey, randomBytes, sign, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { certificatesOfPem } from '../../core/pem.ts';
import type { CertificateChains } from '../../ports/certificate-chains.ts';
import type { CertificateBase64 } from '../../ports/key-certifier.ts';

// The library's default provider is the browser's `crypto`; on Node it is set to WebCrypto once here.
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const ES256 = { name: 'ECDSA', hash: 'SHA-256' } as const;

export interface CertificateSubject {
  /** The subject's common name: the platform's name for the root, the tenant's for its key. */
  commonName: string;
  /** URI subject alternative names: the issuer's DID and its credential issuer URL. */
  uris?: readonly string[];
  /** DNS subject alternative names: the host of the deployment. */
  dnsNames?: readonly string[];
}

export interface Validity {
  notBefore: Date;
  notAfter: Date;
}

/** A positive serial number of 16 random bytes (RFC 5280 §4.1.2.2: at most 20 octets, positive). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  if (bytes[0] === 0) bytes[0] = 0x01; // no leading zero octet, so the encoding keeps all 16
  return bytes.toString('hex');
}

/**
 * A name of one common name, given as a UTF8String value: the library reads a plain string value
 * for quotes and backslash escapes (`"a"=b` would lose everything outside the quotes), a typed one
 * as it is.
 */
const nameOf = (commonName: string) => new x509.Name([{ CN: [{ utf8String: commonName }] }]);

/**
 * A certificate authority's key, wherever it lives: its public JWK, and ES256 signatures (r||s, as
 * WebCrypto makes them) over what it is given. A key in a hardware token signs there
 * (ports/key-backend.ts); a key from a file signs here (`fileAuthorityKey`).
 */
export interface AuthorityKey {
  publicJwk: JsonWebKey;
  sign(data: Uint8Array): Promise<Uint8Array>;
}

/** An authority key whose private JWK this process holds (an operator's CA key file). */
export function fileAuthorityKey(privateJwk: JsonWebKey): AuthorityKey {
  const key = createPrivateKey({ key: privateJwk, format: 'jwk' });
  const { kty, crv, x, y } = privateJwk;
  return { publicJwk: { kty, crv, x, y }, sign: async (data) => sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' }) };
}

/**
 * What @peculiar/x509 signs with, for an authority key it cannot hold: a stand-in private
 * CryptoKey (the library reads only its algorithm) and a crypto whose `subtle.sign` hands that
 * key's signatures to `key.sign`, everything else to Node's WebCrypto.
 */
function signingWith(key: AuthorityKey): { privateKey: webcrypto.CryptoKey; crypto: webcrypto.Crypto } {
  const privateKey = { type: 'private', extractable: false, usages: ['sign'], algorithm: P256 } as unknown as webcrypto.CryptoKey;
  const subtle = new Proxy(webcrypto.subtle, {
    get(target, property) {
      if (property === 'sign') {
        return async (algorithm: webcrypto.EcdsaParams, signingKey: webcrypto.CryptoKey, data: webcrypto.BufferSource) => {
          if (signingKey !== privateKey) return target.sign(algorithm, signingKey, data);
          const hash = typeof algorithm.hash === 'string' ? algorithm.hash : algorithm.hash.name;
          if (hash !== 'SHA-256') throw new Error(`an authority key signs with SHA-256 only, not ${hash}`);
          const bytes = ArrayBuffer.isView(data)
            ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
            : new Uint8Array(data);
          const signature = await key.sign(bytes);
          return signature.buffer.slice(signature.byteOffset, signature.byteOffset + signature.byteLength);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const crypto = { subtle, getRandomValues: webcrypto.getRandomValues.bind(webcrypto) } as unknown as webcrypto.Crypto;
  return { privateKey, crypto };
}

function importPublic(jwk: JsonWebKey) {
  const { kty, crv, x, y } = jwk;
  return webcrypto.subtle.importKey('jwk', { kty, crv, x, y }, P256, true, ['verify']);
}

/** The platform's root: self-signed, a CA that may sign end-entity certificates only (path length 0). */
export async function createRootCertificate(opts: {
  subject: CertificateSubject;
  key: AuthorityKey;
  validity: Validity;
}): Promise<CertificateBase64> {
  const publicKey = await importPublic(opts.key.publicJwk);
  const { privateKey, crypto } = signingWith(opts.key);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: serialNumber(),
      name: nameOf(opts.subject.commonName),
      notBefore: opts.validity.notBefore,
      notAfter: opts.validity.notAfter,
      keys: { publicKey, privateKey },
      signingAlgorithm: ES256,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(publicKey),
      ],
    },
    crypto,
  );
  return Buffer.from(certificate.rawData).toString('base64');
}

/**
 * A certificate for a signing key, issued by the CA whose certificate and key are given: an end
 * entity that may sign (digitalSignature) and nothing else, with the CA's key identifier as its
 * authority key identifier.
 */
export async function certifyKey(opts: {
  ca: { certificate: CertificateBase64; key: AuthorityKey };
  subject: CertificateSubject;
  publicJwk: JsonWebKey;
  validity: Validity;
}): Promise<CertificateBase64> {
  const caCertificate = new x509.X509Certificate(Buffer.from(opts.ca.certificate, 'base64'));
  const publicKey = await importPublic(opts.publicJwk);
  const names: x509.JsonGeneralName[] = [
    ...(opts.subject.uris ?? []).map((value) => ({ type: 'url' as const, value })),
    ...(opts.subject.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
  ];
  const { privateKey, crypto } = signingWith(opts.ca.key);
  const certificate = await x509.X509CertificateGenerator.create(
    {
      serialNumber: serialNumber(),
      subject: nameOf(opts.subject.commonName),
      issuer: caCertificate.subjectName,
      notBefore: opts.validity.notBefore,
      notAfter: opts.validity.notAfter,
      publicKey,
      signingKey: privateKey,
      signingAlgorithm: ES256,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        await x509.SubjectKeyIdentifierExtension.create(publicKey),
        new x509.AuthorityKeyIdentifierExtension(subjectKeyIdHex(caCertificate)),
        ...(names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : []),
      ],
    },
    crypto,
  );
  return Buffer.from(certificate.rawData).toString('base64');
}

/** A certificate authority the operator brings: the issuing certificate's private key, and the chain up to its anchor. */
export interface ParsedAuthority {
  /** The issuing CA's certificate (signs key certificates). */
  certificate: CertificateBase64;
  privateJwk: JsonWebKey;
  /** Certificates between the issuing one and the anchor, issuing side first (may be empty). */
  intermediates: CertificateBase64[];
  /** The self-signed trust anchor, last in the file. */
  anchor: CertificateBase64;
  /** When the first certificate of the chain to end ends: key certificates end no later. */
  notAfter: Date;
}

/**
 * Reads an operator's chain (PEM certificates, the issuing CA's first and the self-signed trust
 * anchor last; the issuing CA may be the anchor itself) and the issuing CA's PKCS#8 P-256 private
 * key. Throws, saying what is wrong, unless the key is the issuing certificate's, that certificate
 * may sign certificates, each certificate is signed by the next, and the last is self-signed.
 */
export async function parseAuthority(chainPem: string, privateKeyPem: string, now: Date): Promise<ParsedAuthority> {
  const blocks = certificatesOfPem(chainPem);
  if (blocks.length === 0) throw new Error('holds no PEM certificate');
  if (blocks.length > 8) throw new Error('holds more than 8 certificates');
  const chain = blocks.map((der) => new x509.X509Certificate(Buffer.from(der, 'base64')));
  const issuing = chain[0] as x509.X509Certificate;
  const anchor = chain[chain.length - 1] as x509.X509Certificate;
  // Every certificate of the chain is a CA that may sign certificates, and valid now.
  chain.forEach((certificate, i) => {
    const constraints = certificate.getExtension(x509.BasicConstraintsExtension);
    const usages = certificate.getExtension(x509.KeyUsagesExtension);
    if (!constraints?.ca || (usages && (usages.usages & x509.KeyUsageFlags.keyCertSign) === 0)) {
      throw new Error(`has certificate ${i + 1}, which is not a certificate authority allowed to sign certificates`);
    }
    if (certificate.notAfter <= now || certificate.notBefore > now)
      throw new Error(`has certificate ${i + 1}, which is not valid now`);
  });
  subjectKeyIdHex(issuing);
  for (let i = 0; i + 1 < chain.length; i++) {
    const next = chain[i + 1] as x509.X509Certificate;
    if (!(await (chain[i] as x509.X509Certificate).verify({ publicKey: next.publicKey, signatureOnly: true }))) {
      throw new Error(
        `has certificate ${i + 1} not signed by certificate ${i + 2}: list them issuing CA first, trust anchor last`,
      );
    }
  }
  if (!(await anchor.isSelfSigned())) throw new Error('must end with the self-signed trust anchor');

  let privateJwk: JsonWebKey;
  try {
    privateJwk = createPrivateKey(privateKeyPem).export({ format: 'jwk' });
  } catch {
    throw new Error('is paired with a key file that holds no readable private key');
  }
  if (privateJwk.kty !== 'EC' || privateJwk.crv !== 'P-256') throw new Error('is paired with a key that is not P-256');
  const issuingJwk = await webcrypto.subtle.exportKey('jwk', await issuing.publicKey.export(P256, ['verify']));
  if (issuingJwk.x !== privateJwk.x || issuingJwk.y !== privateJwk.y) {
    throw new Error('is paired with a private key that is not the first certificate’s');
  }
  const base64 = (c: x509.X509Certificate) => Buffer.from(c.rawData).toString('base64');
  return {
    certificate: base64(issuing),
    privateJwk,
    intermediates: chain.slice(1, -1).map(base64),
    anchor: base64(anchor),
    // A key certificate is good only while every certificate above it is.
    notAfter: new Date(Math.min(...chain.map((c) => c.notAfter.getTime()))),
  };
}

/** A certificate as PEM text. */
export const toPem = (certificate: CertificateBase64) =>
  `-----BEGIN CERTIFICATE-----\n${certificate.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END CERTIFICATE-----\n`;

/**
 * The key identifier a CA certificate names itself by (RFC 5280 §4.2.1.2, required on CA
 * certificates), in hex: the authority key identifier of every certificate it issues.
 */
function subjectKeyIdHex(certificate: x509.X509Certificate): string {
  const ski = certificate.getExtension(x509.SubjectKeyIdentifierExtension);
  if (!ski) throw new Error('begins with a certificate without a subject key identifier (RFC 5280 requires one on a CA)');
  return ski.keyId;
}

/** That identifier in base64url: what a DCQL `trusted_authorities` entry of type `aki` lists. */
export const subjectKeyIdOf = (certificate: CertificateBase64): string =>
  Buffer.from(subjectKeyIdHex(new x509.X509Certificate(Buffer.from(certificate, 'base64'))), 'hex').toString('base64url');

/** The public key a certificate certifies, as a JWK. */
export async function publicJwkOf(certificate: CertificateBase64): Promise<JsonWebKey> {
  const parsed = new x509.X509Certificate(Buffer.from(certificate, 'base64'));
  const { kty, crv, x, y } = await webcrypto.subtle.exportKey('jwk', await parsed.publicKey.export(P256, ['verify']));
  return { kty, crv, x, y };
}

/** When a certificate ends (ms since the epoch). */
export const notAfterOf = (certificate: CertificateBase64): number =>
  new x509.X509Certificate(Buffer.from(certificate, 'base64')).notAfter.getTime();

/**
 * Whether `certificate` may sign the certificate below it, with `below` CA certificates between
 * that one and the leaf (RFC 5280 §4.2.1.3 and §4.2.1.9): a CA, its key usage (when stated)
 * allowing keyCertSign, and its path length constraint (when stated) at least `below`.
 */
function mayCertify(certificate: x509.X509Certificate, below: number): boolean {
  const constraints = certificate.getExtension(x509.BasicConstraintsExtension);
  if (!constraints?.ca) return false;
  if (constraints.pathLength !== undefined && below > constraints.pathLength) return false;
  const usages = certificate.getExtension(x509.KeyUsagesExtension);
  return !usages || (usages.usages & x509.KeyUsageFlags.keyCertSign) !== 0;
}

/** Chains a ChainVerifier remembers, and for how long at most (ms). */
export const CHAIN_CACHE_LIMIT = 256;
export const CHAIN_CACHE_MS = 60_000;

/**
 * Checks `x5c` chains against a fixed set of anchors, parsed once (docs/haip.md, "Wallet
 * attestation trust"). `keyOf` answers the public key of the first certificate of `chain` (leaf
 * first, at most 5 certificates) when every certificate is valid at `now`, each is signed by the
 * next, every one above the leaf (and the anchor above them) may sign certificates at its place in
 * the path (a CA, keyCertSign when key usage is stated, within its path length constraint), and the
 * last is one of the anchors or signed by one of them; otherwise undefined. It never throws on
 * what a caller sent.
 *
 * A chain that holds is remembered (docs/mdoc.md, "Limits"): at most CHAIN_CACHE_LIMIT of them, each
 * for CHAIN_CACHE_MS at most and only while `now` lies inside every certificate's validity, so a
 * remembered chain is never accepted outside it. Many presentations carry the same issuer chain,
 * and checking it again costs more than the rest of an mdoc's checks. A chain that fails is checked
 * again each time.
 */
export class ChainVerifier implements CertificateChains {
  private readonly anchors: x509.X509Certificate[];
  private readonly held = new Map<string, { key: JsonWebKey; notBefore: number; notAfter: number; until: number }>();

  constructor(anchors: readonly CertificateBase64[]) {
    this.anchors = anchors.map((a) => new x509.X509Certificate(Buffer.from(a, 'base64')));
  }

  get empty(): boolean {
    return this.anchors.length === 0;
  }

  async keyOf(chain: readonly string[], now: Date): Promise<JsonWebKey | undefined> {
    if (chain.length === 0 || chain.length > 5 || this.anchors.length === 0) return undefined;
    const id = chain.join('.');
    const at = now.getTime();
    const kept = this.held.get(id);
    if (kept && at < kept.until && at >= kept.notBefore && at < kept.notAfter) return kept.key;
    const held = await this.check(chain, now);
    if (!held) return undefined;
    if (this.held.size >= CHAIN_CACHE_LIMIT) this.held.clear();
    this.held.set(id, { ...held, until: at + CHAIN_CACHE_MS });
    return held.key;
  }

  /** The leaf's key when the chain holds at `now`, with the span (ms) in which every certificate of the path, the anchor's too, is valid. */
  private async check(
    chain: readonly string[],
    now: Date,
  ): Promise<{ key: JsonWebKey; notBefore: number; notAfter: number } | undefined> {
    try {
      const certificates = chain.map((c) => new x509.X509Certificate(Buffer.from(c, 'base64')));
      for (const [i, certificate] of certificates.entries()) {
        if (certificate.notAfter <= now || certificate.notBefore > now) return undefined;
        // Above the leaf, i - 1 CA certificates lie between it and the leaf.
        if (i > 0 && !mayCertify(certificate, i - 1)) return undefined;
        const next = certificates[i + 1];
        if (next && !(await certificate.verify({ publicKey: next.publicKey, signatureOnly: true }))) return undefined;
      }
      const top = certificates[certificates.length - 1] as x509.X509Certificate;
      const raw = Buffer.from(top.rawData);
      let anchored = this.anchors.some((anchor) => raw.equals(Buffer.from(anchor.rawData)));
      const path = [...certificates];
      for (const anchor of this.anchors) {
        if (anchored) break;
        if (anchor.notAfter <= now || anchor.notBefore > now) continue;
        // Every certificate of the chain but the leaf is a CA below the anchor.
        if (!mayCertify(anchor, certificates.length - 1)) continue;
        anchored = await top.verify({ publicKey: anchor.publicKey, signatureOnly: true });
        if (anchored) path.push(anchor);
      }
      if (!anchored) return undefined;
      const leaf = certificates[0] as x509.X509Certificate;
      const key = (await webcrypto.subtle.exportKey('jwk', await leaf.publicKey.export(P256, ['verify']))) as JsonWebKey;
      const notBefore = Math.max(...path.map((c) => c.notBefore.getTime()));
      const notAfter = Math.min(...path.map((c) => c.notAfter.getTime()));
      return { key, notBefore, notAfter };
    } catch {
      return undefined;
    }
  }
}
