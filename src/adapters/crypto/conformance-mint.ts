import { randomBytes } from 'node:crypto';
import type { KeyPair } from '../../core/conformance/builders.ts';
import {
  CONFORMANCE_SCHEMA,
  CONFORMANCE_SCHEMA_V2,
  type ConformanceSchema,
  type ConformanceSet,
  mintConformanceSet,
  mintConformanceSetV2,
  mintConformanceSetV3,
} from '../../core/conformance/vector-set.ts';
import type { CertificateValidity, VectorCertificates } from '../../core/conformance/vectors-v2.ts';
import type { VectorInputV3 } from '../../core/conformance/vectors-v3.ts';
import type { VerificationInput } from '../../core/verifier/verify-presentation.ts';
import { newP256KeyPair } from './p256-keys.ts';
import { certifyKey, createRootCertificate, fileAuthorityKey } from './x509.ts';

const privateJwkOf = (key: KeyPair) => key.privateKey.export({ format: 'jwk' });
const datesOf = (v: CertificateValidity) => ({ notBefore: new Date(v.notBefore * 1000), notAfter: new Date(v.notAfter * 1000) });

/** Schema /2's and /3's certificates, made by the same X.509 code as the deployment's own (x509.ts). */
export const vectorCertificates: VectorCertificates = {
  root: (key, commonName, validity) =>
    createRootCertificate({ subject: { commonName }, key: fileAuthorityKey(privateJwkOf(key)), validity: datesOf(validity) }),
  leaf: (ca, subject, commonName, validity) =>
    certifyKey({
      ca: { certificate: ca.certificate, key: fileAuthorityKey(privateJwkOf(ca.key)) },
      subject: { commonName },
      publicJwk: subject.publicJwk as Parameters<typeof certifyKey>[0]['publicJwk'],
      validity: datesOf(validity),
    }),
};

type Minted<Input> = Promise<{ set: ConformanceSet<Input>; body: string }>;

/** A fresh conformance set of `schema`, minted at `now` (Unix seconds) with new keys (docs/conformance.md). */
export function mintFreshSet(
  schema: typeof CONFORMANCE_SCHEMA | typeof CONFORMANCE_SCHEMA_V2,
  now: number,
): Minted<VerificationInput>;
export function mintFreshSet(schema: ConformanceSchema, now: number): Minted<VectorInputV3>;
export async function mintFreshSet(schema: ConformanceSchema, now: number): Minted<VectorInputV3> {
  const deps = { now, random: (n: number) => randomBytes(n), newKey: newP256KeyPair };
  if (schema === CONFORMANCE_SCHEMA) return mintConformanceSet(deps);
  const withCertificates = { ...deps, certificates: vectorCertificates };
  if (schema === CONFORMANCE_SCHEMA_V2) return mintConformanceSetV2(withCertificates);
  return mintConformanceSetV3(withCertificates);
}
