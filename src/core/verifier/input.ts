import { isObject } from '../jose/es256.ts';
import type { VerificationInput } from './verify-presentation.ts';

/**
 * Checks that a value has the vector `input` shape (docs/conformance.md). A wrong shape is the
 * caller's mistake, not a property of the presentation, so it is reported apart from any verdict.
 * The presentation, DID document and status list themselves are judged by the verifier.
 */
export function readVerificationInput(value: unknown): VerificationInput | string {
  if (!isObject(value)) return 'input is not an object';
  const { presentation, didDocument, statusList, expected, now } = value;
  if (statusList !== undefined && typeof statusList !== 'string') return 'input.statusList is not a string';
  // Number.isFinite is false for anything that is not a number.
  if (!Number.isFinite(now)) return 'input.now is not a number of seconds';
  if (!isObject(expected)) return 'input.expected is not an object';
  const { aud, nonce, vct, claims } = expected;
  if (typeof aud !== 'string' || typeof nonce !== 'string' || typeof vct !== 'string') {
    return 'input.expected needs string aud, nonce and vct';
  }
  if (!Array.isArray(claims) || claims.some((c) => typeof c !== 'string')) {
    return 'input.expected.claims is not an array of strings';
  }
  const input: VerificationInput = {
    presentation: presentation as string,
    didDocument,
    expected: { aud, nonce, vct, claims: claims as string[] },
    now: now as number,
  };
  if (statusList !== undefined) input.statusList = statusList;
  return input;
}
