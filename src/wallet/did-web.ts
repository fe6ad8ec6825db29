import { isObject, p256Jwk } from '../core/jose/es256.ts';
import { didWebDocumentUrl, WalletError, type WalletNetOptions } from './net.ts';

/**
 * The P-256 key a did:web DID URL names (`did:web:…#key`), read from the DID's document; the
 * document must be the document of that DID.
 */
export async function resolveDidWebKey(didUrl: string, fetchFn: typeof fetch, net: WalletNetOptions) {
  const did = didUrl.split('#')[0] ?? '';
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
  const methods = Array.isArray(doc.verificationMethod) ? doc.verificationMethod : [];
  const method = methods.find((m: unknown) => isObject(m) && m.id === didUrl);
  const jwk = isObject(method) ? p256Jwk(method.publicKeyJwk) : undefined;
  if (!jwk) throw new WalletError(`${did} publishes no P-256 key named ${didUrl}.`);
  return { kty: 'EC' as const, crv: 'P-256' as const, x: String(jwk.x), y: String(jwk.y) };
}
