import { inflateSync } from 'node:zlib';
import { decodeB64url, decodeJws, describe, isObject, verifyEs256 } from '../jose/es256.ts';
import { readStatus, type StatusBits } from '../status-list/codec.ts';
import { assertionKey } from './did-keys.ts';
import type { FailureCode } from './ledger.ts';

/** A list larger than this once inflated is refused: 16 MiB is 134M one-bit entries. */
const MAX_LIST_BYTES = 16 * 1024 * 1024;

export type RevocationOutcome =
  | { status: 'passed' }
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
  const idx = isObject(reference) ? reference.idx : undefined;
  const uri = isObject(reference) ? reference.uri : undefined;
  if (typeof uri !== 'string' || typeof idx !== 'number' || !Number.isSafeInteger(idx) || idx < 0) {
    return fail('status_list_invalid', 'The status claim is not {status_list: {idx, uri}}.');
  }
  if (statusList === undefined) {
    return {
      status: 'not_performed',
      failure: 'status_unavailable',
      detail: `No status list was supplied for ${describe(uri)}.`,
    };
  }
  const jws = decodeJws(statusList);
  if (!jws) return fail('status_list_invalid', 'The status list is not a compact JWS.');
  if (jws.header.typ !== 'statuslist+jwt') return fail('status_list_invalid', 'The status list typ is not statuslist+jwt.');
  if (jws.header.alg !== 'ES256') return fail('status_list_invalid', 'The status list is not signed with ES256.');
  const key = assertionKey(didDocument, jws.header.kid);
  if (!key) return fail('status_list_invalid', 'The status list key is not an assertion key of the issuer.');
  if (!verifyEs256(jws, key.jwk)) return fail('status_list_invalid', 'The status list signature does not verify.');
  const list = jws.payload;
  if (list.iss !== undefined && list.iss !== credential.iss) {
    return fail('status_list_invalid', 'The status list was issued by someone else.');
  }
  // iat is REQUIRED (§5.1); a token not yet valid (RFC 7519 §4.1.5) is not a list of now.
  if (typeof list.iat !== 'number') return fail('status_list_invalid', 'The status list token has no iat.');
  if (list.nbf !== undefined && (typeof list.nbf !== 'number' || list.nbf - skew > now)) {
    return fail('status_list_invalid', 'The status list token is not yet valid (nbf).');
  }
  if (list.sub !== uri)
    return fail('status_list_mismatch', `The status list is for ${describe(list.sub)}, not ${describe(uri)}.`);
  if (list.exp !== undefined && (typeof list.exp !== 'number' || list.exp + skew <= now)) {
    return fail('status_list_expired', 'The status list token has expired.');
  }
  const value = readEntry(list.status_list, idx);
  if (value === undefined) return fail('status_list_invalid', `The status list does not hold a valid entry ${idx}.`);
  if (value !== 0) return fail('credential_revoked', `Entry ${idx} of ${describe(uri)} is ${value}.`);
  return { status: 'passed' };
}

function readEntry(statusList: unknown, idx: number): number | undefined {
  if (!isObject(statusList) || typeof statusList.lst !== 'string') return undefined;
  const bits = statusList.bits;
  if (bits !== 1 && bits !== 2 && bits !== 4 && bits !== 8) return undefined;
  const compressed = decodeB64url(statusList.lst);
  if (!compressed) return undefined;
  try {
    const bytes = inflateSync(compressed, { maxOutputLength: MAX_LIST_BYTES });
    return readStatus(bytes, bits as StatusBits, idx);
  } catch {
    // Not a zlib stream, too large once inflated, or the index is past the end (§8.3: reject).
    return undefined;
  }
}
