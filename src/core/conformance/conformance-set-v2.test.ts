/**
 * Schema svc-open-rail-conformance/2 (docs/conformance.md): the 16 vectors of /1 unchanged in
 * shape and verdict, then the HAIP and Digital Credentials API cases. As in /1, every reject
 * vector breaks one link: a verifier that skips a check, ignores the trust anchors, or trusts any
 * root fails exactly the vectors that prove it. The x5c-valid chain also verifies with Node's own
 * X.509 code, which is not the library the set is built with.
 */
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { describe, it } from 'node:test';
import { decodeProtectedHeader, type JWK } from 'jose';
import { mintFreshSet } from '../../adapters/crypto/conformance-mint.ts';
import { ChainVerifier } from '../../adapters/crypto/x509.ts';
import { p256Jwk, p256Thumbprint } from '../jose/es256.ts';
import { assertionKey } from '../verifier/did-keys.ts';
import { readVerificationInput } from '../verifier/input.ts';
import type { ChainCheck } from '../verifier/issuer-certificate.ts';
import { CHECKS, type CheckName, deriveVerdict, FAILURE_CHECK, FAILURE_CODES } from '../verifier/ledger.ts';
import { type VerificationInput, verifyPresentation, verifyWithCertificates } from '../verifier/verify-presentation.ts';
import { judgeAnswer, type VerifierAnswer } from './judge.ts';
import { CONFORMANCE_SCHEMA, CONFORMANCE_SCHEMA_V2, type ConformanceSet, SCHEMAS } from './vector-set.ts';
import { VECTOR_IDS } from './vectors.ts';
import { VECTOR_IDS_V2 } from './vectors-v2.ts';

const now = Math.floor(Date.now() / 1000);
const { set, body } = await mintFreshSet(CONFORMANCE_SCHEMA_V2, now);
const byId = (id: string) => {
  const v = set.vectors.find((x) => x.id === id);
  assert.ok(v, `vector ${id}`);
  return v;
};
const X5C_REJECTS = ['x5c-missing', 'x5c-untrusted-chain', 'x5c-certifies-another-key', 'x5c-expired-certificate'];

/** The deployment's chain verifier, as `openrail verify` uses it. */
const strict: ChainCheck = (chain, anchors, at) => new ChainVerifier(anchors).keyOf(chain, new Date(at * 1000));
/** A verifier that checks the chain's own signatures and dates but trusts whatever root it ends at. */
const anyRoot: ChainCheck = (chain, _anchors, at) =>
  new ChainVerifier([chain.at(-1) as string]).keyOf(chain, new Date(at * 1000));

type Verifier = (input: VerificationInput) => Promise<VerifierAnswer>;
const answering =
  (check: ChainCheck, skip?: CheckName): Verifier =>
  async (input) => {
    const r = await verifyWithCertificates(input, check);
    const ledger = r.ledger.map((e) => (e.check === skip ? { check: e.check, status: 'passed' as const } : e));
    const { verdict, failure } = deriveVerdict(ledger);
    return { verdict, failure, claims: verdict === 'accept' ? r.claims : null };
  };
/** The /1 reference verifier: it reads the trust anchors and never uses them. */
const ignoringAnchors: Verifier = async ({ trustAnchors: _ignored, ...input }) => {
  const r = verifyPresentation(input);
  return { verdict: r.verdict, failure: r.failure, claims: r.claims };
};

async function failingAt(level: 1 | 2, verify: Verifier): Promise<string[]> {
  const failing: string[] = [];
  for (const v of set.vectors) if (judgeAnswer(v, await verify(v.input), level)) failing.push(v.id);
  return failing;
}

describe('schema /2: the set', () => {
  it('has the schema, its version, and the 24 vectors in order: those of /1 first', () => {
    assert.equal(set.schema, 'svc-open-rail-conformance/2');
    assert.equal(set.setVersion, SCHEMAS[CONFORMANCE_SCHEMA_V2].setVersion);
    assert.match(set.setVersion, /^\d+\.\d+\.\d+$/);
    assert.equal(set.mintedAt, new Date(now * 1000).toISOString());
    assert.deepEqual(
      set.vectors.map((v) => v.id),
      [...VECTOR_IDS_V2],
    );
    assert.equal(set.vectors.length, 24);
    assert.deepEqual(
      set.vectors.slice(0, 16).map((v) => v.id),
      [...VECTOR_IDS],
    );
    assert.ok(body.includes(`"digest":"${set.digest}"`));
    assert.deepEqual(Object.keys(set.failureCodes).sort(), Object.keys(FAILURE_CODES).sort());
    assert.match(set.failureCodes.issuer_key_unknown as string, /x5c/);
  });

  it('keeps the vectors of /1 as /1 has them: the same input keys, proofs and expectations', async () => {
    const v1 = (await mintFreshSet(CONFORMANCE_SCHEMA, now)).set;
    for (const [i, v] of set.vectors.slice(0, 16).entries()) {
      const same = v1.vectors[i];
      assert.ok(same);
      assert.equal(v.id, same.id);
      assert.equal(v.proves, same.proves, v.id);
      assert.deepEqual(Object.keys(v.input).sort(), Object.keys(same.input).sort(), v.id);
      assert.deepEqual({ ...v.expect, claims: null }, { ...same.expect, claims: null }, v.id);
      assert.equal('trustAnchors' in v.input, false, v.id);
    }
  });

  it('gives the x5c vectors one trust anchor and an x509_hash audience; the origin vectors an origin: audience', () => {
    for (const id of ['x5c-valid', ...X5C_REJECTS, 'x509-hash-audience-mismatch']) {
      const { input } = byId(id);
      assert.equal(input.trustAnchors?.length, 1, id);
      assert.match(input.expected.aud, /^x509_hash:[A-Za-z0-9_-]{43}$/, id);
    }
    for (const id of ['dc-api-origin-valid', 'dc-api-origin-mismatch']) {
      assert.equal(byId(id).input.expected.aud, 'origin:https://verifier.conformance.example', id);
      assert.equal('trustAnchors' in byId(id).input, false, id);
    }
    for (const v of set.vectors) {
      assert.equal(typeof readVerificationInput(JSON.parse(JSON.stringify(v.input))), 'object', v.id);
      if (v.expect.verdict === 'accept') {
        assert.equal(v.proves, 'all', v.id);
        continue;
      }
      assert.ok(v.expect.failure);
      assert.equal(FAILURE_CHECK[v.expect.failure], v.proves, v.id);
    }
  });

  it('x5c-valid verifies with Node’s X.509: the leaf is issued and signed by the anchor, and certifies the DID document’s key', () => {
    const { input } = byId('x5c-valid');
    const issuerJwt = input.presentation.split('~')[0] as string;
    const header = decodeProtectedHeader(issuerJwt);
    assert.ok(Array.isArray(header.x5c) && header.x5c.length === 1);
    const leaf = new X509Certificate(Buffer.from(header.x5c[0] as string, 'base64'));
    const anchor = new X509Certificate(Buffer.from(input.trustAnchors?.[0] as string, 'base64'));
    assert.ok(anchor.ca);
    assert.ok(leaf.checkIssued(anchor));
    assert.ok(leaf.verify(anchor.publicKey));
    assert.equal(leaf.ca, false);
    const certified = p256Jwk(leaf.publicKey.export({ format: 'jwk' })) as JWK;
    const listed = assertionKey(input.didDocument, header.kid)?.jwk as JWK;
    assert.equal(p256Thumbprint(certified), p256Thumbprint(listed));
    // The audience is the hash of a certificate (not the issuer's): 32 bytes.
    const hash = input.expected.aud.slice('x509_hash:'.length);
    assert.equal(Buffer.from(hash, 'base64url').length, 32);
    assert.notEqual(hash, createHash('sha256').update(leaf.raw).digest('base64url'));
  });
});

describe('schema /2: verifiers judged by it', () => {
  it('the reference verifier with the deployment’s chain check meets level 2 on every vector, read back from the body', async () => {
    const parsed = JSON.parse(body) as ConformanceSet;
    for (const v of parsed.vectors) {
      const input = readVerificationInput(v.input);
      assert.ok(typeof input === 'object', `${v.id}: ${String(input)}`);
      const answer = await answering(strict)(input);
      assert.equal(judgeAnswer(v, answer, 2), undefined, `${v.id}: ${JSON.stringify(answer)}`);
    }
  });

  it('has exactly one failed check on every reject vector: the one it proves', async () => {
    for (const v of set.vectors.filter((x) => x.expect.verdict === 'reject')) {
      const r = await verifyWithCertificates(v.input, strict);
      assert.deepEqual(
        r.ledger.filter((e) => e.status === 'failed').map((e) => [e.check, e.failure]),
        [[v.proves, v.expect.failure]],
        `${v.id}: ${JSON.stringify(r.ledger)}`,
      );
    }
  });

  it('a verifier that ignores the trust anchors fails exactly the four x5c reject vectors', async () => {
    assert.deepEqual(await failingAt(1, ignoringAnchors), X5C_REJECTS);
  });

  it('a verifier that trusts the root any chain ends at fails exactly x5c-untrusted-chain', async () => {
    assert.deepEqual(await failingAt(1, answering(anyRoot)), ['x5c-untrusted-chain']);
  });

  it('a verifier given anchors but no chain check accepts nothing that needs one', async () => {
    // verifyPresentation without the certified key fails closed: every anchored vector is refused.
    const r = verifyPresentation(byId('x5c-valid').input);
    assert.equal(r.verdict, 'reject');
    assert.equal(r.ledger.find((e) => e.check === 'issuer_key')?.detail, 'The issuer certificate chain was not checked.');
  });

  for (const check of CHECKS) {
    it(`a verifier that skips ${check} fails exactly the vectors proving it`, async () => {
      const proving = set.vectors.filter((v) => v.proves === check).map((v) => v.id);
      assert.ok(proving.length > 0);
      assert.deepEqual(await failingAt(1, answering(strict, check)), proving);
    });
  }
});
