/**
 * Schema svc-open-rail-conformance/2 (docs/conformance.md): the vectors of /1, then the HAIP and
 * Digital Credentials API cases, each with the rule of /1: one link broken.
 */

import { createHash } from 'node:crypto';
import type { KeyPair } from './builders.ts';
import { type ConformanceVector, interfaceVectors, type MintDeps, VECTOR_IDS, type VectorKit, vectorKit } from './vectors.ts';

const VERIFIER_ORIGIN = 'https://verifier.conformance.example';

/** Schema svc-open-rail-conformance/2: the 16 of /1, then the HAIP and Digital Credentials API cases. */
export const VECTOR_IDS_V2 = [
  ...VECTOR_IDS,
  'x5c-valid',
  'x5c-missing',
  'x5c-untrusted-chain',
  'x5c-certifies-another-key',
  'x5c-expired-certificate',
  'x509-hash-audience-mismatch',
  'dc-api-origin-valid',
  'dc-api-origin-mismatch',
] as const;

/** Validity of a certificate, in Unix seconds. */
export interface CertificateValidity {
  notBefore: number;
  notAfter: number;
}

/** X.509 for schema /2, which core does not hold: certificates as base64 DER. */
export interface VectorCertificates {
  /** A self-signed certificate authority for `key`, that may certify end entities. */
  root(key: KeyPair, commonName: string, validity: CertificateValidity): Promise<string>;
  /** An end-entity certificate of `subject`'s public key, issued by `ca`. */
  leaf(
    ca: { certificate: string; key: KeyPair },
    subject: KeyPair,
    commonName: string,
    validity: CertificateValidity,
  ): Promise<string>;
}

export interface MintDepsV2 extends MintDeps {
  certificates: VectorCertificates;
}

/**
 * Schema /2: the 16 vectors of /1, built the same way, then eight more with the same rule of one
 * broken link: the issuer key certified by `x5c` under trust anchors (HAIP 1.0 §6.1), a key
 * binding addressed by `x509_hash` (OID4VP 1.0 §5.9.3), and one addressed to a web origin, as
 * the Digital Credentials API has it for unsigned requests (OID4VP 1.0 Appendix A.4).
 */
export async function mintVectorsV2(deps: MintDepsV2): Promise<ConformanceVector[]> {
  const kit = vectorKit(deps);
  return [...interfaceVectors(kit), ...(await haipVectors(kit, deps))];
}

const DAY = 86_400;

/** `x509_hash:` and the base64url SHA-256 of a certificate's DER (OID4VP 1.0 §5.9.3). */
const x509HashOf = (certificate: string) =>
  `x509_hash:${createHash('sha256').update(Buffer.from(certificate, 'base64')).digest('base64url')}`;

/**
 * The HAIP and Digital Credentials API vectors of schema /2. The x5c ones name the set's own root
 * as the only trust anchor and address the key binding to a verifier known by its certificate
 * (`x509_hash`); each breaks one link of `x5c-valid`. The two origin vectors are `valid` addressed
 * to a web origin.
 */
async function haipVectors(kit: VectorKit, { newKey, certificates }: MintDepsV2): Promise<ConformanceVector[]> {
  const { now, issuer, impostor, credential, present, input, reject, accept } = kit;
  const current = { notBefore: now - DAY, notAfter: now + 365 * DAY };
  const rootKey = newKey();
  const root = { key: rootKey, certificate: await certificates.root(rootKey, 'Conformance Root CA', current) };
  const strangerKey = newKey();
  const stranger = { key: strangerKey, certificate: await certificates.root(strangerKey, 'Conformance Root CA', current) };
  const issuerLeaf = (ca: typeof root, key = issuer, validity = current) =>
    certificates.leaf(ca, key, 'Conformance Issuer', validity);
  const verifierCertificate = await certificates.leaf(root, newKey(), 'Conformance Verifier', current);
  const aud = x509HashOf(verifierCertificate);
  const anchored = { aud, trustAnchors: [root.certificate] };
  const withX5c = (x5c: string[]) => credential({ header: { x5c } });

  const certified = withX5c([await issuerLeaf(root)]);
  const otherVerifier = x509HashOf(await certificates.leaf(root, newKey(), 'Conformance Verifier', current));
  const origin = `origin:${VERIFIER_ORIGIN}`;

  return [
    accept(
      'x5c-valid',
      'The issuer key is in the DID document and certified by x5c under the trust anchor; the key binding is addressed by x509_hash.',
      input(present(certified, { aud }), anchored),
    ),
    reject(
      'x5c-missing',
      'issuer_key',
      'issuer_key_unknown',
      'Trust anchors are given, and the issuer JWT carries no x5c.',
      input(present(credential(), { aud }), anchored),
    ),
    reject(
      'x5c-untrusted-chain',
      'issuer_key',
      'issuer_key_unknown',
      'The x5c chain certifies the issuer key but ends at a root that is not a trust anchor (the root is in the chain).',
      input(present(withX5c([await issuerLeaf(stranger), stranger.certificate]), { aud }), anchored),
    ),
    reject(
      'x5c-certifies-another-key',
      'issuer_key',
      'issuer_key_unknown',
      'The x5c chain is sound under the trust anchor, but its certificate is for another key than the signing key of the DID document.',
      input(present(withX5c([await issuerLeaf(root, impostor)]), { aud }), anchored),
    ),
    reject(
      'x5c-expired-certificate',
      'issuer_key',
      'issuer_key_unknown',
      'The issuer key certificate under the trust anchor expired an hour before now.',
      input(
        present(withX5c([await issuerLeaf(root, issuer, { notBefore: now - 2 * DAY, notAfter: now - 3600 })]), { aud }),
        anchored,
      ),
    ),
    reject(
      'x509-hash-audience-mismatch',
      'audience',
      'audience_mismatch',
      'The key binding is addressed by x509_hash to another certificate than the verifier’s.',
      input(present(certified, { aud: otherVerifier }), anchored),
    ),
    accept(
      'dc-api-origin-valid',
      'A sound presentation through the Digital Credentials API: the key binding is addressed to the verifier’s web origin.',
      input(present(credential(), { aud: origin }), { aud: origin }),
    ),
    reject(
      'dc-api-origin-mismatch',
      'audience',
      'audience_mismatch',
      'The key binding is addressed to another web origin than the verifier’s (a page that relayed a request it did not make).',
      input(present(credential(), { aud: `origin:https://verifier.conformance.example.attacker.example` }), { aud: origin }),
    ),
  ];
}
