import { decodeB64url, isObject } from '../jose/es256.ts';
import { MAX_ELEMENTS, type MdocVerificationInput } from '../mdoc/verify-mdoc.ts';
import type { VerificationInput } from './verify-presentation.ts';

/** Schema /2's trust anchors: a few root certificates, each far below this size. */
export const MAX_TRUST_ANCHORS = 10;
const MAX_ANCHOR_CHARS = 16_384;
/**
 * The largest `SessionTranscriptBytes` an mdoc input may name: an OpenID4VP transcript is under a
 * hundred bytes, and ISO/IEC 18013-5's own, with the device engagement and the reader's key, a few
 * hundred.
 */
export const MAX_SESSION_TRANSCRIPT_BYTES = 4096;

/** An input of either kind, told apart by its `format` (docs/conformance.md, schema /3). */
export type VerifierInput =
  | { format: 'dc+sd-jwt'; input: VerificationInput }
  | { format: 'mso_mdoc'; input: MdocVerificationInput };

const isAnchorList = (anchors: unknown): anchors is string[] =>
  Array.isArray(anchors) &&
  anchors.length > 0 &&
  anchors.length <= MAX_TRUST_ANCHORS &&
  anchors.every((a) => typeof a === 'string' && a.length <= MAX_ANCHOR_CHARS && /^[A-Za-z0-9+/]+={0,2}$/.test(a));
const ANCHORS_PROBLEM = `input.trustAnchors is not a list of 1 to ${MAX_TRUST_ANCHORS} base64 DER certificates`;

/**
 * Reads an input of any schema: an mdoc input (`format: "mso_mdoc"`) or an SD-JWT VC input (no
 * `format`, or `"dc+sd-jwt"`). A wrong shape comes back as the sentence saying what is wrong.
 */
export function readVerifierInput(value: unknown): VerifierInput | string {
  if (!isObject(value)) return 'input is not an object';
  if (value.format === 'mso_mdoc') {
    const input = readMdocVerificationInput(value);
    return typeof input === 'string' ? input : { format: 'mso_mdoc', input };
  }
  if (value.format !== undefined && value.format !== 'dc+sd-jwt') return 'input.format is neither dc+sd-jwt nor mso_mdoc';
  const input = readVerificationInput(value);
  return typeof input === 'string' ? input : { format: 'dc+sd-jwt', input };
}

/**
 * Checks that a value has the vector `input` shape (docs/conformance.md). A wrong shape is the
 * caller's mistake, not a property of the presentation, so it is reported apart from any verdict.
 * The presentation, DID document and status list themselves are judged by the verifier.
 */
export function readVerificationInput(value: unknown): VerificationInput | string {
  if (!isObject(value)) return 'input is not an object';
  const { presentation, didDocument, statusList, expected, now, trustAnchors, format } = value;
  if (format !== undefined && format !== 'dc+sd-jwt') return 'input.format is not dc+sd-jwt: this is not an SD-JWT VC input';
  if (statusList !== undefined && typeof statusList !== 'string') return 'input.statusList is not a string';
  if (trustAnchors !== undefined && !isAnchorList(trustAnchors)) return ANCHORS_PROBLEM;
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
  if (trustAnchors !== undefined) input.trustAnchors = trustAnchors;
  return input;
}

const isElementPath = (path: unknown): path is [string, string] =>
  Array.isArray(path) && path.length === 2 && typeof path[0] === 'string' && typeof path[1] === 'string';

/**
 * Checks that a value has the mdoc `input` shape of schema /3 (docs/conformance.md), and decodes
 * the session transcript. Trust anchors are required: an mdoc's issuer key is established by its
 * x5chain. The `handover` a vector carries is for a reader and is not read; the presentation,
 * DID document and status list are the verifier's to judge, as for an SD-JWT VC input.
 */
export function readMdocVerificationInput(value: unknown): MdocVerificationInput | string {
  if (!isObject(value)) return 'input is not an object';
  const { format, presentation, didDocument, statusList, expected, now, trustAnchors } = value;
  if (format !== 'mso_mdoc') return 'input.format is not mso_mdoc';
  if (statusList !== undefined && typeof statusList !== 'string') return 'input.statusList is not a string';
  if (!isAnchorList(trustAnchors)) return `${ANCHORS_PROBLEM} (an mdoc input needs them)`;
  if (!Number.isFinite(now)) return 'input.now is not a number of seconds';
  if (!isObject(expected)) return 'input.expected is not an object';
  const { doctype, claims, sessionTranscript } = expected;
  if (typeof doctype !== 'string') return 'input.expected.doctype is not a string';
  if (!Array.isArray(claims) || claims.length > MAX_ELEMENTS || !claims.every(isElementPath)) {
    return `input.expected.claims is not a list of at most ${MAX_ELEMENTS} [namespace, element] pairs of strings`;
  }
  // Base64url takes 4 characters for 3 bytes: a longer text cannot be within the bound.
  const transcript =
    typeof sessionTranscript === 'string' && sessionTranscript.length <= Math.ceil((MAX_SESSION_TRANSCRIPT_BYTES * 4) / 3)
      ? decodeB64url(sessionTranscript)
      : undefined;
  if (!transcript || transcript.length === 0) {
    return `input.expected.sessionTranscript is not 1 to ${MAX_SESSION_TRANSCRIPT_BYTES} bytes in base64url`;
  }
  const input: MdocVerificationInput = {
    presentation: presentation as string,
    didDocument,
    trustAnchors,
    expected: {
      doctype,
      claims: claims.map(([namespace, element]) => [namespace, element] as const),
      sessionTranscript: new Uint8Array(transcript),
    },
    now: now as number,
  };
  if (statusList !== undefined) input.statusList = statusList;
  return input;
}
