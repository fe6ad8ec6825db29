import { randomBytes } from 'node:crypto';
import type { KeyPair } from '../../core/conformance/builders.ts';
import {
  CONFORMANCE_SCHEMA,
  type ConformanceSchema,
  type ConformanceSet,
  mintConformanceSet,
  mintConformanceSetV2,
} from '../../core/conformance/vector-set.ts';
import type { CertificateValidity, VectorCertificates } from '../../core/conformance/vectors-v2.ts';
import { newP256KeyPair } from './p256-keys.ts';
import { certifyKey, createRootCertificate, fileAuthorityKey } from './x509.ts';

const privateJwkOf = (key: KeyPair) => key.privateKey.export({ format: 'jwk' });
const datesOf = (v: CertificateValidity) => ({ notBefore: new Date(v.notBefore * 1000), notAfter: new Date(v.notAfter * 1000) });

/** Schema /2's certificates, made by the same X.509 code as the deployment's own (x509.ts). */
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

/** A fresh conformance set of `schema`, minted at `now` (Unix seconds) with new keys (docs/conformance.md). */
export async function mintFreshSet(schema: ConformanceSchema, now: number): Promise<{ set: ConformanceSet; body: string }> {
  const deps = { now, random: (n: number) => randomBytes(n), newKey: newP256KeyPair };
  return schema === CONFORMANCE_SCHEMA
    ? mintConformanceSet(deps)
    : mintConformanceSetV2({ ...deps, certificates: vectorCertificates });
}
