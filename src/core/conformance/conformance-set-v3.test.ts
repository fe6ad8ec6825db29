/**
 * Schema svc-open-rail-conformance/3 (docs/conformance.md): the 24 vectors of /2 unchanged, then
 * seven ISO mdoc presentations, each breaking one link, which the reference verifier judges at
 * level 2. Schemas /1 and /2 publish exactly what they did: the same ids and the same failure
 * codes, none of the mdoc ones. An independent library (@auth0/mdl) verifies mdoc-valid.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUTH0_CORE_CHECKS, verifyWithAuth0 } from '../../../test/helpers/auth0-mdl.ts';
import { mintFreshSet } from '../../adapters/crypto/conformance-mint.ts';
import { ChainVerifier, toPem } from '../../adapters/crypto/x509.ts';
import { redirectTranscript } from '../mdoc/session-transcript.ts';
import { verifyMdocPresentation } from '../mdoc/verify-mdoc.ts';
import { readVerifierInput } from '../verifier/input.ts';
import type { ChainCheck } from '../verifier/issuer-certificate.ts';
import { CHECKS, type CheckName, deriveVerdict, FAILURE_CHECK, FAILURE_CODES, MDOC_FAILURE_CODES } from '../verifier/ledger.ts';
import { verifyWithCertificates } from '../verifier/verify-presentation.ts';
import { judgeAnswer, type VerifierAnswer } from './judge.ts';
import {
  CONFORMANCE_SCHEMA,
  CONFORMANCE_SCHEMA_V2,
  CONFORMANCE_SCHEMA_V3,
  type ConformanceSet,
  SCHEMAS,
  vectorsDigest,
} from './vector-set.ts';
import type { ConformanceVector } from './vectors.ts';
import { VECTOR_IDS_V2 } from './vectors-v2.ts';
import { type MdocVectorInput, VECTOR_IDS_V3, type VectorInputV3 } from './vectors-v3.ts';

const now = Math.floor(Date.now() / 1000);
const { set, body } = await mintFreshSet(CONFORMANCE_SCHEMA_V3, now);
const v2 = (await mintFreshSet(CONFORMANCE_SCHEMA_V2, now)).set;
const v1 = (await mintFreshSet(CONFORMANCE_SCHEMA, now)).set;

const MDOC_IDS = [
  'mdoc-valid',
  'mdoc-tampered-element',
  'mdoc-wrong-doctype',
  'mdoc-outside-validity',
  'mdoc-revoked',
  'mdoc-other-session-transcript',
  'mdoc-untrusted-anchor',
];
/** The ids /1 and /2 have always published, written out so that a change to either shows here. */
const IDS_V1 = [
  'valid',
  'status-list-withheld',
  'revoked',
  'tampered-issuer-signature',
  'wrong-issuer-key',
  'stolen-credential',
  'wrong-credential-type',
  'required-claim-withheld',
  'did-document-not-bound',
  'forged-disclosure',
  'disclosure-set-altered',
  'audience-mismatch',
  'nonce-replay',
  'expired-status-list',
  'status-list-substituted',
  'malformed-presentation',
];
const IDS_V2 = [
  ...IDS_V1,
  'x5c-valid',
  'x5c-missing',
  'x5c-untrusted-chain',
  'x5c-certifies-another-key',
  'x5c-expired-certificate',
  'x509-hash-audience-mismatch',
  'dc-api-origin-valid',
  'dc-api-origin-mismatch',
];
/** The 26 failure codes of /1 and /2, sorted. */
const CODES_V1 = [
  'audience_mismatch',
  'credential_outside_validity',
  'credential_revoked',
  'did_document_not_bound',
  'duplicate_digest',
  'holder_key_missing',
  'issuer_key_unknown',
  'issuer_signature_invalid',
  'key_binding_invalid',
  'key_binding_missing',
  'key_binding_not_fresh',
  'malformed_disclosure',
  'malformed_presentation',
  'nonce_mismatch',
  'required_claim_missing',
  'sd_hash_mismatch',
  'status_list_expired',
  'status_list_invalid',
  'status_list_mismatch',
  'status_unavailable',
  'unreferenced_disclosure',
  'unsupported_algorithm',
  'unsupported_disclosure_structure',
  'unsupported_hash_algorithm',
  'wrong_credential_format',
  'wrong_credential_type',
].sort();

const mdocVectors = set.vectors.slice(24) as ConformanceVector<MdocVectorInput>[];
const byId = (id: string) => {
  const v = set.vectors.find((x) => x.id === id);
  assert.ok(v, `vector ${id}`);
  return v;
};

/** The deployment's chain verifier, as `openrail verify` uses it. */
const strict: ChainCheck = (chain, anchors, at) => new ChainVerifier(anchors).keyOf(chain, new Date(at * 1000));

/** The reference verifier on an input of either kind, read as `openrail verify` reads it. */
async function reference(raw: unknown) {
  const read = readVerifierInput(JSON.parse(JSON.stringify(raw)));
  assert.ok(typeof read === 'object', String(read));
  return read.format === 'mso_mdoc' ? verifyMdocPresentation(read.input, strict) : verifyWithCertificates(read.input, strict);
}

/** The reference verifier with one check's entry forced to passed, the verdict derived again. */
const skipping =
  (check: CheckName) =>
  async (raw: unknown): Promise<VerifierAnswer> => {
    const r = await reference(raw);
    const ledger = r.ledger.map((e) => (e.check === check ? { check, status: 'passed' as const } : e));
    const { verdict, failure } = deriveVerdict(ledger);
    return { verdict, failure, claims: verdict === 'accept' ? r.claims : null };
  };

describe('schema /3: the set', () => {
  it('has the schema, its version, and the 31 vectors in order: those of /2 first', () => {
    assert.equal(set.schema, 'svc-open-rail-conformance/3');
    assert.equal(set.setVersion, SCHEMAS[CONFORMANCE_SCHEMA_V3].setVersion);
    assert.match(set.setVersion, /^\d+\.\d+\.\d+$/);
    assert.equal(set.mintedAt, new Date(now * 1000).toISOString());
    assert.deepEqual(
      set.vectors.map((v) => v.id),
      [...IDS_V2, ...MDOC_IDS],
    );
    assert.deepEqual([...VECTOR_IDS_V3], [...IDS_V2, ...MDOC_IDS]);
    assert.equal(vectorsDigest(set.vectors), set.digest);
    assert.ok(body.includes(`"digest":"${set.digest}"`));
  });

  it('publishes the codes of /2 and the two mdoc codes', () => {
    assert.deepEqual(Object.keys(set.failureCodes).sort(), [...CODES_V1, ...Object.keys(MDOC_FAILURE_CODES)].sort());
    assert.equal(set.failureCodes.issuer_key_unknown, v2.failureCodes.issuer_key_unknown);
    for (const [code, text] of Object.entries(MDOC_FAILURE_CODES)) assert.equal(set.failureCodes[code], text, code);
    for (const v of set.vectors) if (v.expect.failure) assert.ok(set.failureCodes[v.expect.failure], v.id);
  });

  it('leaves /1 and /2 as they were: the same ids, the same failure codes, no mdoc code', () => {
    assert.deepEqual(
      v1.vectors.map((v) => v.id),
      IDS_V1,
    );
    assert.deepEqual(
      v2.vectors.map((v) => v.id),
      IDS_V2,
    );
    assert.deepEqual([...SCHEMAS[CONFORMANCE_SCHEMA].ids], IDS_V1);
    assert.deepEqual([...SCHEMAS[CONFORMANCE_SCHEMA_V2].ids], IDS_V2);
    assert.deepEqual(Object.keys(FAILURE_CODES).sort(), CODES_V1);
    for (const published of [v1, v2]) {
      assert.deepEqual(Object.keys(published.failureCodes).sort(), CODES_V1, published.schema);
      assert.equal(published.setVersion, '1.0.0', published.schema);
    }
    assert.deepEqual(v1.failureCodes, { ...FAILURE_CODES });
    assert.deepEqual({ ...v2.failureCodes, issuer_key_unknown: FAILURE_CODES.issuer_key_unknown }, { ...FAILURE_CODES });
    assert.match(v2.failureCodes.issuer_key_unknown as string, /x5c/);
    for (const v of [...v1.vectors, ...v2.vectors]) assert.equal('format' in v.input, false, v.id);
  });

  it('carries the vectors of /2 as /2 has them: the same input keys, proofs and expectations', () => {
    assert.deepEqual(
      set.vectors.slice(0, 24).map((v) => v.id),
      [...VECTOR_IDS_V2],
    );
    for (const [i, v] of set.vectors.slice(0, 24).entries()) {
      const same = v2.vectors[i] as ConformanceVector;
      assert.equal(v.proves, same.proves, v.id);
      assert.deepEqual(Object.keys(v.input).sort(), Object.keys(same.input).sort(), v.id);
      assert.deepEqual(v.expect, same.expect, v.id);
    }
  });

  it('gives every mdoc vector the mdoc input: one anchor, the required elements, and the transcript of its handover', () => {
    const anchor = mdocVectors[0]?.input.trustAnchors[0];
    for (const v of mdocVectors) {
      const { input } = v;
      assert.equal(input.format, 'mso_mdoc', v.id);
      assert.deepEqual(
        Object.keys(input).sort(),
        ['didDocument', 'expected', 'format', 'handover', 'now', 'presentation', 'statusList', 'trustAnchors'],
        v.id,
      );
      assert.deepEqual(input.trustAnchors, [anchor], v.id);
      assert.equal(input.now, now);
      assert.deepEqual(input.expected.claims, [
        ['example.conformance.membership.1', 'given_name'],
        ['example.conformance.membership.1', 'member_number'],
        ['example.conformance.membership.1', 'age_over_18'],
      ]);
      assert.equal(input.handover.encryptionKeyThumbprint, null);
      assert.equal(
        input.expected.sessionTranscript,
        Buffer.from(redirectTranscript(input.handover)).toString('base64url'),
        `${v.id}: the transcript is computed from the handover`,
      );
      if (v.expect.verdict === 'accept') assert.equal(v.proves, 'all', v.id);
      else assert.equal(FAILURE_CHECK[v.expect.failure as keyof typeof FAILURE_CHECK], v.proves, v.id);
    }
  });
});

describe('schema /3: the reference verifier', () => {
  it('meets level 2 on all 31 vectors, read back from the body', async () => {
    const parsed = JSON.parse(body) as ConformanceSet<VectorInputV3>;
    for (const v of parsed.vectors) {
      const r = await reference(v.input);
      const answer = { verdict: r.verdict, failure: r.failure, claims: r.claims };
      assert.equal(judgeAnswer(v, answer, 2), undefined, `${v.id}: ${JSON.stringify(answer)}`);
    }
  });

  it('discloses the elements of mdoc-valid by namespace, the birth date as a calendar date', async () => {
    const r = await reference(byId('mdoc-valid').input);
    assert.deepEqual(r.claims, {
      'example.conformance.membership.1': {
        given_name: 'Ada',
        family_name: 'Lovelace',
        member_number: 'M-1815-12',
        age_over_18: true,
        birth_date: '1815-12-10',
      },
    });
  });

  // mdoc-tampered-element also fails required_claims in the reference ledger: once one element
  // does not match its digest, it discloses none of them.
  const ALSO_FAILED: Record<string, string[]> = { 'mdoc-tampered-element': ['required_claims'] };
  for (const id of MDOC_IDS.slice(1)) {
    it(`answers ${id} with its expected failure, on the link it proves`, async () => {
      const v = byId(id);
      const r = await reference(v.input);
      assert.equal(r.verdict, v.expect.verdict, JSON.stringify(r.ledger));
      assert.equal(r.failure, v.expect.failure, JSON.stringify(r.ledger));
      assert.equal(r.claims, null);
      assert.deepEqual(
        r.ledger.filter((e) => e.status === 'failed').map((e) => e.check),
        [v.proves, ...(ALSO_FAILED[id] ?? [])],
        JSON.stringify(r.ledger),
      );
    });
  }

  for (const check of CHECKS) {
    it(`a verifier that skips ${check} fails, at level 2, exactly the mdoc vectors proving it`, async () => {
      const failing: string[] = [];
      for (const v of mdocVectors) if (judgeAnswer(v, await skipping(check)(v.input), 2)) failing.push(v.id);
      assert.deepEqual(
        failing,
        mdocVectors.filter((v) => v.proves === check).map((v) => v.id),
      );
    });
  }
});

describe('schema /3: an independent library reads mdoc-valid', () => {
  it('@auth0/mdl verifies its issuer chain, MSO signature, digests, validity and device signature', async () => {
    const { input } = byId('mdoc-valid') as ConformanceVector<MdocVectorInput>;
    const transcript = Buffer.from(input.expected.sessionTranscript, 'base64url');
    const presentation = Buffer.from(input.presentation, 'base64url');
    const namespace = String(input.expected.claims[0]?.[0]);
    const { passed, failed, elements } = await verifyWithAuth0(
      presentation,
      input.trustAnchors.map(toPem),
      transcript,
      namespace,
    );
    assert.ok(elements && Object.keys(elements).length > 0, 'the elements read');
    assert.deepEqual(failed, []);
    for (const made of AUTH0_CORE_CHECKS) assert.ok(passed.includes(made), `@auth0/mdl checked: ${made}`);
  });
});
