/**
 * Schema svc-open-rail-conformance/3 (docs/conformance.md): the vectors of /2 unchanged, then ISO
 * mdoc presentations over OpenID4VP 1.0 (Appendix B), each with the rule of /1: one link broken.
 */

import type { JWK } from 'jose';
import { es256Sign } from '../mdoc/cose.ts';
import { presentMdoc } from '../mdoc/device-response.ts';
import { elementValue, signMdoc } from '../mdoc/issuer-signed.ts';
import { redirectTranscript } from '../mdoc/session-transcript.ts';
import type { CheckName, FailureCode } from '../verifier/ledger.ts';
import type { VerificationInput } from '../verifier/verify-presentation.ts';
import { didDocumentFor, type KeyPair, statusListToken } from './builders.ts';
import type { ConformanceVector } from './vectors.ts';
import { type CertificateValidity, type MintDepsV2, mintVectorsV2, VECTOR_IDS_V2 } from './vectors-v2.ts';

/** Schema svc-open-rail-conformance/3: the 24 of /2, then the ISO mdoc cases. */
export const VECTOR_IDS_V3 = [
  ...VECTOR_IDS_V2,
  'mdoc-valid',
  'mdoc-tampered-element',
  'mdoc-wrong-doctype',
  'mdoc-outside-validity',
  'mdoc-revoked',
  'mdoc-other-session-transcript',
  'mdoc-untrusted-anchor',
] as const;

/**
 * An mdoc vector's `input`: what the reference verifier's `MdocVerificationInput` holds, as JSON
 * (the session transcript as base64url), and the handover it was computed from, for a reader.
 */
export interface MdocVectorInput {
  format: 'mso_mdoc';
  /** The base64url CBOR `DeviceResponse` (the vp_token's value for the credential query). */
  presentation: string;
  didDocument: unknown;
  /** Compact Status List Token; absent when withheld. */
  statusList?: string;
  /** Base64 DER certificates: the MSO's x5chain must end at one of them. */
  trustAnchors: string[];
  expected: {
    doctype: string;
    /** The elements that must be disclosed, `[namespace, elementIdentifier]`. */
    claims: [string, string][];
    /** Base64url `SessionTranscriptBytes` the device signature must cover. */
    sessionTranscript: string;
  };
  /** The OpenID4VP redirect handover (Appendix B.2.6.1) `expected.sessionTranscript` is made of. */
  handover: { clientId: string; nonce: string; responseUri: string; encryptionKeyThumbprint: null };
  /** Unix seconds. */
  now: number;
}

/** What a vector of schema /3 carries: an SD-JWT VC input (no `format`), or an mdoc input. */
export type VectorInputV3 = VerificationInput | MdocVectorInput;

const HOST = 'issuer.conformance.example';
const ISSUER = `did:web:${HOST}`;
const LIST_URI = `https://${HOST}/status/3`;
const LIST_SIZE = 131_072;
const DOCTYPE = 'example.conformance.membership';
const OTHER_DOCTYPE = 'example.conformance.visitor_pass';
const NAMESPACE = 'example.conformance.membership.1';
const VERIFIER = { clientId: 'decentralized_identifier:did:web:verifier.conformance.example' };
const RESPONSE_URI = 'https://verifier.conformance.example/oid4vp/response';
const ELSEWHERE = {
  clientId: 'decentralized_identifier:did:web:elsewhere.conformance.example',
  responseUri: 'https://elsewhere.conformance.example/oid4vp/response',
};
/** The elements issued and presented; `birth_date` is a CBOR full-date (tag 1004). */
const ELEMENTS = { given_name: 'Ada', family_name: 'Lovelace', member_number: 'M-1815-12', age_over_18: true };
const BIRTH_DATE = '1815-12-10';
const REQUIRED = ['given_name', 'member_number', 'age_over_18'];
const DAY = 86_400;

/**
 * Schema /3: the 24 vectors of /2, built the same way, then seven ISO mdoc presentations over
 * OpenID4VP 1.0 with the same rule of one broken link.
 */
export async function mintVectorsV3(deps: MintDepsV2): Promise<ConformanceVector<VectorInputV3>[]> {
  const sdJwt: ConformanceVector<VectorInputV3>[] = await mintVectorsV2(deps);
  return [...sdJwt, ...(await mdocVectors(deps))];
}

const privateJwkOf = (key: KeyPair) => key.privateKey.export({ format: 'jwk' }) as JWK;
const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** The presentation with one element's text value changed in place: its digest no longer matches. */
function alterElementText(presentation: string, from: string, to: string): string {
  const bytes = Buffer.from(presentation, 'base64url');
  const at = bytes.indexOf(from);
  if (from.length !== to.length || at < 0 || bytes.indexOf(from, at + 1) >= 0) {
    throw new Error(`cannot alter ${from} in place`);
  }
  bytes.write(to, at);
  return b64url(bytes);
}

/**
 * The mdoc vectors. The issuer's key is an assertion key of its DID document and certified by a
 * leaf under the set's root, the one trust anchor; the holder answers a redirect request of the
 * verifier by `direct_post` (no encryption), so the transcript's key thumbprint is null. Each
 * reject vector is `mdoc-valid` with one link broken.
 */
async function mdocVectors({ now, random, newKey, certificates }: MintDepsV2): Promise<ConformanceVector<MdocVectorInput>[]> {
  const issuer = newKey();
  const holder = newKey();
  // The certificates are older than any MSO signed here, so each MSO was signed within them.
  const current: CertificateValidity = { notBefore: now - 60 * DAY, notAfter: now + 365 * DAY };
  const rootKey = newKey();
  const root = { key: rootKey, certificate: await certificates.root(rootKey, 'Conformance Root CA', current) };
  const strangerKey = newKey();
  const stranger = { key: strangerKey, certificate: await certificates.root(strangerKey, 'Conformance Root CA', current) };
  const issuerLeaf = (ca: typeof root) => certificates.leaf(ca, issuer, 'Conformance Issuer', current);
  const chain = [await issuerLeaf(root)];
  const untrustedChain = [await issuerLeaf(stranger), stranger.certificate];

  const nonce = b64url(random(16));
  const idx = (random(4).reduce((a, b) => a * 256 + b, 0) >>> 0) % LIST_SIZE;
  const handover = { clientId: VERIFIER.clientId, nonce, responseUri: RESPONSE_URI, encryptionKeyThumbprint: null };
  const transcript = redirectTranscript(handover);
  const didDocument = didDocumentFor(ISSUER, issuer);

  const issue = (over: { doctype?: string; from?: number; until?: number; x5chain?: string[] } = {}) => {
    const from = new Date((over.from ?? now - 3600) * 1000);
    return signMdoc({
      doctype: over.doctype ?? DOCTYPE,
      nameSpaces: [[NAMESPACE, [...Object.entries(ELEMENTS), ['birth_date', elementValue('date', BIRTH_DATE)]]]],
      deviceKey: holder.publicJwk,
      validity: { signed: from, validFrom: from, validUntil: new Date((over.until ?? now + 30 * DAY) * 1000) },
      status: { idx, uri: LIST_URI },
      x5chain: (over.x5chain ?? chain).map((c) => Buffer.from(c, 'base64')),
      random,
      sign: async (data) => es256Sign(privateJwkOf(issuer), data),
    });
  };
  const present = (issuerSigned: string, sessionTranscript = transcript) =>
    presentMdoc({
      issuerSigned,
      elements: [...Object.keys(ELEMENTS), 'birth_date'].map((id) => [NAMESPACE, id] as const),
      deviceKey: privateJwkOf(holder),
      sessionTranscript,
    });
  const list = (revoked: number[]) =>
    statusListToken({ signer: issuer, iss: ISSUER, sub: LIST_URI, iat: now - 60, exp: now + 3600, size: LIST_SIZE, revoked });
  const input = (presentation: string, statusList = list([(idx + 1) % LIST_SIZE])): MdocVectorInput => ({
    format: 'mso_mdoc',
    presentation,
    didDocument,
    statusList,
    trustAnchors: [root.certificate],
    expected: {
      doctype: DOCTYPE,
      claims: REQUIRED.map((id) => [NAMESPACE, id]),
      sessionTranscript: b64url(transcript),
    },
    handover,
    now,
  });
  const reject = (
    id: string,
    proves: CheckName,
    failure: FailureCode,
    about: string,
    i: MdocVectorInput,
  ): ConformanceVector<MdocVectorInput> => ({
    id,
    about,
    proves,
    input: i,
    expect: { verdict: 'reject', failure, claims: null },
  });

  const valid = await present(await issue());
  const otherTranscript = redirectTranscript({ ...handover, ...ELSEWHERE });

  return [
    {
      id: 'mdoc-valid',
      about:
        'A sound mdoc presentation: the MSO is signed by a key certified under the trust anchor and asserted by the DID document, every element matches its digest, the device signed this verifier’s session transcript, and the revocation bit is clear.',
      proves: 'all',
      input: input(valid),
      expect: {
        verdict: 'accept',
        failure: null,
        claims: { [NAMESPACE]: { ...ELEMENTS, birth_date: BIRTH_DATE } },
      },
    },
    reject(
      'mdoc-tampered-element',
      'disclosures',
      'element_digest_mismatch',
      'The family_name element’s value is altered after issuance (Lovelace to Lovelock): it no longer hashes to the digest the MSO lists; the device signature does not cover issuer-signed elements, so it still verifies.',
      input(alterElementText(valid, ELEMENTS.family_name, 'Lovelock')),
    ),
    reject(
      'mdoc-wrong-doctype',
      'credential_type',
      'wrong_credential_type',
      'A sound mdoc of another doctype than the one asked for, with the same namespace and elements.',
      input(await present(await issue({ doctype: OTHER_DOCTYPE }))),
    ),
    reject(
      'mdoc-outside-validity',
      'freshness',
      'credential_outside_validity',
      'The MSO’s validUntil passed an hour before now; its certificates are still valid.',
      input(await present(await issue({ from: now - 31 * DAY, until: now - 3600 }))),
    ),
    reject(
      'mdoc-revoked',
      'revocation',
      'credential_revoked',
      "The issuer's signed status list has the bit of the MSO's status entry set.",
      input(valid, list([idx, (idx + 1) % LIST_SIZE])),
    ),
    reject(
      'mdoc-other-session-transcript',
      'holder_binding',
      'device_signature_invalid',
      'The device signed the session transcript of another verifier (another client_id and response_uri, the same nonce), not the expected one.',
      input(await present(await issue(), otherTranscript)),
    ),
    reject(
      'mdoc-untrusted-anchor',
      'issuer_key',
      'issuer_key_unknown',
      'The x5chain certifies the issuer key of the DID document but ends at a root (carried in the chain) that is not the trust anchor.',
      input(await present(await issue({ x5chain: untrustedChain }))),
    ),
  ];
}
