/**
 * Key resolution by `x5c`, as a relying party that trusts one anchor does it (SD-JWT VC §3.5,
 * HAIP 1.0), with Node's own X509Certificate (OpenSSL), not the library the service certifies
 * with: the chain runs from the header's first certificate, each signed by the next, the last by
 * the anchor; none is the anchor or self-signed; each is valid at `at`; the first is not a CA.
 * Answers the first certificate's key, for the JWS check.
 */
import assert from 'node:assert/strict';
import { type KeyObject, X509Certificate } from 'node:crypto';
import { compactVerify, decodeProtectedHeader } from 'jose';

export function keyFromX5c(jws: string, anchorPem: string, at = new Date()): { key: KeyObject; leaf: X509Certificate } {
  const { x5c } = decodeProtectedHeader(jws);
  assert.ok(Array.isArray(x5c) && x5c.length > 0, 'the protected header carries x5c');
  const anchor = new X509Certificate(anchorPem);
  const chain = x5c.map((c) => new X509Certificate(Buffer.from(c, 'base64')));
  chain.forEach((cert, i) => {
    const issuer = chain[i + 1] ?? anchor;
    assert.ok(cert.checkIssued(issuer) && cert.verify(issuer.publicKey), `certificate ${i + 1} is issued by the next one up`);
    assert.ok(!cert.verify(cert.publicKey), `certificate ${i + 1} is not self-signed`);
    assert.notEqual(cert.fingerprint256, anchor.fingerprint256, 'the chain leaves out the trust anchor');
    assert.ok(
      Date.parse(cert.validFrom) <= at.getTime() && at.getTime() <= Date.parse(cert.validTo),
      `certificate ${i + 1} is valid now`,
    );
  });
  const leaf = chain[0] as X509Certificate;
  assert.equal(leaf.ca, false, 'the key’s certificate is not a CA');
  return { key: leaf.publicKey, leaf };
}

/** The JWS verified with the key its x5c resolves to: the payload, or a rejection. */
export async function verifyByX5c(jws: string, anchorPem: string, at = new Date()): Promise<Record<string, unknown>> {
  const { key } = keyFromX5c(jws, anchorPem, at);
  const { payload } = await compactVerify(jws, key);
  return JSON.parse(Buffer.from(payload).toString('utf8')) as Record<string, unknown>;
}

/** The subject alternative names of one kind (`URI`, `DNS`) of a certificate, as Node lists them. */
const altNames = (cert: X509Certificate, kind: string) =>
  (cert.subjectAltName ?? '')
    .split(', ')
    .filter((n) => n.startsWith(`${kind}:`))
    .map((n) => n.slice(kind.length + 1));
export const uriNames = (cert: X509Certificate) => altNames(cert, 'URI');
export const dnsNames = (cert: X509Certificate) => altNames(cert, 'DNS');
