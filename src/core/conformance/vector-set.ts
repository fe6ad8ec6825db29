import { createHash } from 'node:crypto';
import { canonicalJson } from '../canonical-json.ts';
import { FAILURE_CODES } from '../verifier/ledger.ts';
import { type ConformanceVector, type MintDeps, mintVectors } from './vectors.ts';

export const CONFORMANCE_SCHEMA = 'svc-open-rail-conformance/1';
/** Versions the contract of this schema: a change a verifier could notice bumps it. */
export const SET_VERSION = '1.0.0';

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

export interface ConformanceSet {
  schema: typeof CONFORMANCE_SCHEMA;
  setVersion: string;
  mintedAt: string;
  digest: string;
  about: string;
  failureCodes: Record<string, string>;
  conformanceLevels: typeof CONFORMANCE_LEVELS;
  vectors: ConformanceVector[];
}

/** `sha256:<hex>` over the JCS bytes of the `vectors` array (docs/conformance.md). */
export const vectorsDigest = (vectors: readonly ConformanceVector[]) =>
  `sha256:${createHash('sha256').update(canonicalJson(vectors), 'utf8').digest('hex')}`;

/**
 * A fresh set: new keys, nonces and indices on every mint. The body is the set's JCS form, so
 * the `vectors` member appears in it byte for byte as digested.
 */
export function mintConformanceSet(deps: MintDeps): { set: ConformanceSet; body: string } {
  const vectors = mintVectors(deps);
  const set: ConformanceSet = {
    schema: CONFORMANCE_SCHEMA,
    setVersion: SET_VERSION,
    mintedAt: new Date(deps.now * 1000).toISOString(),
    digest: vectorsDigest(vectors),
    about:
      "openrail's conformance vectors for SD-JWT VC presentation verifiers: feed each input to your verifier and compare its answer with expect. Minted with fresh keys; never pin the bytes.",
    failureCodes: { ...FAILURE_CODES },
    conformanceLevels: CONFORMANCE_LEVELS,
    vectors,
  };
  return { set, body: canonicalJson(set) };
}
