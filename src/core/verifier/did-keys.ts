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
  if (!did || !isObject(doc) || typeof kid !== 'string' || kid.length === 0) return undefined;
  const absolute = (id: string) => (id.startsWith('#') ? `${did}${id}` : id);
  const wanted = kid.includes('#') || kid.startsWith('did:') ? absolute(kid) : `${did}#${kid}`;
  if (!Array.isArray(doc.assertionMethod)) return undefined;
  const methods: unknown[] = Array.isArray(doc.verificationMethod) ? doc.verificationMethod : [];
  for (const ref of doc.assertionMethod as unknown[]) {
    // assertionMethod entries are references to verificationMethod ids or embedded methods.
    const method =
      typeof ref === 'string'
        ? methods.find((m) => isObject(m) && typeof m.id === 'string' && absolute(m.id) === absolute(ref))
        : ref;
    if (!isObject(method) || typeof method.id !== 'string' || absolute(method.id) !== wanted) continue;
    const jwk = p256Jwk(method.publicKeyJwk);
    if (jwk) return { jwk, id: absolute(method.id) };
  }
  return undefined;
}
