import { inflateSync } from 'node:zlib';
import { decodeB64url, decodeJws, describe, isObject, verifyEs256 } from '../jose/es256.ts';
import { readStatus, type StatusBits } from '../status-list/codec.ts';
import { assertionKey } from './did-keys.ts';
import type { FailureCode } from './ledger.ts';

/** A list larger than this once inflated is refused: 16 MiB is 134M one-bit entries. */
const MAX_LIST_BYTES = 16 * 1024 * 1024;
/** Verified lists kept, and the bytes (inflated lists and their tokens) they may hold together. */
export const STATUS_LIST_CACHE_LIMITS = { entries: 64, bytes: 64 * 1024 * 1024 } as const;
/** A verified list is kept at most this long, whatever its ttl says. */
const MAX_CACHE_S = 3600;

/**
 * Status List Tokens whose signature was verified, by their exact compact form: many presentations
 * name the same list, and verifying and inflating it again for each costs more than the rest of
 * the check. An entry records the key that verified it (a hit needs the same key from the
 * document given now) and is kept until the token's ttl or exp, whichever is sooner. Every other
 * check (issuer, subject, iat, nbf, exp, the entry) is made again for each presentation.
 */
interface VerifiedList {
  kid: unknown;
  keyId: string;
  payload: Record<string, unknown>;
  /** The inflated list, when `status_list` is one (else no entry can be read from it). */
  entries: Entries | undefined;
  until: number;
}
interface Entries {
  bytes: Uint8Array;
  bits: StatusBits;
}
const verified = new Map<string, VerifiedList>();
let cachedBytes = 0;
let cacheHits = 0;
let limits: { entries: number; bytes: number } = STATUS_LIST_CACHE_LIMITS;

/** What the cache holds now, how often it answered, and its limits: for its tests and for operators. */
export const statusListCacheStats = () => ({ entries: verified.size, bytes: cachedBytes, hits: cacheHits, limits });

/**
 * Empties the cache, with the limits given (the defaults when none are): tests start from an
 * empty cache, and try its bounds with small ones.
 */
export function clearStatusListCache(next: { entries: number; bytes: number } = STATUS_LIST_CACHE_LIMITS): void {
  verified.clear();
  cachedBytes = 0;
  cacheHits = 0;
  limits = next;
}

export type RevocationOutcome =
  | { status: 'passed'; failure?: undefined; detail?: undefined }
  | { status: 'failed' | 'not_performed'; failure: FailureCode; detail: string };

/**
 * Token Status List (draft-ietf-oauth-status-list §8.3) in its validation order: the reference,
 * the token's type, signature and issuer, `sub` against the reference, expiry, then the entry.
 * The list's key is an assertion key of the issuer's DID document; `iss`, when the list carries
 * one, must be the credential's issuer.
 */
export function checkRevocation(
  credential: Record<string, unknown>,
  statusList: string | undefined,
  didDocument: unknown,
  now: number,
  skew: number,
): RevocationOutcome {
  const fail = (failure: FailureCode, detail: string): RevocationOutcome => ({ status: 'failed', failure, detail });
  if (credential.status === undefined) {
    return { status: 'not_performed', failure: 'status_unavailable', detail: 'The credential has no status claim.' };
  }
  const reference = isObject(credential.status) ? credential.status.status_list : undefined;
  // Not a safe integer (a string, a fraction, anything else) reads as -1: not an index.
  const idx = isObject(reference) && Number.isSafeInteger(reference.idx) ? (reference.idx as number) : -1;
  const uri = isObject(reference) ? reference.uri : undefined;
  if (typeof uri !== 'string' || idx < 0) {
    return fail('status_list_invalid', 'The status claim is not {status_list: {idx, uri}}.');
  }
  if (statusList === undefined) {
    return {
      status: 'not_performed',
      failure: 'status_unavailable',
      detail: `No status list was supplied for ${describe(uri)}.`,
    };
  }
  const list = verifiedList(statusList, didDocument, now);
  if (typeof list === 'string') return fail('status_list_invalid', list);
  if (list.payload.iss !== undefined && list.payload.iss !== credential.iss) {
    return fail('status_list_invalid', 'The status list was issued by someone else.');
  }
  const { iat, nbf, sub, exp } = list.payload;
  // iat is REQUIRED (§5.1); a token not yet valid (RFC 7519 §4.1.5) is not a list of now.
  if (typeof iat !== 'number') return fail('status_list_invalid', 'The status list token has no iat.');
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf - skew > now)) {
    return fail('status_list_invalid', 'The status list token is not yet valid (nbf).');
  }
  if (sub !== uri) return fail('status_list_mismatch', `The status list is for ${describe(sub)}, not ${describe(uri)}.`);
  if (exp !== undefined && (typeof exp !== 'number' || exp + skew <= now)) {
    return fail('status_list_expired', 'The status list token has expired.');
  }
  const value = list.entries ? readEntry(list.entries, idx) : undefined;
  if (value === undefined) return fail('status_list_invalid', `The status list does not hold a valid entry ${idx}.`);
  if (value !== 0) return fail('credential_revoked', `Entry ${idx} of ${describe(uri)} is ${value}.`);
  return { status: 'passed' };
}

/**
 * The token's payload and inflated list once its signature verifies with the issuer's assertion
 * key (from the cache when this exact token was verified with that key before); else why not.
 */
function verifiedList(token: string, didDocument: unknown, now: number): VerifiedList | string {
  const hit = verified.get(token);
  if (hit && hit.until > now) {
    const key = assertionKey(didDocument, hit.kid);
    if (key && keyIdOf(key.jwk) === hit.keyId) {
      cacheHits++;
      return hit;
    }
  }
  const jws = decodeJws(token);
  if (!jws) return 'The status list is not a compact JWS.';
  if (jws.header.typ !== 'statuslist+jwt') return 'The status list typ is not statuslist+jwt.';
  if (jws.header.alg !== 'ES256') return 'The status list is not signed with ES256.';
  const key = assertionKey(didDocument, jws.header.kid);
  if (!key) return 'The status list key is not an assertion key of the issuer.';
  if (!verifyEs256(jws, key.jwk)) return 'The status list signature does not verify.';
  const list: VerifiedList = {
    kid: jws.header.kid,
    keyId: keyIdOf(key.jwk),
    payload: jws.payload,
    entries: inflateList(jws.payload.status_list),
    until: cacheUntil(jws.payload, now),
  };
  if (list.until > now) remember(token, list);
  return list;
}

const keyIdOf = (jwk: { x?: string | undefined; y?: string | undefined }) => `${jwk.x}.${jwk.y}`;

/**
 * Until the ttl (seconds; none, or not a number, keeps nothing), never past exp (a list whose exp
 * is not a number is refused, and kept for no time), and an hour at most.
 */
function cacheUntil(payload: Record<string, unknown>, now: number): number {
  const ttl = typeof payload.ttl === 'number' ? payload.ttl : 0;
  return Math.min(now + ttl, Number(payload.exp ?? Number.POSITIVE_INFINITY), now + MAX_CACHE_S);
}

/** What an entry of the cache costs: its token and its inflated list. */
const sizeOf = (token: string, list: VerifiedList) => token.length + (list.entries?.bytes.length ?? 0);

function remember(token: string, list: VerifiedList): void {
  const size = sizeOf(token, list);
  if (size > limits.bytes) return;
  const old = verified.get(token);
  if (old) {
    verified.delete(token);
    cachedBytes -= sizeOf(token, old);
  }
  while (verified.size >= limits.entries || cachedBytes + size > limits.bytes) {
    const [oldest, entry] = verified.entries().next().value as [string, VerifiedList];
    verified.delete(oldest);
    cachedBytes -= sizeOf(oldest, entry);
  }
  verified.set(token, list);
  cachedBytes += size;
}

/** The inflated list of a well-formed `status_list` claim; undefined for anything else (§8.3: reject). */
function inflateList(statusList: unknown): Entries | undefined {
  if (!isObject(statusList)) return undefined;
  const bits = statusList.bits;
  if (bits !== 1 && bits !== 2 && bits !== 4 && bits !== 8) return undefined;
  try {
    // A `lst` that is not base64url (or not a string) decodes to nothing, which does not inflate.
    const compressed = decodeB64url(statusList.lst as string) as Uint8Array;
    return { bytes: inflateSync(compressed, { maxOutputLength: MAX_LIST_BYTES }), bits };
  } catch {
    // Not a zlib stream, or too large once inflated.
    return undefined;
  }
}

/** The entry at `idx`; undefined when the list ends before it (§8.3: reject). */
function readEntry(list: Entries, idx: number): number | undefined {
  return idx < (list.bytes.length * 8) / list.bits ? readStatus(list.bytes, list.bits, idx) : undefined;
}
