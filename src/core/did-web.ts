import type { JWK } from 'jose';

/**
 * did:web identifiers and documents (w3c-ccg did-method-web).
 * The host comes from PUBLIC_URL; a port is percent-encoded as %3A, path segments join with ':'.
 */
export function platformDid(publicUrl: URL): string {
  const host = publicUrl.port ? `${publicUrl.hostname}%3A${publicUrl.port}` : publicUrl.hostname;
  return `did:web:${host}`;
}

export function tenantDid(publicUrl: URL, slug: string): string {
  return `${platformDid(publicUrl)}:t:${slug}`;
}

/** The public part of a P-256 key as published in a DID document. */
export interface PublicKeyRecord {
  kid: string; // RFC 7638 thumbprint; the DID URL fragment
  publicJwk: JWK;
}

export interface DidDocument {
  '@context': string[];
  id: string;
  /** What a verifier may meet is wider than what the service publishes (`publicP256`): any EC key with its four members. */
  verificationMethod: Array<{
    id: string;
    type: 'JsonWebKey2020';
    controller: string;
    publicKeyJwk: JWK & { kty: string; crv: string; x: string; y: string };
  }>;
  assertionMethod: string[];
  authentication?: string[];
}

/** A P-256 public key as a DID document publishes it. */
export interface P256PublicJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
}

/** Only kty, crv, x and y leave the service: never `d`, never anything else a stored JWK may carry. */
export function publicP256(jwk: JWK): P256PublicJwk {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.x || !jwk.y) throw new Error('not a P-256 public key');
  return { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y };
}

/**
 * `assertion` keys sign credentials and status lists; `authentication` keys prove the
 * controller's identity in protocols (the platform's verifier key signs OID4VP requests).
 */
export function buildDidDocument(
  did: string,
  keys: { assertion: PublicKeyRecord[]; authentication?: PublicKeyRecord[] },
): DidDocument {
  const method = (k: PublicKeyRecord) => ({
    id: `${did}#${k.kid}`,
    type: 'JsonWebKey2020' as const,
    controller: did,
    publicKeyJwk: publicP256(k.publicJwk),
  });
  const authentication = keys.authentication ?? [];
  const doc: DidDocument = {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1'],
    id: did,
    verificationMethod: [...keys.assertion, ...authentication].map(method),
    assertionMethod: keys.assertion.map((k) => `${did}#${k.kid}`),
  };
  if (authentication.length > 0) doc.authentication = authentication.map((k) => `${did}#${k.kid}`);
  return doc;
}

/**
 * Where a did:web DID's document is (did:web §3.2.1: the host, with `%3A` for a port, and an
 * optional path; `/.well-known` without one), always as https; undefined for anything else. A
 * caller that may read a development origin over http changes the protocol itself.
 */
export function didWebDocumentUrl(did: string): URL | undefined {
  const match = /^did:web:([^:#?/]+)((?::[^:#?/]+)*)$/.exec(did);
  if (!match?.[1]) return undefined;
  const host = decodeURIComponent(match[1]);
  const path = match[2] ? match[2].slice(1).split(':').map(decodeURIComponent).join('/') : '.well-known';
  return new URL(`https://${host}/${path}/did.json`);
}
