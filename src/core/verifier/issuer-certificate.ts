import type { JsonWebKey } from 'node:crypto';
import type { JWK } from 'jose';
import { p256Jwk, p256Thumbprint } from '../jose/es256.ts';

/**
 * The issuer's key established by its certificate as well as by its DID document (HAIP 1.0 §6.1;
 * docs/haip.md "Verification", docs/conformance.md schema /2): the issuer JWT carries `x5c`, a
 * chain that ends at a trusted anchor and whose leaf certifies the very key the DID document
 * lists for the JWT's `kid`. Judging the chain needs X.509, which core does not hold: the caller
 * checks it (`ChainCheck`) and this module says what the outcome means.
 */

/**
 * The key the leaf of `chain` (base64 DER, leaf first) certifies when the chain is sound at `now`
 * (Unix seconds) and ends at one of `anchors` (base64 DER); undefined otherwise. Never throws on
 * what a presentation carries.
 */
export type ChainCheck = (
  chain: readonly string[],
  anchors: readonly string[],
  now: number,
) => Promise<JsonWebKey | JWK | undefined>;

/** The header's `x5c` when it is a non-empty list of strings (the check bounds its length). */
export function x5cOf(header: Record<string, unknown> | undefined): string[] | undefined {
  const chain = header?.x5c;
  if (!Array.isArray(chain) || chain.length === 0) return undefined;
  return chain.every((c) => typeof c === 'string' && c.length > 0) ? (chain as string[]) : undefined;
}

/** What the caller found: no usable `x5c`, or the key the chain certifies (undefined when it does not hold). */
export type CertifiedKey = { x5c: false } | { x5c: true; key: JsonWebKey | JWK | undefined };

export const CERTIFICATE_PROBLEMS = {
  missing: 'The issuer JWT carries no certificate chain (x5c) for its key.',
  untrusted: 'The x5c chain does not end at a trusted anchor, or a certificate of it is not valid at the time of judging.',
  otherKey: 'The x5c chain certifies another key than the one the DID document lists for the kid.',
} as const;

/** Why the certificate does not establish `listed` (the DID document's key for the kid), or undefined when it does. */
export function certificateProblem(found: CertifiedKey, listed: JWK | undefined): string | undefined {
  if (!found.x5c) return CERTIFICATE_PROBLEMS.missing;
  if (!found.key) return CERTIFICATE_PROBLEMS.untrusted;
  const certified = p256Jwk(found.key);
  if (!certified || !listed || p256Thumbprint(certified) !== p256Thumbprint(listed)) return CERTIFICATE_PROBLEMS.otherKey;
  return undefined;
}

/** Checks the issuer JWT header's chain with `check`: what `certificateProblem` judges. */
export async function certifiedKeyOf(
  header: Record<string, unknown> | undefined,
  anchors: readonly string[],
  now: number,
  check: ChainCheck,
): Promise<CertifiedKey> {
  const chain = x5cOf(header);
  if (!chain) return { x5c: false };
  return { x5c: true, key: await check(chain, anchors, now) };
}
