import { didWebDocumentUrl } from '../../core/did-web.ts';
import { ServiceError } from '../../core/errors.ts';
import { isObject } from '../../core/jose/es256.ts';
import { assertionKey } from '../../core/verifier/did-keys.ts';
import { FetchRefused, type HttpFetcher } from '../../ports/http-fetcher.ts';

/** A did:web DID (W3C did:web §3.2): a host (its port percent-encoded) and optional path segments. */
export const DID_WEB = /^did:web:([A-Za-z0-9.-]+(?:%3A[0-9]{1,5})?)((?::[A-Za-z0-9._~-]+)*)$/;
/** Verification methods a resolved document may hold, at most: what an issuer needs, bounded. */
const MAX_METHODS = 50;

/**
 * Where a did:web DID's document is (core/did-web.ts). An `http://` origin OPENRAIL_OUTBOUND_ALLOW
 * names is read over http, for development and tests, as webhooks are.
 */
export function didWebUrl(did: string, outboundAllow: readonly string[]): URL {
  const url = DID_WEB.test(did) ? didWebDocumentUrl(did) : undefined;
  if (!url) throw new ServiceError('invalid_request', 'issuer must be a did:web DID.');
  if (outboundAllow.includes(`http://${url.host}`)) url.protocol = 'http:';
  return url;
}

/**
 * The DID document at `url`, through the guarded fetcher (public https only, bounded), which must
 * be the DID's own. Refusals are `did_unresolvable`, saying why.
 */
export async function readDidDocument(did: string, url: URL, fetcher: HttpFetcher): Promise<Record<string, unknown>> {
  let body: string;
  try {
    body = (await fetcher.get(url.href, { accept: 'application/did+json, application/json' })).body;
  } catch (err) {
    const why = err instanceof FetchRefused ? err.message : 'it could not be fetched';
    throw new ServiceError('did_unresolvable', `The DID document of ${did} at ${url.href} could not be read: ${why}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    throw new ServiceError('did_unresolvable', `The document at ${url.href} is not JSON.`);
  }
  if (!isObject(doc) || doc.id !== did)
    throw new ServiceError('did_unresolvable', `The document at ${url.href} is not the document of ${did}.`);
  const methods = Array.isArray(doc.verificationMethod) ? doc.verificationMethod : [];
  if (methods.length > MAX_METHODS)
    throw new ServiceError('did_unresolvable', `The document of ${did} lists over ${MAX_METHODS} keys.`);
  return doc;
}

/**
 * Resolves a did:web DID to its document, for the trust registry: the document must also name at
 * least one P-256 key in `assertionMethod`, or no credential of the issuer could ever verify.
 */
export async function resolveDidWeb(
  did: string,
  fetcher: HttpFetcher,
  outboundAllow: readonly string[],
): Promise<Record<string, unknown>> {
  const doc = await readDidDocument(did, didWebUrl(did, outboundAllow), fetcher);
  const methods = Array.isArray(doc.verificationMethod) ? doc.verificationMethod : [];
  const signs = methods.some((m) => isObject(m) && typeof m.id === 'string' && assertionKey(doc, m.id) !== undefined);
  if (!signs) throw new ServiceError('did_unresolvable', `The document of ${did} names no P-256 key in assertionMethod.`);
  return doc;
}
