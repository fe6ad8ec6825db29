import type { JWK } from 'jose';
import { isObject, p256Jwk } from '../jose/es256.ts';

/**
 * Finding a signing key in a supplied DID document (DID Core §5.3). A key counts only when it is
 * a P-256 verification method referenced from `assertionMethod`: the relationship that lets a
 * DID subject sign credentials and status lists. A `kid` may be the full DID URL or just its
 * fragment (openrail's status lists use the bare RFC 7638 thumbprint).
 */
export interface ResolvedKey {
  jwk: JWK;
  /** The verification method's id, absolute. */
  id: string;
}

export function documentId(doc: unknown): string | undefined {
  return isObject(doc) && typeof doc.id === 'string' ? doc.id : undefined;
}

export function assertionKey(doc: unknown, kid: unknown): ResolvedKey | undefined {
  const did = documentId(doc);
  if (!did || typeof kid !== 'string' || kid.length === 0) return undefined;
  const wanted = kid.includes('#') || kid.startsWith('did:') ? absoluteIn(did, kid) : `${did}#${kid}`;
  return assertionKeys(doc).find((key) => key.id === wanted);
}

/** The assertion key of the document that is `jwk` (an mdoc names its key by certificate, not by kid). */
export function assertionKeyMatching(doc: unknown, jwk: JWK): ResolvedKey | undefined {
  const wanted = p256Jwk(jwk);
  return wanted ? assertionKeys(doc).find((key) => key.jwk.x === wanted.x && key.jwk.y === wanted.y) : undefined;
}

const absoluteIn = (did: string, id: string) => (id.startsWith('#') ? `${did}${id}` : id);

/** Every P-256 verification method `assertionMethod` references or embeds, in its order. */
function assertionKeys(doc: unknown): ResolvedKey[] {
  const did = documentId(doc);
  if (!did || !isObject(doc) || !Array.isArray(doc.assertionMethod)) return [];
  const absolute = (id: string) => absoluteIn(did, id);
  const methods: unknown[] = Array.isArray(doc.verificationMethod) ? doc.verificationMethod : [];
  const keys: ResolvedKey[] = [];
  for (const ref of doc.assertionMethod as unknown[]) {
    // assertionMethod entries are references to verificationMethod ids or embedded methods.
    const method =
      typeof ref === 'string'
        ? methods.find((m) => isObject(m) && typeof m.id === 'string' && absolute(m.id) === absolute(ref))
        : ref;
    if (!isObject(method) || typeof method.id !== 'string') continue;
    const jwk = p256Jwk(method.publicKeyJwk);
    if (jwk) keys.push({ jwk, id: absolute(method.id) });
  }
  return keys;
}
