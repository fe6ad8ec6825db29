/**
 * The published sets over real HTTP (docs/conformance.md): /conformance/vectors serves schema /1,
 * /conformance/vectors/2 schema /2 and /conformance/vectors/3 schema /3, each minted once and then
 * served byte for byte the same, CORS-open, its digest over the vectors it carries; the reference
 * verifier, with the deployment's chain check, meets level 2 on what /2 and /3 serve. The route
 * reads no table, so one engine is enough.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sqliteRailOnSocket } from '../../../test/helpers/rail.ts';
import { ChainVerifier } from '../../adapters/crypto/x509.ts';
import { judgeAnswer } from '../../core/conformance/judge.ts';
import { type ConformanceSet, vectorsDigest } from '../../core/conformance/vector-set.ts';
import { VECTOR_IDS } from '../../core/conformance/vectors.ts';
import { VECTOR_IDS_V2 } from '../../core/conformance/vectors-v2.ts';
import { VECTOR_IDS_V3, type VectorInputV3 } from '../../core/conformance/vectors-v3.ts';
import { verifyMdocPresentation } from '../../core/mdoc/verify-mdoc.ts';
import { readVerificationInput, readVerifierInput } from '../../core/verifier/input.ts';
import { verifyWithCertificates } from '../../core/verifier/verify-presentation.ts';

describe('GET /conformance/vectors, /conformance/vectors/2 and /conformance/vectors/3', () => {
  const site = sqliteRailOnSocket();

  const get = async (path: string) => {
    const response = await fetch(`${site.origin}${path}`, { headers: { origin: 'https://verifier.example' } });
    assert.equal(response.status, 200, path);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(response.headers.get('access-control-allow-origin'), '*', `${path} is CORS-open`);
    assert.equal(response.headers.get('cache-control'), 'no-cache');
    return response.text();
  };

  it('each schema at its own address, minted once: concurrent first requests and later ones get the same bytes', async () => {
    const [one, two, twoAgain] = await Promise.all([
      get('/conformance/vectors'),
      get('/conformance/vectors/2'),
      get('/conformance/vectors/2'),
    ]);
    assert.equal(twoAgain, two);
    assert.equal(await get('/conformance/vectors/2'), two);
    assert.equal(await get('/conformance/vectors'), one);
    const v1 = JSON.parse(one) as ConformanceSet;
    const v2 = JSON.parse(two) as ConformanceSet;
    assert.equal(v1.schema, 'svc-open-rail-conformance/1');
    assert.deepEqual(
      v1.vectors.map((v) => v.id),
      [...VECTOR_IDS],
    );
    assert.equal(v2.schema, 'svc-open-rail-conformance/2');
    assert.deepEqual(
      v2.vectors.map((v) => v.id),
      [...VECTOR_IDS_V2],
    );
    for (const set of [v1, v2]) assert.equal(vectorsDigest(set.vectors), set.digest, set.schema);
  });

  it('schema /3 at its own address, minted once, its digest over its vectors', async () => {
    const [three, again] = await Promise.all([get('/conformance/vectors/3'), get('/conformance/vectors/3')]);
    assert.equal(again, three);
    const v3 = JSON.parse(three) as ConformanceSet<VectorInputV3>;
    assert.equal(v3.schema, 'svc-open-rail-conformance/3');
    assert.deepEqual(
      v3.vectors.map((v) => v.id),
      [...VECTOR_IDS_V3],
    );
    assert.equal(vectorsDigest(v3.vectors), v3.digest);
  });

  it('the reference verifier with the deployment’s chain check meets level 2 on every vector /2 serves', async () => {
    const set = JSON.parse(await get('/conformance/vectors/2')) as ConformanceSet;
    for (const v of set.vectors) {
      const input = readVerificationInput(v.input);
      assert.ok(typeof input === 'object', v.id);
      const r = await verifyWithCertificates(input, (chain, anchors, now) =>
        new ChainVerifier(anchors).keyOf(chain, new Date(now * 1000)),
      );
      assert.equal(judgeAnswer(v, { verdict: r.verdict, failure: r.failure, claims: r.claims }, 2), undefined, v.id);
    }
  });

  it('the reference verifier with the deployment’s chain check meets level 2 on every vector /3 serves, mdoc ones included', async () => {
    const set = JSON.parse(await get('/conformance/vectors/3')) as ConformanceSet<VectorInputV3>;
    const check = (chain: readonly string[], anchors: readonly string[], now: number) =>
      new ChainVerifier(anchors).keyOf(chain, new Date(now * 1000));
    let mdoc = 0;
    for (const v of set.vectors) {
      const read = readVerifierInput(v.input);
      assert.ok(typeof read === 'object', v.id);
      if (read.format === 'mso_mdoc') mdoc++;
      const r =
        read.format === 'mso_mdoc'
          ? await verifyMdocPresentation(read.input, check)
          : await verifyWithCertificates(read.input, check);
      assert.equal(judgeAnswer(v, { verdict: r.verdict, failure: r.failure, claims: r.claims }, 2), undefined, v.id);
    }
    assert.equal(mdoc, 7);
  });
});
