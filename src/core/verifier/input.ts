import { isObject } from '../jose/es256.ts';
import type { VerificationInput } from './verify-presentation.ts';

/** Schema /2's trust anchors: a few root certificates, each far below this size. */
export const MAX_TRUST_ANCHORS = 10;
const MAX_ANCHOR_CHARS = 16_384;

/**
 * Checks that a value has the vector `input` shape (docs/conformance.md). A wrong shape is the
 * caller's mistake, not a property of the presentation, so it is reported apart from any verdict.
 * The presentation, DID document and status list themselves are judged by the verifier.
 */
export function readVerificationInput(value: unknown): VerificationInput | string {
  if (!isObject(value)) return 'input is not an object';
  const { presentation, didDocument, statusList, expected, now, trustAnchors } = value;
  if (statusList !== undefined && typeof statusList !== 'string') return 'input.statusList is not a string';
  if (
    trustAnchors !== undefined &&
    !(
      Array.isArray(trustAnchors) &&
      trustAnchors.length > 0 &&
      trustAnchors.length <= MAX_TRUST_ANCHORS &&
      trustAnchors.every((a) => typeof a === 'string' && a.length <= MAX_ANCHOR_CHARS && /^[A-Za-z0-9+/]+={0,2}$/.test(a))
    )
  ) {
    return `input.trustAnchors is not a list of 1 to ${MAX_TRUST_ANCHORS} base64 DER certificates`;
  }
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
  if (trustAnchors !== undefined) input.trustAnchors = trustAnchors as string[];
  return input;
}
