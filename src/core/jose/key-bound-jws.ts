import type { JWK } from 'jose';
import { decodeB64url, decodeJson, isObject, p256Thumbprint, verifyEs256 } from './es256.ts';

/**
 * JWSs that carry their own public key in a `jwk` header and prove possession of it: OID4VCI key
 * proofs (Appendix F.1) and holder-plane requests (docs/authentication.md). One verifier with one
 * rule set, so the two can never drift apart; each caller names its `typ`, audience and time
 * window, and words the refusals its own protocol speaks.
 *
 * The header is exactly {alg, typ, jwk}: ES256 only, the key a public P-256 JWK, and nothing
 * else (no kid or x5c beside the key, no jku or x5u to fetch, no crit or b64 to reinterpret the
 * payload) but the members a caller names as its own (a key proof's `key_attestation`), which are
 * handed back for the caller to check. The payload is a JSON object with `aud`, an integer `iat` within the window, and
 * `exp`/`nbf` honoured when present.
 */
export interface KeyBoundRules {
  typ: string;
  audience: string;
  /** Also accept `aud` as an array holding just the audience (OID4VCI wallets send either). */
  audienceAsArray?: boolean;
  /** How old `iat` may be, in seconds. */
  maxAgeS: number;
  /** How far ahead of the clock `iat` may be, in seconds. */
  maxSkewS: number;
  /** Header members this kind of JWS may carry beside {alg, typ, jwk} (a key proof's `key_attestation`). */
  optionalHeaderMembers?: readonly string[];
}

/** How far ahead of the clock an `nbf` may be: clock skew only, whatever the iat window. */
export const NBF_SKEW_S = 60;

export type KeyBoundRefusal =
  | { reason: 'malformed' }
  | { reason: 'alg' }
  | { reason: 'typ' }
  | { reason: 'no_jwk' }
  | { reason: 'header_member'; member: string }
  | { reason: 'private_jwk' }
  | { reason: 'jwk_not_p256' }
  | { reason: 'signature' }
  | { reason: 'payload' }
  | { reason: 'aud' }
  | { reason: 'iat'; problem: 'missing' | 'window' }
  | { reason: 'exp' }
  | { reason: 'nbf' };

export interface KeyBound {
  /** The public key, its four members only. */
  jwk: JWK;
  /** RFC 7638 SHA-256 thumbprint of the key. */
  thumbprint: string;
  payload: Record<string, unknown>;
  /** The optional header members it carried (only those the rules name). */
  extras: Record<string, unknown>;
}

const HEADER_MEMBERS = new Set(['alg', 'typ', 'jwk']);
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'];

export function verifyKeyBoundJws(compact: string, rules: KeyBoundRules, nowS: number): KeyBound | KeyBoundRefusal {
  const parts = compact.split('.');
  if (parts.length !== 3) return { reason: 'malformed' };
  const [h, p, s] = parts as [string, string, string];
  const header = decodeJson(h);
  const signature = decodeB64url(s);
  if (!isObject(header) || !signature || !decodeB64url(p)) return { reason: 'malformed' };

  if (header.alg !== 'ES256') return { reason: 'alg' };
  if (header.typ !== rules.typ) return { reason: 'typ' };
  const jwk = header.jwk;
  if (!isObject(jwk)) return { reason: 'no_jwk' };
  const optional = new Set(rules.optionalHeaderMembers ?? []);
  const extra = Object.keys(header).find((member) => !HEADER_MEMBERS.has(member) && !optional.has(member));
  if (extra !== undefined) return { reason: 'header_member', member: extra };
  if (PRIVATE_MEMBERS.some((m) => m in jwk)) return { reason: 'private_jwk' };
  const { kty, crv, x, y } = jwk;
  if (kty !== 'EC' || crv !== 'P-256' || typeof x !== 'string' || typeof y !== 'string') return { reason: 'jwk_not_p256' };
  const publicJwk: JWK = { kty, crv, x, y };
  if (!verifyEs256({ signingInput: `${h}.${p}`, signature }, publicJwk)) return { reason: 'signature' };

  const payload = decodeJson(p);
  if (!isObject(payload)) return { reason: 'payload' };
  const aud = payload.aud;
  const audOk =
    aud === rules.audience ||
    (rules.audienceAsArray === true && Array.isArray(aud) && aud.length === 1 && aud[0] === rules.audience);
  if (!audOk) return { reason: 'aud' };
  const { iat, exp, nbf } = payload;
  // Number.isInteger is false for anything that is not a number.
  if (!Number.isInteger(iat)) return { reason: 'iat', problem: 'missing' };
  if ((iat as number) < nowS - rules.maxAgeS || (iat as number) > nowS + rules.maxSkewS) {
    return { reason: 'iat', problem: 'window' };
  }
  if (exp !== undefined && (typeof exp !== 'number' || exp <= nowS)) return { reason: 'exp' };
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf > nowS + NBF_SKEW_S)) return { reason: 'nbf' };
  const extras = Object.fromEntries(Object.entries(header).filter(([member]) => optional.has(member)));
  return { jwk: publicJwk, thumbprint: p256Thumbprint(publicJwk), payload, extras };
}

export const isRefusal = (r: KeyBound | KeyBoundRefusal): r is KeyBoundRefusal => 'reason' in r;
