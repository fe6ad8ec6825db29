import { isObject, p256Jwk } from '../core/jose/es256.ts';
import { didWebDocumentUrl, WalletError, type WalletNetOptions } from './net.ts';

/** The DID document of a did:web DID, fetched from the DID's address; it must be the document of that DID. */
export async function fetchDidDocument(
  did: string,
  fetchFn: typeof fetch,
  net: WalletNetOptions,
): Promise<Record<string, unknown>> {
  const url = didWebDocumentUrl(did, net);
  const res = await fetchFn(url, { headers: { accept: 'application/did+json, application/json' } });
  if (res.status !== 200) throw new WalletError(`the DID document of ${did} answered ${res.status}.`);
  let doc: unknown;
  try {
    doc = await res.json();
  } catch {
    throw new WalletError(`the DID document of ${did} is not JSON.`);
  }
  if (!isObject(doc) || doc.id !== did) throw new WalletError(`the document at ${url.href} is not the document of ${did}.`);
  return doc;
}

/**
 * The P-256 key a did:web DID URL names (`did:web:…#key`), read from the DID's document; the
 * document must be the document of that DID.
 */
export async function resolveDidWebKey(didUrl: string, fetchFn: typeof fetch, net: WalletNetOptions) {
  const did = didUrl.split('#')[0] ?? '';
  const doc = await fetchDidDocument(did, fetchFn, net);
  const methods = Array.isArray(doc.verificationMethod) ? doc.verificationMethod : [];
  const method = methods.find((m: unknown) => isObject(m) && m.id === didUrl);
  const jwk = isObject(method) ? p256Jwk(method.publicKeyJwk) : undefined;
  if (!jwk) throw new WalletError(`${did} publishes no P-256 key named ${didUrl}.`);
  return { kty: 'EC' as const, crv: 'P-256' as const, x: String(jwk.x), y: String(jwk.y) };
}

/**
 * The did:web DID whose document is at `url` + `/did.json` (did:web method, §3.2, read backwards):
 * the host (a port as %3A), then each path segment. An openrail issuer's identifier is that of its
 * credential issuer URL (`https://rail.example/t/acme` is `did:web:rail.example:t:acme`).
 */
export function didWebAt(url: URL): string {
  const host = url.port ? `${url.hostname}%3A${url.port}` : url.hostname;
  const segments = url.pathname.split('/').filter((s) => s !== '');
  return ['did:web', host, ...segments.map(encodeURIComponent)].join(':');
}
