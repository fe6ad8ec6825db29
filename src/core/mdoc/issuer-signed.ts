import {
  COSEKey,
  cborDecode,
  cborEncode,
  DataItem,
  DateOnly,
  IssuerSignedItem,
  parseIssuerSigned,
  uint8ArrayToBase64Url,
} from '@animo-id/mdoc';
import type { JWK } from 'jose';
import type { ClaimKind } from '../claims/claim-spec.ts';
import { mdocCrypto } from './cose.ts';

/** COSE algorithm -7: ECDSA with SHA-256 (ES256), the one openrail signs and accepts. */
export const COSE_ES256 = -7;
/** COSE header parameter 33, x5chain (RFC 9360): the issuer's certificate chain, leaf first. */
const X5CHAIN = 33;

export interface MdocToSign {
  doctype: string;
  /** The elements by namespace, each `[elementIdentifier, value]` (a value as `elementValue` holds it). */
  nameSpaces: ReadonlyArray<readonly [string, ReadonlyArray<readonly [string, unknown]>]>;
  /** The holder's device key, from the key proof. */
  deviceKey: JWK;
  validity: { signed: Date; validFrom: Date; validUntil: Date };
  /** The Token Status List entry (draft-ietf-oauth-status-list §6.3, `Status` with `status_list`). */
  status: { idx: number; uri: string };
  /** The issuer key's certificate chain, DER, leaf first (no trust anchor). */
  x5chain: readonly Uint8Array[];
  random: (length: number) => Uint8Array;
  /** The ES256 signature (r‖s) of the COSE_Sign1 `Sig_structure` by the issuer's key. */
  sign: (toBeSigned: Uint8Array) => Promise<Uint8Array>;
}

/** A claim's value as an mdoc element holds it: a date is a `full-date` (tag 1004); the rest as JSON gives it. */
export function elementValue(kind: ClaimKind, value: unknown): unknown {
  return kind === 'date' && typeof value === 'string' ? new DateOnly(value) : value;
}

/** Digest identifiers in an order that says nothing of the elements' order (ISO/IEC 18013-5 §9.1.2.5 leaves it free). */
function shuffled(count: number, random: (length: number) => Uint8Array): number[] {
  const ids = Array.from({ length: count }, (_, i) => i);
  for (let i = ids.length - 1; i > 0; i--) {
    const [a = 0, b = 0, c = 0, d = 0] = random(4);
    const j = (((a << 24) | (b << 16) | (c << 8) | d) >>> 0) % (i + 1);
    [ids[i], ids[j]] = [ids[j] as number, ids[i] as number];
  }
  return ids;
}

/**
 * The credential of an `mso_mdoc` configuration (OID4VCI 1.0 Appendix A.2.4): the base64url CBOR
 * `IssuerSigned`, its Mobile Security Object signed under COSE_Sign1 by `sign` with the chain in
 * x5chain. Each element has its own 32-byte salt; the MSO binds the device key, the validity and the
 * status list entry. The structures are the library's; the MSO is assembled here only because its
 * builder has no place for `status`.
 */
export async function signMdoc(input: MdocToSign): Promise<string> {
  const ctx = mdocCrypto(input.random);
  const nameSpaces = new Map<string, IssuerSignedItem[]>();
  const valueDigests = new Map<string, Map<number, Uint8Array>>();
  for (const [namespace, elements] of input.nameSpaces) {
    const ids = shuffled(elements.length, input.random);
    const items = elements.map(([id, value], i) => IssuerSignedItem.create(ids[i] as number, id, value, ctx));
    const digests = new Map<number, Uint8Array>();
    for (const item of items) digests.set(item.digestID, await item.calculateDigest('SHA-256', ctx));
    nameSpaces.set(namespace, items);
    valueDigests.set(namespace, digests);
  }
  const mso = {
    version: '1.0',
    digestAlgorithm: 'SHA-256',
    valueDigests,
    deviceKeyInfo: { deviceKey: cborDecode(COSEKey.fromJWK(input.deviceKey).encode()) },
    docType: input.doctype,
    validityInfo: input.validity,
    status: { status_list: { idx: input.status.idx, uri: input.status.uri } },
  };
  // COSE_Sign1 (RFC 9052 §4.2, untagged as ISO/IEC 18013-5 §9.1.2.4 has it): the library (0.5.2)
  // exports neither its IssuerAuth nor its Sign1, so the four members are arranged here and encoded
  // by its encoder, and the result is read back by its parser before it is handed out.
  const protectedHeader = cborEncode(new Map([[1, COSE_ES256]]));
  const payload = cborEncode(DataItem.fromData(mso));
  const toBeSigned = cborEncode(['Signature1', protectedHeader, new Uint8Array(), payload]);
  const signature = await input.sign(toBeSigned);
  if (signature.length !== 64) throw new Error(`an ES256 signature is 64 bytes, not ${signature.length}`);
  const chain = input.x5chain.length === 1 ? input.x5chain[0] : [...input.x5chain];
  const issuerSigned = new Map<string, unknown>([
    ['nameSpaces', new Map([...nameSpaces].map(([ns, items]) => [ns, items.map((item) => item.dataItem)]))],
    ['issuerAuth', [protectedHeader, new Map([[X5CHAIN, chain]]), payload, signature]],
  ]);
  const encoded = cborEncode(issuerSigned);
  const read = parseIssuerSigned(encoded, input.doctype).issuerSigned.issuerAuth.getRawVerificationData();
  if (Buffer.compare(Buffer.from(read.data), Buffer.from(toBeSigned)) !== 0)
    throw new Error('the IssuerSigned does not read back');
  return uint8ArrayToBase64Url(encoded);
}
