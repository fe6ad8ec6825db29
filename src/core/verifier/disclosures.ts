import { decodeJson, describe, isObject } from '../jose/es256.ts';
import { sdDigest } from '../sd-jwt/disclose.ts';
import type { FailureCode } from './ledger.ts';

/**
 * Claims that SD-JWT VC (-19 §3.2.2) forbids disclosing selectively, plus the SD-JWT carriers.
 * They are never subject claims of the result either.
 */
export const REGISTERED_CLAIMS = new Set([
  'iss',
  'nbf',
  'exp',
  'iat',
  'cnf',
  'vct',
  'vct#integrity',
  'aka_vcts',
  'status',
  '_sd',
  '_sd_alg',
]);
const NEVER_DISCLOSED = new Set([...REGISTERED_CLAIMS].filter((c) => c !== 'iat'));

export type DisclosureOutcome =
  | { ok: true; claims: Record<string, unknown>; applicable: boolean }
  | { ok: false; failure: FailureCode; detail: string; claims: Record<string, unknown> };

/**
 * RFC 9901 §7.1 for the structure openrail supports: every disclosure is a top-level object
 * property named in the payload's `_sd`. Nested `_sd` and array elements (`{"...": digest}`)
 * are refused rather than half-checked. `claims` holds the subject claims: plaintext ones and
 * those whose disclosure is sound, so required claims can still be judged when another
 * disclosure is bad.
 */
export function processDisclosures(payload: Record<string, unknown>, encoded: readonly string[]): DisclosureOutcome {
  // A Map, turned into an object only at the end with own data properties: a claim named
  // "__proto__" stays a claim instead of replacing the result's prototype.
  const found = new Map<string, unknown>();
  for (const [name, value] of Object.entries(payload)) if (!REGISTERED_CLAIMS.has(name)) found.set(name, value);
  const claimsNow = () => Object.fromEntries(found);
  const fail = (failure: FailureCode, detail: string): DisclosureOutcome => ({ ok: false, failure, detail, claims: claimsNow() });

  if (payload._sd_alg !== undefined && payload._sd_alg !== 'sha-256') {
    return fail('unsupported_hash_algorithm', `_sd_alg is ${describe(payload._sd_alg)}.`);
  }
  // `_sd` itself is searched too: an array of digest strings holds nothing nested, and anything
  // else in it is refused as a structure either way.
  const nested = findNestedSd(Object.entries(payload));
  if (nested) return fail('unsupported_disclosure_structure', `The payload has ${nested}.`);
  const sd = payload._sd ?? [];
  if (!Array.isArray(sd) || sd.some((d) => typeof d !== 'string')) {
    return fail('unsupported_disclosure_structure', '_sd is not an array of digest strings.');
  }
  const referenced = new Set<string>(sd as string[]);
  if (referenced.size !== sd.length) return fail('duplicate_digest', 'A digest appears twice in _sd.');

  const seen = new Set<string>();
  let problem: DisclosureOutcome | undefined;
  for (const disclosure of encoded) {
    const digest = sdDigest(disclosure);
    if (seen.has(digest)) {
      problem ??= fail('duplicate_digest', 'The same disclosure is presented twice.');
      continue;
    }
    seen.add(digest);
    const parts = decodeJson(disclosure);
    if (Array.isArray(parts) && parts.length === 2) {
      problem ??= fail('unsupported_disclosure_structure', 'An array-element disclosure is presented.');
      continue;
    }
    if (!Array.isArray(parts) || parts.length !== 3 || typeof parts[0] !== 'string' || typeof parts[1] !== 'string') {
      problem ??= fail('malformed_disclosure', 'A disclosure is not [salt, name, value].');
      continue;
    }
    const [, name, value] = parts as [string, string, unknown];
    if (!referenced.has(digest)) {
      problem ??= fail('unreferenced_disclosure', `The disclosure of ${describe(name)} is not referenced by the credential.`);
      continue;
    }
    if (name === '...' || NEVER_DISCLOSED.has(name) || Object.hasOwn(payload, name) || found.has(name)) {
      problem ??= fail('malformed_disclosure', `The disclosure of ${describe(name)} names a reserved or already present claim.`);
      continue;
    }
    const inner = findNestedSd([[name, value]]);
    if (inner) {
      problem ??= fail('unsupported_disclosure_structure', `The disclosed ${describe(name)} has ${inner}.`);
      continue;
    }
    found.set(name, value);
  }
  if (problem) return { ...problem, claims: claimsNow() };
  // A disclosure presented without any digest in `_sd` is unreferenced and has failed above.
  return { ok: true, claims: claimsNow(), applicable: referenced.size > 0 };
}

/** Describes the first nested `_sd` or array-element digest under these entries, if any. */
function findNestedSd(entries: Array<[string, unknown]>): string | undefined {
  const stack: unknown[] = entries.map(([, v]) => v);
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (const element of value) {
        if (isObject(element) && Object.hasOwn(element, '...')) return 'an array-element digest ("...")';
        stack.push(element);
      }
    } else if (isObject(value)) {
      if (Object.hasOwn(value, '_sd')) return 'a nested "_sd"';
      // One push per member: a spread of a very wide object would exceed the argument limit.
      for (const inner of Object.values(value)) stack.push(inner);
    }
  }
  return undefined;
}
