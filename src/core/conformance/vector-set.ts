import { createHash } from 'node:crypto';
import { canonicalJson } from '../canonical-json.ts';
import { FAILURE_CODES, MDOC_FAILURE_CODES } from '../verifier/ledger.ts';
import type { VerificationInput } from '../verifier/verify-presentation.ts';
import { type ConformanceVector, type MintDeps, mintVectors, VECTOR_IDS } from './vectors.ts';
import { type MintDepsV2, mintVectorsV2, VECTOR_IDS_V2 } from './vectors-v2.ts';
import { mintVectorsV3, VECTOR_IDS_V3, type VectorInputV3 } from './vectors-v3.ts';

export const CONFORMANCE_SCHEMA = 'svc-open-rail-conformance/1';
export const CONFORMANCE_SCHEMA_V2 = 'svc-open-rail-conformance/2';
export const CONFORMANCE_SCHEMA_V3 = 'svc-open-rail-conformance/3';
export type ConformanceSchema = typeof CONFORMANCE_SCHEMA | typeof CONFORMANCE_SCHEMA_V2 | typeof CONFORMANCE_SCHEMA_V3;
/** Versions the contract of schema /1: a change a verifier could notice bumps it. */
export const SET_VERSION = '1.0.0';

/** Each schema's set version and vector ids, in the order a set lists them (docs/conformance.md). */
export const SCHEMAS: Record<ConformanceSchema, { setVersion: string; ids: readonly string[] }> = {
  [CONFORMANCE_SCHEMA]: { setVersion: SET_VERSION, ids: VECTOR_IDS },
  [CONFORMANCE_SCHEMA_V2]: { setVersion: '1.0.0', ids: VECTOR_IDS_V2 },
  [CONFORMANCE_SCHEMA_V3]: { setVersion: '1.0.0', ids: VECTOR_IDS_V3 },
};

export const CONFORMANCE_LEVELS = {
  level1: {
    binding: true,
    compares: ['verdict'],
    about: 'The verdict of every vector matches. A verifier that claims conformance must reach this level.',
  },
  level2: {
    binding: false,
    recommended: true,
    compares: ['verdict', 'failure', 'claims'],
    about: 'Level 1, and the failure code of every non-accept vector and the disclosed claims of every accept vector match.',
  },
} as const;

/** A set; its vectors' `Input` is an SD-JWT VC input, or for schema /3 either kind (`VectorInputV3`). */
export interface ConformanceSet<Input = VerificationInput> {
  schema: ConformanceSchema;
  setVersion: string;
  mintedAt: string;
  digest: string;
  about: string;
  failureCodes: Record<string, string>;
  conformanceLevels: typeof CONFORMANCE_LEVELS;
  vectors: ConformanceVector<Input>[];
}

/** `sha256:<hex>` over the JCS bytes of the `vectors` array (docs/conformance.md). */
export const vectorsDigest = (vectors: readonly ConformanceVector<unknown>[]) =>
  `sha256:${createHash('sha256').update(canonicalJson(vectors), 'utf8').digest('hex')}`;

/** The set around its vectors; the body is its JCS form, so `vectors` appears in it byte for byte as digested. */
function setOf<Input>(
  schema: ConformanceSchema,
  now: number,
  about: string,
  failureCodes: Record<string, string>,
  vectors: ConformanceVector<Input>[],
): { set: ConformanceSet<Input>; body: string } {
  const set: ConformanceSet<Input> = {
    schema,
    setVersion: SCHEMAS[schema].setVersion,
    mintedAt: new Date(now * 1000).toISOString(),
    digest: vectorsDigest(vectors),
    about,
    failureCodes,
    conformanceLevels: CONFORMANCE_LEVELS,
    vectors,
  };
  return { set, body: canonicalJson(set) };
}

/** A fresh set of schema /1: new keys, nonces and indices on every mint. */
export function mintConformanceSet(deps: MintDeps): { set: ConformanceSet; body: string } {
  return setOf(
    CONFORMANCE_SCHEMA,
    deps.now,
    "openrail's conformance vectors for SD-JWT VC presentation verifiers: feed each input to your verifier and compare its answer with expect. Minted with fresh keys; never pin the bytes.",
    { ...FAILURE_CODES },
    mintVectors(deps),
  );
}

/** Schema /2's description of `issuer_key_unknown`, which names the x5c case; /3 publishes it too. */
const ISSUER_KEY_UNKNOWN_V2 =
  'The key named by the issuer JWT "kid" is not a P-256 assertion key of the supplied DID document, or, when trust anchors are supplied, the issuer JWT\'s x5c does not certify that key under one of them.';

/** A fresh set of schema /2: the vectors of /1 and the HAIP and Digital Credentials API cases, with new keys and certificates. */
export async function mintConformanceSetV2(deps: MintDepsV2): Promise<{ set: ConformanceSet; body: string }> {
  return setOf(
    CONFORMANCE_SCHEMA_V2,
    deps.now,
    "openrail's conformance vectors for SD-JWT VC presentation verifiers, with the HAIP 1.0 and Digital Credentials API cases: feed each input to your verifier and compare its answer with expect. An input with trustAnchors needs the issuer key certified by x5c as well. Minted with fresh keys and certificates; never pin the bytes.",
    { ...FAILURE_CODES, issuer_key_unknown: ISSUER_KEY_UNKNOWN_V2 },
    await mintVectorsV2(deps),
  );
}

/**
 * A fresh set of schema /3: the vectors of /2, then the ISO mdoc cases, with new keys and
 * certificates. Its failure codes are those of /2 and the two only an mdoc can fail with.
 */
export async function mintConformanceSetV3(deps: MintDepsV2): Promise<{ set: ConformanceSet<VectorInputV3>; body: string }> {
  return setOf(
    CONFORMANCE_SCHEMA_V3,
    deps.now,
    "openrail's conformance vectors for SD-JWT VC and ISO mdoc presentation verifiers: the vectors of /2, then mdoc presentations over OpenID4VP 1.0, whose input has format mso_mdoc (a base64url DeviceResponse, judged against a doctype, the namespaced elements required and the session transcript the device must have signed; the issuer key is the one the x5chain certifies under trustAnchors, and must be an assertion key of the DID document). Feed each input to your verifier and compare its answer with expect. Minted with fresh keys and certificates; never pin the bytes.",
    { ...FAILURE_CODES, issuer_key_unknown: ISSUER_KEY_UNKNOWN_V2, ...MDOC_FAILURE_CODES },
    await mintVectorsV3(deps),
  );
}
