/**
 * The conformance vector set (interface: "Conformance vector set"): its shape, its digest over the
 * exact bytes, the verdict of each vector, and the property that makes it a test of verifiers:
 * every reject vector breaks exactly one link, so a verifier that skips one check fails exactly the
 * vectors that prove that check. The valid vector also verifies with an independent library.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { digest, ES256 } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { decodeProtectedHeader, type JWK } from 'jose';
import { newP256KeyPair } from '../../adapters/crypto/p256-keys.ts';
import { canonicalJson } from '../canonical-json.ts';
import type { DidDocument } from '../did-web.ts';
import { readVerificationInput } from '../verifier/input.ts';
import { CHECKS, type CheckName, deriveVerdict, FAILURE_CHECK, FAILURE_CODES } from '../verifier/ledger.ts';
import { type VerificationInput, verifyPresentation } from '../verifier/verify-presentation.ts';
import { judgeAnswer, type VerifierAnswer } from './judge.ts';
import { CONFORMANCE_SCHEMA, type ConformanceSet, mintConformanceSet, SET_VERSION } from './vector-set.ts';
import type { ConformanceVector, MintDeps } from './vectors.ts';

const freshDeps = (): MintDeps => ({
  now: Math.floor(Date.now() / 1000),
  random: (n) => randomBytes(n),
  newKey: newP256KeyPair,
});

/** The interface table: id → required verdict. */
const TABLE: Record<string, string> = {
  valid: 'accept',
  'status-list-withheld': 'indeterminate',
  revoked: 'reject',
  'tampered-issuer-signature': 'reject',
  'wrong-issuer-key': 'reject',
  'stolen-credential': 'reject',
  'wrong-credential-type': 'reject',
  'required-claim-withheld': 'reject',
  'did-document-not-bound': 'reject',
  'forged-disclosure': 'reject',
  'disclosure-set-altered': 'reject',
  'audience-mismatch': 'reject',
  'nonce-replay': 'reject',
  'expired-status-list': 'reject',
  'status-list-substituted': 'reject',
  'malformed-presentation': 'reject',
};

const deps = freshDeps();
const { set, body } = mintConformanceSet(deps);
const byId = (id: string) => {
  const v = set.vectors.find((x) => x.id === id);
  assert.ok(v, `vector ${id}`);
  return v;
};

const answerOf = (r: ReturnType<typeof verifyPresentation>): VerifierAnswer => ({
  verdict: r.verdict,
  failure: r.failure,
  claims: r.claims,
});

/** The reference verifier with one check's ledger entry forced to passed, the verdict re-derived. */
function skipping(check: CheckName) {
  return (input: VerificationInput): VerifierAnswer => {
    const r = verifyPresentation(input);
    const ledger = r.ledger.map((e) => (e.check === check ? { check, status: 'passed' as const } : e));
    const { verdict, failure } = deriveVerdict(ledger);
    return { verdict, failure, claims: verdict === 'accept' ? r.claims : null };
  };
}

describe('the set', () => {
  it('has the schema, version, mint time and about of the interface', () => {
    assert.equal(set.schema, 'svc-open-rail-conformance/1');
    assert.equal(set.schema, CONFORMANCE_SCHEMA);
    assert.equal(typeof set.setVersion, 'string');
    assert.equal(set.setVersion, SET_VERSION);
    assert.match(set.setVersion, /^\d+\.\d+\.\d+$/);
    assert.match(set.mintedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(set.mintedAt, new Date(deps.now * 1000).toISOString());
    assert.equal(typeof set.about, 'string');
    assert.ok(set.about.length > 0);
    assert.deepEqual(Object.keys(set).sort(), [
      'about',
      'conformanceLevels',
      'digest',
      'failureCodes',
      'mintedAt',
      'schema',
      'setVersion',
      'vectors',
    ]);
  });

  it('names the 26 failure codes of the verifier, with their descriptions', () => {
    assert.equal(Object.keys(set.failureCodes).length, 26);
    assert.deepEqual(set.failureCodes, { ...FAILURE_CODES });
    assert.ok('malformed_presentation' in set.failureCodes);
    assert.ok('unsupported_disclosure_structure' in set.failureCodes);
  });

  it('has level1 (verdict, binding) and level2 (verdict, failure, claims, recommended)', () => {
    const { level1, level2 } = set.conformanceLevels;
    assert.deepEqual(Object.keys(set.conformanceLevels).sort(), ['level1', 'level2']);
    assert.equal(level1.binding, true);
    assert.deepEqual([...level1.compares], ['verdict']);
    assert.equal(level2.binding, false);
    assert.equal(level2.recommended, true);
    assert.deepEqual([...level2.compares], ['verdict', 'failure', 'claims']);
  });

  it('holds exactly the 16 vectors of the interface table, with their verdicts', () => {
    assert.equal(set.vectors.length, 16);
    assert.deepEqual(set.vectors.map((v) => v.id).sort(), Object.keys(TABLE).sort());
    for (const v of set.vectors) assert.equal(v.expect.verdict, TABLE[v.id], v.id);
    assert.equal(set.vectors.filter((v) => v.expect.verdict === 'reject').length, 14);
  });

  it('gives every vector {id, about, proves, input, expect:{verdict, failure, claims}} and the documented input keys', () => {
    for (const v of set.vectors) {
      assert.deepEqual(Object.keys(v).sort(), ['about', 'expect', 'id', 'input', 'proves'], v.id);
      assert.ok(typeof v.about === 'string' && v.about.length > 0, v.id);
      assert.ok(v.proves === 'all' || CHECKS.includes(v.proves), `${v.id} proves ${v.proves}`);
      assert.deepEqual(Object.keys(v.expect).sort(), ['claims', 'failure', 'verdict'], v.id);
      const inputKeys = ['didDocument', 'expected', 'now', 'presentation', 'statusList'].filter(
        (k) => k !== 'statusList' || v.id !== 'status-list-withheld',
      );
      assert.deepEqual(Object.keys(v.input).sort(), inputKeys, v.id);
      assert.equal(typeof v.input.presentation, 'string', v.id);
      assert.ok(v.input.didDocument && typeof v.input.didDocument === 'object', v.id);
      if (v.id !== 'status-list-withheld') assert.equal(typeof v.input.statusList, 'string', v.id);
      assert.deepEqual(Object.keys(v.input.expected).sort(), ['aud', 'claims', 'nonce', 'vct'], v.id);
      assert.equal(v.input.now, deps.now, v.id);
      // A runner hands the input over as JSON: it must read back as a verifier input.
      assert.equal(typeof readVerificationInput(JSON.parse(JSON.stringify(v.input))), 'object', v.id);
    }
  });

  it('expects a failure code of the proved check for every non-accept vector, and claims only for valid', () => {
    for (const v of set.vectors) {
      if (v.id === 'valid') {
        assert.equal(v.proves, 'all');
        assert.equal(v.expect.failure, null);
        assert.ok(v.expect.claims && Object.keys(v.expect.claims).length > 0);
        for (const name of v.input.expected.claims) assert.ok(Object.hasOwn(v.expect.claims, name), name);
        continue;
      }
      assert.equal(v.expect.claims, null, v.id);
      assert.ok(v.expect.failure && v.expect.failure in FAILURE_CODES, v.id);
      assert.equal(FAILURE_CHECK[v.expect.failure], v.proves, `${v.id}: ${v.expect.failure} belongs to ${v.proves}`);
    }
    assert.equal(byId('status-list-withheld').proves, 'revocation');
    assert.equal(byId('status-list-withheld').expect.failure, 'status_unavailable');
  });

  it('digests the JCS bytes of the vectors, and the body carries them byte for byte', () => {
    const jcs = canonicalJson(set.vectors);
    assert.equal(set.digest, `sha256:${createHash('sha256').update(jcs, 'utf8').digest('hex')}`);
    assert.ok(body.includes(`"vectors":${jcs}`), 'the body holds the digested bytes');
    // The bytes a consumer cuts out of the body hash to the digest.
    const start = body.indexOf('"vectors":') + '"vectors":'.length;
    assert.ok(body.endsWith('}'));
    const cut = body.slice(start, -1);
    assert.equal(`sha256:${createHash('sha256').update(cut, 'utf8').digest('hex')}`, set.digest);
    const parsed = JSON.parse(body) as ConformanceSet;
    assert.deepEqual(parsed, JSON.parse(JSON.stringify(set)));
    assert.deepEqual(parsed.vectors, set.vectors);
    assert.equal(canonicalJson(parsed), body, 'the body is in canonical form');
  });

  it('is fresh on every mint: other keys, nonces, presentations and digest', () => {
    const again = mintConformanceSet(freshDeps()).set;
    assert.notEqual(again.digest, set.digest);
    const keyOf = (s: ConformanceSet) =>
      ((s.vectors.find((v) => v.id === 'valid')?.input.didDocument as DidDocument).verificationMethod[0]?.publicKeyJwk as JWK).x;
    assert.notEqual(keyOf(again), keyOf(set));
    const validOf = (s: ConformanceSet) => s.vectors.find((v) => v.id === 'valid') as ConformanceVector;
    assert.notEqual(validOf(again).input.expected.nonce, validOf(set).input.expected.nonce);
    assert.notEqual(validOf(again).input.presentation, validOf(set).input.presentation);
    assert.deepEqual(
      again.vectors.map((v) => [v.id, v.expect.verdict, v.expect.failure]),
      set.vectors.map((v) => [v.id, v.expect.verdict, v.expect.failure]),
      'the same vectors and expectations',
    );
  });
});

describe('the reference verifier against the set', () => {
  it('meets level 2 on every vector, read back from the body as a consumer would', () => {
    const parsed = JSON.parse(body) as ConformanceSet;
    for (const v of parsed.vectors) {
      const input = readVerificationInput(v.input);
      assert.ok(typeof input === 'object', `${v.id}: ${String(input)}`);
      const answer = answerOf(verifyPresentation(input));
      assert.equal(judgeAnswer(v, answer, 2), undefined, `${v.id}: ${JSON.stringify(answer)}`);
    }
  });

  it('has exactly one failed check on every reject vector: the one the vector proves', () => {
    for (const v of set.vectors.filter((x) => x.expect.verdict === 'reject')) {
      const r = verifyPresentation(v.input);
      const failed = r.ledger.filter((e) => e.status === 'failed');
      assert.deepEqual(
        failed.map((e) => [e.check, e.failure]),
        [[v.proves, v.expect.failure]],
        `${v.id}: ${JSON.stringify(r.ledger)}`,
      );
    }
  });

  it('passes every check on valid, and only leaves revocation unperformed on status-list-withheld', () => {
    assert.ok(verifyPresentation(byId('valid').input).ledger.every((e) => e.status === 'passed'));
    const withheld = verifyPresentation(byId('status-list-withheld').input).ledger;
    assert.deepEqual(
      withheld.filter((e) => e.status !== 'passed'),
      [{ check: 'revocation', status: 'not_performed', failure: 'status_unavailable', detail: withheld[9]?.detail }],
    );
  });

  it('every check is proved by at least one vector', () => {
    for (const check of CHECKS)
      assert.ok(
        set.vectors.some((v) => v.proves === check),
        check,
      );
  });

  for (const check of CHECKS) {
    it(`a verifier that skips ${check} fails (level 1) exactly the vectors proving ${check}`, () => {
      const verify = skipping(check);
      const failing = set.vectors.filter((v) => judgeAnswer(v, verify(v.input), 1) !== undefined).map((v) => v.id);
      const proving = set.vectors.filter((v) => v.proves === check).map((v) => v.id);
      assert.ok(proving.length > 0);
      assert.deepEqual(failing, proving);
    });
  }
});

describe('interop: @sd-jwt/sd-jwt-vc 0.19.0 verifies the vectors independently', () => {
  /** The issuer key named by the presentation's kid, looked up in the vector's DID document. */
  function issuerKey(v: ConformanceVector): JWK {
    const kid = decodeProtectedHeader(v.input.presentation.slice(0, v.input.presentation.indexOf('~'))).kid;
    const doc = v.input.didDocument as DidDocument;
    assert.ok(doc.assertionMethod.includes(String(kid)), `kid ${kid} is an assertion method`);
    const method = doc.verificationMethod.find((m) => m.id === kid);
    assert.ok(method, `kid ${kid} is in the document`);
    return method.publicKeyJwk;
  }

  /** With `keyBinding` false, the library checks everything but the KB-JWT. */
  async function libraryVerify(v: ConformanceVector, keyBinding = true) {
    const verifier = await ES256.getVerifier(issuerKey(v));
    const fetched: string[] = [];
    const sdJwtVc = new SDJwtVcInstance({
      hasher: digest,
      verifier,
      statusVerifier: verifier,
      statusListFetcher: async (uri) => {
        fetched.push(uri);
        assert.ok(v.input.statusList, 'the vector carries its list');
        return v.input.statusList;
      },
      kbVerifier: async (data, signature, payload) => {
        const jwk = (payload.cnf as { jwk: JWK } | undefined)?.jwk;
        assert.ok(jwk, 'the credential carries cnf.jwk');
        return (await ES256.getVerifier(jwk))(data, signature);
      },
    });
    const result = await sdJwtVc.verify(v.input.presentation, {
      ...(keyBinding ? { keyBindingNonce: v.input.expected.nonce } : {}),
      currentDate: v.input.now,
      requiredClaimKeys: [...v.input.expected.claims],
    });
    return { result, fetched };
  }

  it('the valid vector: issuer signature, disclosures, key binding (aud, nonce), status and claims', async () => {
    const v = byId('valid');
    const { result, fetched } = await libraryVerify(v);
    assert.ok(result.kb, 'the key binding was verified');
    assert.equal(result.kb.payload.aud, v.input.expected.aud);
    assert.equal(result.kb.payload.nonce, v.input.expected.nonce);
    assert.equal(result.header?.typ, 'dc+sd-jwt');
    assert.equal(result.header?.alg, 'ES256');
    const { iss, iat, vct, cnf, status, ...claims } = result.payload;
    assert.equal(vct, v.input.expected.vct);
    assert.equal(iss, (v.input.didDocument as DidDocument).id);
    assert.ok(typeof iat === 'number' && iat <= v.input.now);
    assert.ok(cnf && status);
    assert.deepEqual(fetched, [status.status_list.uri]);
    assert.deepEqual(claims, v.expect.claims);
  });

  it('the library rejects tampered-issuer-signature on the issuer signature', async () => {
    await assert.rejects(libraryVerify(byId('tampered-issuer-signature'), false), /Invalid JWT Signature/);
  });

  it('the library rejects stolen-credential on the key binding alone', async () => {
    const v = byId('stolen-credential');
    await assert.rejects(libraryVerify(v), /Invalid JWT Signature/);
    // Everything but the KB-JWT is sound: the credential itself verifies.
    const { result } = await libraryVerify(v, false);
    assert.equal(result.kb, undefined);
  });

  it('the library rejects revoked on its status', async () => {
    await assert.rejects(libraryVerify(byId('revoked')), /Status is not valid/);
  });
});
