import { createHash } from 'node:crypto';

/**
 * SD-JWT disclosures (RFC 9901 §4.2). Salts and decoys come from the caller's randomness (each
 * slice used at once, never kept), so this stays pure; the digest is SHA-256 over the ASCII of the base64url disclosure (§4.2.3).
 */
export type RandomBytes = (n: number) => Uint8Array;

export const SD_ALG = 'sha-256';
const SALT_BYTES = 16; // 128 bits, the RFC's recommended minimum

export const b64url = (bytes: Uint8Array | string) =>
  (typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : Buffer.from(bytes)).toString('base64url');

export const sdDigest = (disclosure: string) => createHash('sha256').update(disclosure, 'ascii').digest('base64url');

export interface DisclosableClaim {
  name: string;
  value: unknown;
  /** array(text) and array(object): each element is its own disclosure as well (§4.2.2). */
  elementsDisclosable: boolean;
}

export interface Disclosed {
  /** Digests for the top-level `_sd`, decoys included, sorted so claim order cannot be read. */
  sd: string[];
  /** Encoded disclosures in the order the compact form carries them. */
  disclosures: string[];
}

export function discloseClaims(claims: readonly DisclosableClaim[], random: RandomBytes, decoys: number): Disclosed {
  const disclosures: string[] = [];
  const disclose = (parts: unknown[]) => {
    const encoded = b64url(JSON.stringify(parts));
    disclosures.push(encoded);
    return sdDigest(encoded);
  };
  const salt = () => b64url(random(SALT_BYTES));
  const sd = claims.map((c) => {
    const value =
      c.elementsDisclosable && Array.isArray(c.value)
        ? c.value.map((element) => ({ '...': disclose([salt(), element]) }))
        : c.value;
    return disclose([salt(), c.name, value]);
  });
  // §4.2.5: decoy digests are hashes of random data, indistinguishable from real ones.
  for (let i = 0; i < decoys; i++) sd.push(createHash('sha256').update(random(32)).digest('base64url'));
  sd.sort();
  return { sd, disclosures };
}

/** `<issuer JWT>~<disclosure>~...~`: an SD-JWT without key binding ends with "~" (§4). */
export const compactSdJwt = (jwt: string, disclosures: readonly string[]) => `${[jwt, ...disclosures].join('~')}~`;
