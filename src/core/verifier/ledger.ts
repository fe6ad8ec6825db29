/**
 * The reference verifier's ledger (docs/verifier.md). Ten checks are always reported, in this
 * order, and the verdict is a function of the ledger alone, so anyone holding a ledger can
 * recompute the verdict.
 */
export const CHECKS = [
  'structure',
  'issuer_signature',
  'issuer_key',
  'credential_type',
  'disclosures',
  'holder_binding',
  'audience',
  'freshness',
  'required_claims',
  'revocation',
] as const;
export type CheckName = (typeof CHECKS)[number];

export type CheckStatus = 'passed' | 'failed' | 'not_applicable' | 'not_performed';
export type Verdict = 'accept' | 'reject' | 'indeterminate';

/**
 * The 26 failure codes of an SD-JWT VC presentation (MDOC_FAILURE_CODES below adds an mdoc's two),
 * each owned by one check. A code of a `not_performed` check says why the check could not be made
 * (only `status_unavailable` is used that way).
 */
export const FAILURE_CODES = {
  malformed_presentation:
    'The presentation is not an SD-JWT+KB in compact form: an issuer-signed JWT, disclosures, each followed by "~", and an optional KB-JWT; or a part of it does not decode.',
  unsupported_algorithm: 'The issuer-signed JWT is not signed with ES256 (for example "none").',
  issuer_signature_invalid: 'The issuer signature does not verify with the key its header names.',
  issuer_key_unknown: 'The key named by the issuer JWT "kid" is not a P-256 assertion key of the supplied DID document.',
  did_document_not_bound:
    'The supplied DID document is not the document of the credential\'s "iss" (its id, or the DID in "kid", differs).',
  wrong_credential_format: 'The issuer JWT "typ" is not "dc+sd-jwt".',
  wrong_credential_type: 'The credential "vct" is not the expected type.',
  unsupported_hash_algorithm: 'The "_sd_alg" is not "sha-256".',
  malformed_disclosure:
    'A disclosure does not decode to [salt, name, value] with string salt and name, or discloses a reserved or already present claim name.',
  unreferenced_disclosure: 'A disclosure\'s digest is not listed in the credential\'s top-level "_sd" (forged or altered).',
  duplicate_digest: 'A digest appears twice, in "_sd" or among the presented disclosures.',
  unsupported_disclosure_structure:
    'The credential uses nested "_sd" or array-element disclosures; only top-level named disclosures are supported.',
  holder_key_missing: 'The credential carries no P-256 "cnf.jwk" to bind a holder.',
  key_binding_missing: 'The presentation ends without a KB-JWT; key binding is always required.',
  key_binding_invalid: 'The KB-JWT is not "typ" "kb+jwt" with ES256, or its signature does not verify with "cnf.jwk".',
  sd_hash_mismatch: 'The KB-JWT "sd_hash" does not cover the issuer JWT and the disclosures presented.',
  audience_mismatch: 'The KB-JWT "aud" is not the expected audience.',
  nonce_mismatch: 'The KB-JWT "nonce" is not the expected nonce (a replayed or foreign presentation).',
  key_binding_not_fresh: 'The KB-JWT "iat" is missing or outside the acceptance window around "now".',
  credential_outside_validity: 'The credential is expired ("exp") or not yet valid ("nbf") at "now".',
  required_claim_missing: 'A claim the verifier requires is not disclosed.',
  status_unavailable:
    'Revocation could not be read: the credential names a status list and none was supplied, or it carries no "status" claim.',
  status_list_invalid:
    'The status list token is malformed, not "statuslist+jwt" with ES256, not signed by an assertion key of the issuer, not the issuer\'s, or does not cover the index.',
  status_list_mismatch: 'The status list "sub" is not the URI the credential references.',
  status_list_expired: 'The status list token is expired ("exp") at "now".',
  credential_revoked: "The credential's status is not VALID: its entry in the status list is set.",
} as const;

/**
 * The codes only an ISO mdoc presentation can fail with (docs/mdoc.md); every other check of an
 * mdoc names a code of FAILURE_CODES, read for the mdoc's structures.
 */
export const MDOC_FAILURE_CODES = {
  element_digest_mismatch:
    'An issuer-signed element of the mdoc does not hash to the digest its Mobile Security Object lists for it (forged or altered), or the MSO lists none.',
  device_signature_invalid:
    'The mdoc has no device signature, or it does not verify with the MSO device key over the session transcript this verifier expects (made for another verifier, nonce or origin, or forged).',
} as const;

export type FailureCode = keyof typeof FAILURE_CODES | keyof typeof MDOC_FAILURE_CODES;

/** Which check owns each code (and so which link a failure names). */
export const FAILURE_CHECK: Record<FailureCode, CheckName> = {
  element_digest_mismatch: 'disclosures',
  device_signature_invalid: 'holder_binding',
  malformed_presentation: 'structure',
  unsupported_algorithm: 'issuer_signature',
  issuer_signature_invalid: 'issuer_signature',
  issuer_key_unknown: 'issuer_key',
  did_document_not_bound: 'issuer_key',
  wrong_credential_format: 'credential_type',
  wrong_credential_type: 'credential_type',
  unsupported_hash_algorithm: 'disclosures',
  malformed_disclosure: 'disclosures',
  unreferenced_disclosure: 'disclosures',
  duplicate_digest: 'disclosures',
  unsupported_disclosure_structure: 'disclosures',
  holder_key_missing: 'holder_binding',
  key_binding_missing: 'holder_binding',
  key_binding_invalid: 'holder_binding',
  sd_hash_mismatch: 'holder_binding',
  audience_mismatch: 'audience',
  nonce_mismatch: 'freshness',
  key_binding_not_fresh: 'freshness',
  credential_outside_validity: 'freshness',
  required_claim_missing: 'required_claims',
  status_unavailable: 'revocation',
  status_list_invalid: 'revocation',
  status_list_mismatch: 'revocation',
  status_list_expired: 'revocation',
  credential_revoked: 'revocation',
};

export interface LedgerEntry {
  check: CheckName;
  status: CheckStatus;
  /** Set when the check failed, or could not be performed for a reason the caller should know. */
  failure?: FailureCode;
  detail?: string;
}

export type Ledger = LedgerEntry[];

export interface VerdictSummary {
  verdict: Verdict;
  /** The first failed check's code, else the first unperformed check's reason; null on accept. */
  failure: FailureCode | null;
}

/**
 * reject when any check failed; indeterminate when none failed but one could not be performed
 * (revocation unread is the case the spec names); accept only when every check passed or did
 * not apply.
 */
export function deriveVerdict(ledger: Ledger): VerdictSummary {
  const failed = ledger.find((e) => e.status === 'failed');
  if (failed) return { verdict: 'reject', failure: failed.failure ?? null };
  const unperformed = ledger.find((e) => e.status === 'not_performed');
  if (unperformed) return { verdict: 'indeterminate', failure: unperformed.failure ?? null };
  return { verdict: 'accept', failure: null };
}
