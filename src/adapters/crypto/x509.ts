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
import { type JsonWebKey, randomBytes, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

// The library's default provider is the browser's `crypto`; on Node it is set to WebCrypto once here.
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const ES256 = { name: 'ECDSA', hash: 'SHA-256' } as const;

/** A certificate as x5c carries it: standard base64 of its DER (RFC 7515 §4.1.6). */
export type CertificateBase64 = string;

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

const importPrivate = (jwk: JsonWebKey) => webcrypto.subtle.importKey('jwk', jwk, P256, false, ['sign']);

function importPublic(jwk: JsonWebKey) {
  const { kty, crv, x, y } = jwk;
  return webcrypto.subtle.importKey('jwk', { kty, crv, x, y }, P256, true, ['verify']);
}

/** The platform's root: self-signed, a CA that may sign end-entity certificates only (path length 0). */
export async function createRootCertificate(opts: {
  subject: CertificateSubject;
  privateJwk: JsonWebKey;
  validity: Validity;
}): Promise<CertificateBase64> {
  const publicKey = await importPublic(opts.privateJwk);
  const privateKey = await importPrivate(opts.privateJwk);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
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
  });
  return Buffer.from(certificate.rawData).toString('base64');
}

/**
 * A certificate for a signing key, issued by the CA whose certificate and private key are given:
 * an end entity that may sign (digitalSignature) and nothing else, with the CA's key identifier as
 * its authority key identifier.
 */
export async function certifyKey(opts: {
  ca: { certificate: CertificateBase64; privateJwk: JsonWebKey };
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
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: nameOf(opts.subject.commonName),
    issuer: caCertificate.subjectName,
    notBefore: opts.validity.notBefore,
    notAfter: opts.validity.notAfter,
    publicKey,
    signingKey: await importPrivate(opts.ca.privateJwk),
    signingAlgorithm: ES256,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caCertificate.publicKey),
      ...(names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : []),
    ],
  });
  return Buffer.from(certificate.rawData).toString('base64');
}
