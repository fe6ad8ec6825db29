import {
  DeviceSignedDocument,
  type IssuerSignedDocument,
  type MDoc,
  parseDeviceResponse,
  type VerificationAssessment,
  Verifier,
} from '@animo-id/mdoc';
import type { JWK } from 'jose';
import { decodeB64url, isObject, p256Jwk, p256Thumbprint } from '../jose/es256.ts';
import { assertionKeyMatching, documentId } from '../verifier/did-keys.ts';
import type { ChainCheck } from '../verifier/issuer-certificate.ts';
import {
  CHECKS,
  type CheckName,
  deriveVerdict,
  type FailureCode,
  type Ledger,
  type LedgerEntry,
  type Verdict,
} from '../verifier/ledger.ts';
import { checkRevocation } from '../verifier/revocation.ts';
import { CLOCK_SKEW_S } from '../verifier/verify-presentation.ts';
import { es256Verify, mdocCrypto } from './cose.ts';
import { COSE_ES256 } from './issuer-signed.ts';
import { jsonOfElement } from './values.ts';

/** The largest DeviceResponse judged, decoded (docs/mdoc.md, "Limits"). */
export const MAX_DEVICE_RESPONSE_BYTES = 64 * 1024;
/** Namespaces, and elements in all, a presented mdoc may hold. */
export const MAX_NAMESPACES = 16;
export const MAX_ELEMENTS = 256;
/** Certificates an x5chain may hold. */
const MAX_CHAIN = 5;

/** An element, named as OpenID4VP 1.0 Appendix B.3 paths name it: `[namespace, elementIdentifier]`. */
export type ElementPath = readonly [string, string];

/** What a verifier is given to judge an mdoc presentation (docs/mdoc.md, "What is checked"). */
export interface MdocVerificationInput {
  /** The base64url CBOR `DeviceResponse` of the vp_token. */
  presentation: string;
  /** The issuer's DID document: the certified key must be one of its assertion keys. */
  didDocument: unknown;
  /** The compact Status List Token the MSO's `status` names; absent when withheld. */
  statusList?: string;
  /** Base64 DER certificates: the issuer's x5chain must end at one of them. */
  trustAnchors: readonly string[];
  expected: {
    doctype: string;
    claims: readonly ElementPath[];
    /** The `SessionTranscriptBytes` the device must have signed (session-transcript.ts). */
    sessionTranscript: Uint8Array;
  };
  /** Unix seconds: the verifier's "now" for every time check. */
  now: number;
}

export interface MdocVerificationResult {
  verdict: Verdict;
  failure: FailureCode | null;
  /** The disclosed elements by namespace, only when the verdict is accept. */
  claims: Record<string, Record<string, unknown>> | null;
  ledger: Ledger;
  /** RFC 7638 thumbprint of the MSO's device key, only when the verdict is accept. */
  holder: string | null;
}

const crypto = mdocCrypto(() => {
  throw new Error('a verifier draws no salt');
});

/**
 * The reference verifier for an ISO mdoc presented over OpenID4VP 1.0 (docs/mdoc.md): the ten
 * checks of the SD-JWT VC ledger, read for the mdoc's structures. The issuer key is established by
 * the x5chain, which must end at a trust anchor and certify an assertion key of the issuer's DID
 * document; the audience and the nonce are bound by the session transcript the device signed, so
 * they pass only when that signature verifies over the transcript this verifier computed.
 */
export async function verifyMdocPresentation(input: MdocVerificationInput, check: ChainCheck): Promise<MdocVerificationResult> {
  const entries = new Map<CheckName, LedgerEntry>();
  const record = (name: CheckName, status: LedgerEntry['status'], failure?: FailureCode, detail?: string) => {
    const entry: LedgerEntry = { check: name, status };
    if (failure) entry.failure = failure;
    if (detail) entry.detail = detail;
    entries.set(name, entry);
  };
  const fail = (name: CheckName, failure: FailureCode, detail: string) => record(name, 'failed', failure, detail);
  const finish = (claims: Record<string, Record<string, unknown>> | null, deviceKey?: JWK): MdocVerificationResult => {
    const ledger = CHECKS.map((name) => entries.get(name) ?? { check: name, status: 'not_performed' as const });
    const { verdict, failure } = deriveVerdict(ledger);
    const accepted = verdict === 'accept';
    return {
      verdict,
      failure,
      claims: accepted ? claims : null,
      ledger,
      holder: accepted && deviceKey ? p256Thumbprint(deviceKey) : null,
    };
  };

  const document = readDocument(input.presentation);
  if (typeof document === 'string') {
    fail('structure', 'malformed_presentation', document);
    return finish(null);
  }
  record('structure', 'passed');
  const { issuerAuth } = document.issuerSigned;
  const mso = issuerAuth.decodedPayload;
  const now = input.now;

  // The issuer: its chain to an anchor, the key certified being one the DID document asserts with.
  const chain = chainOf(issuerAuth);
  const certified = chain ? p256Jwk(await check(chain, input.trustAnchors, now)) : undefined;
  const issuerKey = certified ? assertionKeyMatching(input.didDocument, certified) : undefined;
  if (!chain) fail('issuer_key', 'issuer_key_unknown', 'The issuerAuth carries no usable x5chain.');
  else if (!certified) {
    fail(
      'issuer_key',
      'issuer_key_unknown',
      'The x5chain does not end at a trusted anchor, or a certificate of it is not valid now.',
    );
  } else if (!issuerKey) {
    fail(
      'issuer_key',
      'issuer_key_unknown',
      'The x5chain certifies a key that is not an assertion key of the issuer’s DID document.',
    );
  } else record('issuer_key', 'passed');
  if (issuerAuth.alg !== COSE_ES256) {
    fail('issuer_signature', 'unsupported_algorithm', `The issuerAuth alg ${String(issuerAuth.alg)} is not ES256 (-7).`);
  } else if (certified) {
    const { data, signature } = issuerAuth.getRawVerificationData();
    if (es256Verify(certified, data, signature)) record('issuer_signature', 'passed');
    else fail('issuer_signature', 'issuer_signature_invalid', 'The MSO signature does not verify with the certified key.');
  }

  if (document.docType !== input.expected.doctype || mso.docType !== input.expected.doctype) {
    fail('credential_type', 'wrong_credential_type', `The doctype ${JSON.stringify(mso.docType)} is not the expected one.`);
  } else record('credential_type', 'passed');

  const disclosed = await checkDigests(document);
  if (typeof disclosed === 'string') {
    fail('disclosures', mso.digestAlgorithm === 'SHA-256' ? 'element_digest_mismatch' : 'unsupported_hash_algorithm', disclosed);
  } else record('disclosures', 'passed');

  const deviceKey = deviceKeyOf(mso.deviceKeyInfo);
  let deviceSigned = false;
  if (!deviceKey) fail('holder_binding', 'holder_key_missing', 'The MSO binds no P-256 device key.');
  else if (!(document instanceof DeviceSignedDocument) || !document.deviceSigned.deviceAuth?.deviceSignature) {
    fail('holder_binding', 'device_signature_invalid', 'The document carries no device signature.');
  } else {
    deviceSigned = await deviceSignatureHolds(document, input.expected.sessionTranscript);
    if (deviceSigned) record('holder_binding', 'passed');
    else
      fail(
        'holder_binding',
        'device_signature_invalid',
        'The device signature does not verify over this verifier’s session transcript.',
      );
  }
  // Audience and nonce are inside the transcript: established exactly when the device signed it.
  if (deviceSigned) record('audience', 'passed', undefined, 'Bound by the session transcript the device signed.');
  const validity = outsideValidity(mso.validityInfo, now);
  if (validity) fail('freshness', 'credential_outside_validity', validity);
  else if (deviceSigned)
    record('freshness', 'passed', undefined, 'The nonce is bound by the session transcript the device signed.');

  const claims = typeof disclosed === 'string' ? {} : disclosed;
  const missing = input.expected.claims.filter(([ns, id]) => !Object.hasOwn(claims[ns] ?? {}, id));
  if (input.expected.claims.length === 0) record('required_claims', 'not_applicable');
  else if (missing.length > 0) {
    fail('required_claims', 'required_claim_missing', `Not disclosed: ${missing.map((p) => p.join('/')).join(', ')}.`);
  } else record('required_claims', 'passed');

  const status = statusOf(document);
  const revocation = checkRevocation(
    { iss: documentId(input.didDocument), ...(status === undefined ? {} : { status }) },
    input.statusList,
    input.didDocument,
    now,
    CLOCK_SKEW_S,
  );
  record('revocation', revocation.status, revocation.failure, revocation.detail);
  return finish(claims, deviceKey);
}

/** The one document of the DeviceResponse, or why it cannot be read. */
function readDocument(presentation: unknown): IssuerSignedDocument | string {
  const bytes = typeof presentation === 'string' ? decodeB64url(presentation) : undefined;
  if (!bytes || bytes.length === 0) return 'The presentation is not a base64url DeviceResponse.';
  if (bytes.length > MAX_DEVICE_RESPONSE_BYTES) return `The DeviceResponse is larger than ${MAX_DEVICE_RESPONSE_BYTES} bytes.`;
  let response: MDoc;
  try {
    response = parseDeviceResponse(bytes);
  } catch (error) {
    return `The DeviceResponse does not decode: ${error instanceof Error ? error.message.slice(0, 200) : 'unreadable'}.`;
  }
  if (response.status !== 0) return `The DeviceResponse status is ${response.status}, not OK.`;
  if (response.documents.length !== 1) return `The DeviceResponse holds ${response.documents.length} documents, not one.`;
  const document = response.documents[0] as IssuerSignedDocument;
  const spaces = [...(document.issuerSigned.nameSpaces ?? new Map()).values()];
  if (spaces.length > MAX_NAMESPACES || spaces.reduce((n, items) => n + items.length, 0) > MAX_ELEMENTS) {
    return `The document holds more than ${MAX_NAMESPACES} namespaces or ${MAX_ELEMENTS} elements.`;
  }
  try {
    if (typeof document.issuerSigned.issuerAuth.decodedPayload.docType !== 'string') return 'The MSO names no doctype.';
  } catch {
    return 'The Mobile Security Object does not decode.';
  }
  return document;
}

/** The x5chain as base64 DER, leaf first; undefined when absent or too long. */
function chainOf(issuerAuth: IssuerSignedDocument['issuerSigned']['issuerAuth']): string[] | undefined {
  try {
    const chain = issuerAuth.x5chain;
    if (!chain || chain.length > MAX_CHAIN) return undefined;
    return chain.map((der) => Buffer.from(der).toString('base64'));
  } catch {
    return undefined;
  }
}

/** Every presented element checked against the MSO's digests: the elements as JSON by namespace, or why not. */
async function checkDigests(document: IssuerSignedDocument): Promise<Record<string, Record<string, unknown>> | string> {
  const { issuerAuth, nameSpaces } = document.issuerSigned;
  if (issuerAuth.decodedPayload.digestAlgorithm !== 'SHA-256') {
    return `The digest algorithm ${JSON.stringify(issuerAuth.decodedPayload.digestAlgorithm)} is not SHA-256.`;
  }
  const claims: Record<string, Record<string, unknown>> = {};
  for (const [ns, items] of nameSpaces ?? new Map()) {
    const elements: Record<string, unknown> = Object.create(null);
    for (const item of items) {
      if (!(await item.isValid(ns, issuerAuth, crypto)))
        return `The element ${ns}/${String(item.elementIdentifier)} does not match its digest.`;
      if (Object.hasOwn(elements, item.elementIdentifier))
        return `The element ${ns}/${item.elementIdentifier} is presented twice.`;
      elements[item.elementIdentifier] = jsonOfElement(item.elementValue);
    }
    claims[ns] = { ...elements };
  }
  return claims;
}

/** The MSO's device key as a P-256 JWK (COSE_Key in `deviceKeyInfo`). */
function deviceKeyOf(info: unknown): JWK | undefined {
  try {
    const key = isObject(info) ? (info as { deviceKey?: unknown }).deviceKey : undefined;
    if (!(key instanceof Map)) return undefined;
    const x = key.get(-2);
    const y = key.get(-3);
    if (key.get(1) !== 2 || key.get(-1) !== 1 || !(x instanceof Uint8Array) || !(y instanceof Uint8Array)) return undefined;
    return p256Jwk({ kty: 'EC', crv: 'P-256', x: Buffer.from(x).toString('base64url'), y: Buffer.from(y).toString('base64url') });
  } catch {
    return undefined;
  }
}

/** Whether the device signed `DeviceAuthentication` over `sessionTranscript` with the MSO's device key (the library's check). */
async function deviceSignatureHolds(document: DeviceSignedDocument, sessionTranscript: Uint8Array): Promise<boolean> {
  const seen: VerificationAssessment[] = [];
  try {
    await new Verifier().verifyDeviceSignature(
      { deviceSigned: document, sessionTranscriptBytes: sessionTranscript, onCheckG: (a) => seen.push(a) },
      crypto,
    );
  } catch {
    return false;
  }
  return seen.length > 0 && seen.every((a) => a.status === 'PASSED');
}

/** Why the MSO is not valid at `now` (Unix seconds), with the verifier's clock skew in its favour. */
function outsideValidity(info: unknown, now: number): string | undefined {
  const { validFrom, validUntil } = (isObject(info) ? info : {}) as { validFrom?: unknown; validUntil?: unknown };
  if (!(validFrom instanceof Date) || !(validUntil instanceof Date)) return 'The MSO has no validFrom and validUntil.';
  if (validUntil.getTime() / 1000 + CLOCK_SKEW_S <= now) return 'The credential has expired (validUntil).';
  if (validFrom.getTime() / 1000 - CLOCK_SKEW_S > now) return 'The credential is not yet valid (validFrom).';
  return undefined;
}

/** The MSO's `status` as JSON reads it (its maps as objects), or undefined when the MSO has none. */
function statusOf(document: IssuerSignedDocument): unknown {
  const { status } = document.issuerSigned.issuerAuth.decodedPayload as { status?: unknown };
  return status === undefined ? undefined : jsonOfElement(status);
}

/** The status list URI the presented MSO names, read before judging so the list can be fetched; undefined when none can be read. */
export function mdocStatusUri(presentation: string): string | undefined {
  const document = readDocument(presentation);
  if (typeof document === 'string') return undefined;
  const status = statusOf(document);
  const reference = isObject(status) ? status.status_list : undefined;
  return isObject(reference) && typeof reference.uri === 'string' ? reference.uri : undefined;
}
