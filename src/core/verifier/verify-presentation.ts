import { createHash } from 'node:crypto';
import { type DecodedJws, decodeJws, describe, isObject, p256Jwk, p256Thumbprint, verifyEs256 } from '../jose/es256.ts';
import { assertionKey, documentId } from './did-keys.ts';
import { processDisclosures } from './disclosures.ts';
import { type CertifiedKey, type ChainCheck, certificateProblem, certifiedKeyOf } from './issuer-certificate.ts';
import {
  CHECKS,
  type CheckName,
  deriveVerdict,
  type FailureCode,
  type Ledger,
  type LedgerEntry,
  type Verdict,
} from './ledger.ts';
import { checkRevocation } from './revocation.ts';

/** What a verifier is given: the conformance vector `input` shape (docs/conformance.md). */
export interface VerificationInput {
  presentation: string;
  didDocument: unknown;
  /** Compact Status List Token; absent when withheld. */
  statusList?: string;
  expected: { aud: string; nonce: string; vct: string; claims: readonly string[] };
  /** Unix seconds: the verifier's "now" for every time check. */
  now: number;
  /**
   * Base64 DER certificates (schema /2). When given, the issuer key must also be certified by
   * the issuer JWT's `x5c`, a chain ending at one of these anchors (issuer-certificate.ts).
   */
  trustAnchors?: readonly string[];
}

export interface VerificationResult {
  verdict: Verdict;
  failure: FailureCode | null;
  /** The subject claims, only when the verdict is accept. */
  claims: Record<string, unknown> | null;
  ledger: Ledger;
  /** The holder's signed audience and nonce, when a KB-JWT could be read. */
  keyBinding: { aud: unknown; nonce: unknown; iat: unknown } | null;
  /** RFC 7638 thumbprint of the credential's cnf.jwk, only when the verdict is accept. */
  holder: string | null;
}

/** A KB-JWT `iat` may be this old (RFC 9901 §7.3 step 4 leaves the window to the verifier). */
export const KB_MAX_AGE_S = 300;
/** Clock difference tolerated for every time comparison, always in favour of validity. */
export const CLOCK_SKEW_S = 60;

/**
 * The reference verifier with the issuer's certificate chain checked by `check` when the input
 * names trust anchors (schema /2); without anchors it is `verifyPresentation` as it stands.
 */
export async function verifyWithCertificates(input: VerificationInput, check: ChainCheck): Promise<VerificationResult> {
  if (!input.trustAnchors) return verifyPresentation(input);
  const header = decodeJws(typeof input.presentation === 'string' ? (input.presentation.split('~')[0] ?? '') : '')?.header;
  return verifyPresentation(input, await certifiedKeyOf(header, input.trustAnchors, input.now, check));
}

/**
 * The reference verifier (docs/verifier.md): RFC 9901 §7.1 and §7.3 for an SD-JWT VC with key
 * binding, the issuer's key from its DID document, and the Token Status List. Pure: no I/O, the
 * clock is `input.now`. Each check that has the data it needs is made, even after another has
 * failed, so the ledger tells every link that broke. When the input names trust anchors,
 * `certified` is what the issuer JWT's `x5c` chain certifies (`verifyWithCertificates` finds it);
 * without it the issuer key is not established.
 */
export function verifyPresentation(input: VerificationInput, certified?: CertifiedKey): VerificationResult {
  const entries = new Map<CheckName, LedgerEntry>();
  const record = (check: CheckName, status: LedgerEntry['status'], failure?: FailureCode, detail?: string) => {
    const entry: LedgerEntry = { check, status };
    if (failure) entry.failure = failure;
    if (detail) entry.detail = detail;
    entries.set(check, entry);
  };
  const fail = (check: CheckName, failure: FailureCode, detail: string) => record(check, 'failed', failure, detail);
  const finish = (
    claims: Record<string, unknown> | null,
    keyBinding: VerificationResult['keyBinding'],
    holderKey?: Parameters<typeof p256Thumbprint>[0],
  ): VerificationResult => {
    const ledger = CHECKS.map((check) => entries.get(check) ?? { check, status: 'not_performed' as const });
    const { verdict, failure } = deriveVerdict(ledger);
    const accepted = verdict === 'accept';
    const holder = accepted && holderKey ? p256Thumbprint(holderKey) : null;
    return { verdict, failure, claims: accepted ? claims : null, ledger, keyBinding, holder };
  };

  const parsed = splitPresentation(input.presentation);
  if (!parsed) {
    fail('structure', 'malformed_presentation', 'The presentation does not decode as an SD-JWT+KB.');
    return finish(null, null);
  }
  record('structure', 'passed');
  const { issuerJwt: jwt, disclosures, kbJwt, sdHashInput } = parsed;
  const payload = jwt.payload;
  const { now } = input;

  // Issuer key and signature: the key comes only from the supplied DID document, never from
  // the JWT itself (a `jwk` header is ignored; an `x5c` only confirms the key, under anchors).
  const key = assertionKey(input.didDocument, jwt.header.kid);
  const uncertified = input.trustAnchors
    ? certified
      ? certificateProblem(certified, key?.jwk)
      : 'The issuer certificate chain was not checked.'
    : undefined;
  if (!key) {
    fail('issuer_key', 'issuer_key_unknown', `kid ${describe(jwt.header.kid)} is not an assertion key of the document.`);
  } else if (documentId(input.didDocument) !== payload.iss || key.id.split('#')[0] !== payload.iss) {
    fail('issuer_key', 'did_document_not_bound', `The document is not the DID document of ${describe(payload.iss)}.`);
  } else if (uncertified) {
    fail('issuer_key', 'issuer_key_unknown', uncertified);
  } else {
    record('issuer_key', 'passed');
  }
  if (jwt.header.alg !== 'ES256') {
    fail('issuer_signature', 'unsupported_algorithm', `alg ${describe(jwt.header.alg)} is not ES256.`);
  } else if (key) {
    if (verifyEs256(jwt, key.jwk)) record('issuer_signature', 'passed');
    else fail('issuer_signature', 'issuer_signature_invalid', 'The issuer signature does not verify.');
  }

  if (jwt.header.typ !== 'dc+sd-jwt') {
    fail('credential_type', 'wrong_credential_format', `typ ${describe(jwt.header.typ)} is not dc+sd-jwt.`);
  } else if (payload.vct !== input.expected.vct) {
    fail('credential_type', 'wrong_credential_type', `vct ${describe(payload.vct)} is not the expected type.`);
  } else {
    record('credential_type', 'passed');
  }

  const disclosed = processDisclosures(payload, disclosures);
  if (!disclosed.ok) fail('disclosures', disclosed.failure, disclosed.detail);
  else record('disclosures', disclosed.applicable ? 'passed' : 'not_applicable');

  // Key binding is required by policy (RFC 9901 §7.3 step 1), whatever the presentation holds.
  const holderKey = p256Jwk(isObject(payload.cnf) ? payload.cnf.jwk : undefined);
  const kb = kbJwt?.payload;
  if (!holderKey) fail('holder_binding', 'holder_key_missing', 'The credential has no P-256 cnf.jwk.');
  else if (!kbJwt) fail('holder_binding', 'key_binding_missing', 'The presentation has no KB-JWT.');
  else if (kbJwt.header.typ !== 'kb+jwt' || kbJwt.header.alg !== 'ES256' || !verifyEs256(kbJwt, holderKey)) {
    fail('holder_binding', 'key_binding_invalid', 'The KB-JWT is not a kb+jwt signed with ES256 by cnf.jwk.');
  } else if (kbJwt.payload.sd_hash !== createHash('sha256').update(sdHashInput, 'ascii').digest('base64url')) {
    fail('holder_binding', 'sd_hash_mismatch', 'sd_hash does not match the presented SD-JWT.');
  } else {
    record('holder_binding', 'passed');
  }

  if (kb) {
    if (kb.aud === input.expected.aud) record('audience', 'passed');
    else fail('audience', 'audience_mismatch', `aud ${describe(kb.aud)} is not the expected audience.`);
  }
  const validity = credentialValidity(payload, now);
  if (kb && kb.nonce !== input.expected.nonce) {
    fail('freshness', 'nonce_mismatch', 'The KB-JWT nonce is not the expected nonce.');
  } else if (kb && !(typeof kb.iat === 'number' && kb.iat <= now + CLOCK_SKEW_S && kb.iat >= now - KB_MAX_AGE_S)) {
    fail('freshness', 'key_binding_not_fresh', `The KB-JWT iat ${describe(kb.iat)} is outside the window.`);
  } else if (validity) {
    fail('freshness', 'credential_outside_validity', validity);
  } else if (kb) {
    record('freshness', 'passed');
  }

  const missing = input.expected.claims.filter((c) => !Object.hasOwn(disclosed.claims, c));
  if (input.expected.claims.length === 0) record('required_claims', 'not_applicable');
  else if (missing.length > 0) fail('required_claims', 'required_claim_missing', `Not disclosed: ${missing.join(', ')}.`);
  else record('required_claims', 'passed');

  const revocation = checkRevocation(payload, input.statusList, input.didDocument, now, CLOCK_SKEW_S);
  record('revocation', revocation.status, revocation.failure, revocation.detail);

  return finish(disclosed.claims, kb ? { aud: kb.aud, nonce: kb.nonce, iat: kb.iat } : null, holderKey ?? undefined);
}

function credentialValidity(payload: Record<string, unknown>, now: number): string | undefined {
  const { exp, nbf } = payload;
  if (exp !== undefined && (typeof exp !== 'number' || exp + CLOCK_SKEW_S <= now)) return 'The credential has expired.';
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf - CLOCK_SKEW_S > now)) return 'The credential is not yet valid.';
  return undefined;
}

interface SplitPresentation {
  issuerJwt: DecodedJws;
  disclosures: string[];
  kbJwt: DecodedJws | undefined;
  /** `<issuer JWT>~<disclosure>~...~`: what `sd_hash` covers (RFC 9901 §4.3.1). */
  sdHashInput: string;
}

/** RFC 9901 §4: `<JWT>~<disclosure>~...~<KB-JWT>`, the KB-JWT optional (then it ends in "~"). */
function splitPresentation(presentation: unknown): SplitPresentation | undefined {
  // An SD-JWT is printable ASCII (base64url parts joined by '.' and '~'; a part that is not
  // base64url is judged where it is read): the sd_hash below is taken over exactly those bytes.
  if (typeof presentation !== 'string' || !/^[\x21-\x7e]*$/.test(presentation)) return undefined;
  const parts = presentation.split('~');
  if (parts.length < 2) return undefined;
  const last = parts.pop() as string;
  const [first, ...disclosures] = parts as [string, ...string[]];
  if (disclosures.some((d) => d.length === 0)) return undefined;
  const issuerJwt = decodeJws(first);
  if (!issuerJwt) return undefined;
  const kbJwt = decodeJws(last);
  if (last !== '' && !kbJwt) return undefined;
  return { issuerJwt, disclosures, kbJwt, sdHashInput: presentation.slice(0, presentation.length - last.length) };
}
