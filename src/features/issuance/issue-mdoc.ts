import { elementValue, signMdoc } from '../../core/mdoc/issuer-signed.ts';
import type { CredentialTypeRecord, MdocProfile } from '../../ports/credential-type-store.ts';
import type { JwsSigner } from '../../ports/key-store.ts';
import type { ProvenKey } from './verify-proof.ts';

/** An mdoc must say until when it is valid; a type without a validity gives its mdocs a year (docs/mdoc.md). */
export const MDOC_DEFAULT_VALIDITY_MS = 365 * 24 * 60 * 60 * 1000;

/**
 * One mdoc of a collection (docs/mdoc.md, "Issuance"): the subject's claims as the type's elements,
 * bound to the proven key, with its status list entry, signed by the tenant's issuer key (in the key
 * backend: a hardware token signs it there) under the key's certificate chain.
 */
export function mdocCredential(input: {
  type: CredentialTypeRecord & { mdoc: MdocProfile };
  subject: Record<string, unknown>;
  key: ProvenKey;
  signer: JwsSigner & { x5c: readonly string[] };
  status: { idx: number; uri: string };
  /** When it was signed (set back like an SD-JWT VC's iat, so a batch does not share it), and until when it is valid (ms). */
  signedAt: number;
  validUntil: number;
  random: (length: number) => Uint8Array;
}): Promise<string> {
  const { type, subject } = input;
  const byNamespace = new Map<string, Array<[string, unknown]>>();
  for (const claim of type.claims) {
    const [ns, id] = type.mdoc.elements[claim.key] ?? [type.mdoc.doctype, claim.key];
    const elements = byNamespace.get(ns) ?? [];
    elements.push([id, elementValue(claim.kind, subject[claim.key])]);
    byNamespace.set(ns, elements);
  }
  const signed = new Date(Math.floor(input.signedAt / 1000) * 1000);
  return signMdoc({
    doctype: type.mdoc.doctype,
    nameSpaces: [...byNamespace],
    deviceKey: input.key.jwk,
    validity: { signed, validFrom: signed, validUntil: new Date(Math.floor(input.validUntil / 1000) * 1000) },
    status: input.status,
    x5chain: input.signer.x5c.map((c) => Buffer.from(c, 'base64')),
    random: input.random,
    sign: (data) => input.signer.signBytes(data),
  });
}
