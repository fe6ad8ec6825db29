/**
 * The reference verifier's ledger: ten checks in a fixed order, a verdict anyone can recompute from
 * it, claims only on accept, the holder key never among them, and the issuer key taken only from
 * the supplied DID document.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  AUD,
  assertAccept,
  assertFailure,
  CLAIMS,
  credential,
  credentialPayload,
  disclosuresOf,
  handCredential,
  handKeyBinding,
  ISSUER,
  inputOf,
  NOW,
  newWorld,
  present,
  presentAll,
  REQUIRED,
  show,
  signCredential,
  statusList,
} from '../../../test/helpers/verifier.ts';
import {
  CHECKS,
  type CheckName,
  type CheckStatus,
  deriveVerdict,
  FAILURE_CHECK,
  FAILURE_CODES,
  type FailureCode,
  type Ledger,
  type LedgerEntry,
  MDOC_FAILURE_CODES,
  type Verdict,
} from './ledger.ts';
import { type VerificationResult, verifyPresentation } from './verify-presentation.ts';

const w = newWorld();
const STATUSES: CheckStatus[] = ['passed', 'failed', 'not_applicable', 'not_performed'];

/** A code owned by each check, for synthetic failed entries. */
const codeOf = (check: CheckName): FailureCode =>
  (Object.keys(FAILURE_CHECK) as FailureCode[]).find((code) => FAILURE_CHECK[code] === check) as FailureCode;

const entry = (check: CheckName, status: CheckStatus): LedgerEntry =>
  status === 'failed' || status === 'not_performed' ? { check, status, failure: codeOf(check) } : { check, status };

/** The rule, restated independently of src. */
function expectedVerdict(ledger: Ledger): { verdict: Verdict; failure: FailureCode | null } {
  for (const e of ledger) if (e.status === 'failed') return { verdict: 'reject', failure: e.failure ?? null };
  for (const e of ledger) if (e.status === 'not_performed') return { verdict: 'indeterminate', failure: e.failure ?? null };
  return { verdict: 'accept', failure: null };
}

describe('deriveVerdict truth table', () => {
  const allPassed = (): Ledger => CHECKS.map((check) => entry(check, 'passed'));

  it('all passed is accept with no failure', () => {
    assert.deepEqual(deriveVerdict(allPassed()), { verdict: 'accept', failure: null });
  });
  it('passed and not_applicable only is accept', () => {
    const ledger = CHECKS.map((check, i) => entry(check, i % 2 === 0 ? 'not_applicable' : 'passed'));
    assert.deepEqual(deriveVerdict(ledger), { verdict: 'accept', failure: null });
    assert.deepEqual(deriveVerdict(CHECKS.map((check) => entry(check, 'not_applicable'))), { verdict: 'accept', failure: null });
  });
  it('any failed is reject with the first failed code in ledger order, even after a not_performed', () => {
    const ledger = allPassed();
    ledger[2] = { check: 'issuer_key', status: 'not_performed' };
    ledger[5] = { check: 'holder_binding', status: 'failed', failure: 'key_binding_invalid' };
    ledger[9] = { check: 'revocation', status: 'failed', failure: 'credential_revoked' };
    assert.deepEqual(deriveVerdict(ledger), { verdict: 'reject', failure: 'key_binding_invalid' });
  });
  it('not_performed without any failed is indeterminate with the first unperformed reason', () => {
    const ledger = allPassed();
    ledger[9] = { check: 'revocation', status: 'not_performed', failure: 'status_unavailable' };
    assert.deepEqual(deriveVerdict(ledger), { verdict: 'indeterminate', failure: 'status_unavailable' });
    ledger[6] = { check: 'audience', status: 'not_performed' };
    assert.deepEqual(deriveVerdict(ledger), { verdict: 'indeterminate', failure: null });
  });
  it('every ledger with one or two entries changed from passed follows the rule', () => {
    let count = 0;
    for (let i = 0; i < CHECKS.length; i++) {
      for (let j = i; j < CHECKS.length; j++) {
        for (const si of STATUSES) {
          for (const sj of STATUSES) {
            const ledger = allPassed();
            ledger[i] = entry(CHECKS[i] as CheckName, si);
            ledger[j] = entry(CHECKS[j] as CheckName, sj);
            assert.deepEqual(deriveVerdict(ledger), expectedVerdict(ledger), JSON.stringify(ledger));
            count++;
          }
        }
      }
    }
    assert.equal(count, 55 * 16);
  });
  it('is a function of the ledger alone: the order of the entries decides the reported code', () => {
    const a: LedgerEntry = { check: 'audience', status: 'failed', failure: 'audience_mismatch' };
    const b: LedgerEntry = { check: 'freshness', status: 'failed', failure: 'nonce_mismatch' };
    assert.equal(deriveVerdict([a, b]).failure, 'audience_mismatch');
    assert.equal(deriveVerdict([b, a]).failure, 'nonce_mismatch');
  });
});

describe('the ledger of every result', () => {
  const c = credential(w);
  const sound = presentAll(w, c);
  const cases: Array<[string, VerificationResult]> = [
    ['sound', verifyPresentation(inputOf(w, sound))],
    ['malformed', verifyPresentation(inputOf(w, 'not a presentation'))],
    ['no key binding', verifyPresentation(inputOf(w, `${[c.jwt, ...disclosuresOf(c)].join('~')}~`))],
    ['list withheld', verifyPresentation(inputOf(w, sound, { statusList: null }))],
    ['revoked', verifyPresentation(inputOf(w, sound, { statusList: statusList(w, { revoked: [w.idx] }) }))],
    ['stolen', verifyPresentation(inputOf(w, presentAll(w, c, { signer: w.stranger })))],
    ['wrong key and wrong audience', verifyPresentation(inputOf(w, sound, { expected: { aud: `${AUD}.x` }, didDocument: {} }))],
    ['no document at all', verifyPresentation(inputOf(w, sound, { didDocument: null }))],
  ];

  it('FAILURE_CHECK names a check for exactly the codes of FAILURE_CODES and MDOC_FAILURE_CODES, and every check owns a code', () => {
    assert.deepEqual(Object.keys(FAILURE_CHECK).sort(), Object.keys({ ...FAILURE_CODES, ...MDOC_FAILURE_CODES }).sort());
    assert.equal(CHECKS.length, 10);
    for (const check of CHECKS) assert.ok(Object.values(FAILURE_CHECK).includes(check), check);
  });

  for (const [name, r] of cases) {
    it(`${name}: exactly the ten checks, in CHECKS order, and a verdict recomputable from them`, () => {
      assert.deepEqual(
        r.ledger.map((e) => e.check),
        [...CHECKS],
      );
      for (const e of r.ledger) {
        assert.ok(STATUSES.includes(e.status), show(r));
        if (e.status === 'failed') {
          assert.ok(e.failure, `a failed ${e.check} names its code`);
        }
        if (e.failure) assert.equal(FAILURE_CHECK[e.failure], e.check, `${e.failure} belongs to ${e.check}`);
        if (e.status === 'passed' || e.status === 'not_applicable') assert.equal(e.failure, undefined, show(r));
      }
      const derived = deriveVerdict(r.ledger);
      assert.equal(r.verdict, derived.verdict);
      assert.equal(r.failure, derived.failure);
      assert.equal(r.claims === null, r.verdict !== 'accept', 'claims exactly when accepted');
    });
  }

  it('the verdicts of these cases are the expected ones', () => {
    assert.deepEqual(
      cases.map(([name, r]) => [name, r.verdict, r.failure]),
      [
        ['sound', 'accept', null],
        ['malformed', 'reject', 'malformed_presentation'],
        ['no key binding', 'reject', 'key_binding_missing'],
        ['list withheld', 'indeterminate', 'status_unavailable'],
        ['revoked', 'reject', 'credential_revoked'],
        ['stolen', 'reject', 'key_binding_invalid'],
        ['wrong key and wrong audience', 'reject', 'issuer_key_unknown'],
        ['no document at all', 'reject', 'issuer_key_unknown'],
      ],
    );
    const both = cases[6]?.[1] as VerificationResult;
    const failed = both.ledger.filter((e) => e.status === 'failed').map((e) => e.failure);
    assert.ok(failed.includes('audience_mismatch'), 'checks after a failure are still made and reported');
  });
});

describe('not applicable checks', () => {
  it('a credential without disclosures and no required claims: disclosures and required_claims are not_applicable, and it accepts', () => {
    const payload = credentialPayload(w, [], { _sd: undefined, _sd_alg: undefined, given_name: 'Ada' });
    const jwt = signCredential(w, payload);
    const r = verifyPresentation(inputOf(w, handKeyBinding(w, `${jwt}~`), { expected: { claims: [] } }));
    assertAccept(r);
    const statusOf = (check: CheckName) => r.ledger.find((e) => e.check === check)?.status;
    assert.equal(statusOf('disclosures'), 'not_applicable', show(r));
    assert.equal(statusOf('required_claims'), 'not_applicable', show(r));
    assert.deepEqual(
      r.ledger.filter((e) => e.status !== 'not_applicable').map((e) => e.status),
      Array(8).fill('passed'),
    );
    assert.deepEqual(r.claims, { given_name: 'Ada' }, 'plaintext subject claims are the claims');
  });
  it('the same credential with a required plaintext claim passes required_claims', () => {
    const payload = credentialPayload(w, [], { _sd: undefined, _sd_alg: undefined, given_name: 'Ada' });
    const r = verifyPresentation(
      inputOf(w, handKeyBinding(w, `${signCredential(w, payload)}~`), { expected: { claims: ['given_name'] } }),
    );
    assertAccept(r);
    assert.equal(r.ledger.find((e) => e.check === 'required_claims')?.status, 'passed');
  });
  it('a credential with only decoys left in _sd and nothing disclosed still accepts when nothing is required', () => {
    const r = verifyPresentation(inputOf(w, present(w, credential(w).jwt, []), { expected: { claims: [] } }));
    assertAccept(r);
    assert.deepEqual(r.claims, {});
  });
});

describe('claims', () => {
  const c = credential(w);
  it('on accept: exactly the disclosed subject claims, with their values', () => {
    const r = verifyPresentation(inputOf(w, present(w, c.jwt, disclosuresOf(c, REQUIRED))));
    assertAccept(r);
    assert.deepEqual(r.claims, { given_name: CLAIMS.given_name, member_number: CLAIMS.member_number });
    assert.deepEqual(r.keyBinding, { aud: AUD, nonce: w.nonce, iat: NOW - 5 });
  });
  it('never on reject or indeterminate, even when every claim was disclosed', () => {
    const sound = presentAll(w, c);
    const results = [
      verifyPresentation(inputOf(w, sound, { statusList: null })),
      verifyPresentation(inputOf(w, sound, { statusList: statusList(w, { revoked: [w.idx] }) })),
      verifyPresentation(inputOf(w, sound, { expected: { aud: 'someone else' } })),
    ];
    assert.deepEqual(
      results.map((r) => [r.verdict, r.claims]),
      [
        ['indeterminate', null],
        ['reject', null],
        ['reject', null],
      ],
    );
  });
  it('the holder key (cnf) and the envelope claims never appear in claims', () => {
    const r = verifyPresentation(inputOf(w, presentAll(w, c)));
    assertAccept(r);
    const claims = r.claims as Record<string, unknown>;
    for (const name of ['cnf', 'iss', 'iat', 'vct', 'status', '_sd', '_sd_alg']) assert.ok(!Object.hasOwn(claims, name), name);
    const text = JSON.stringify(claims);
    assert.ok(!text.includes(String(w.holder.publicJwk.x)) && !text.includes(String(w.holder.publicJwk.y)), text);
    assert.deepEqual(claims, CLAIMS);
  });
  it('a hand-made credential with plaintext subject claims beside the envelope returns them without the envelope', () => {
    const hand = handCredential(w, { sub: 'member-1815' });
    const r = verifyPresentation(inputOf(w, present(w, hand.jwt, hand.disclosures)));
    assertAccept(r);
    assert.deepEqual(r.claims, { ...CLAIMS, sub: 'member-1815' });
  });
});

describe('the issuer key comes only from the DID document', () => {
  it('a jwk header naming the real signing key does not make a key outside the document acceptable', () => {
    const c = credential(w, {
      signer: w.stranger,
      kid: `${ISSUER}#${w.stranger.kid}`,
      header: { jwk: w.stranger.publicJwk },
    });
    const r = verifyPresentation(inputOf(w, presentAll(w, c)));
    assertFailure(r, 'issuer_key_unknown');
    assert.equal(r.ledger.find((e) => e.check === 'issuer_signature')?.status, 'not_performed', show(r));
  });
  it("a jwk header does not replace the document's key named by kid", () => {
    const c = credential(w, {
      signer: w.stranger,
      kid: `${ISSUER}#${w.issuer.kid}`,
      header: { jwk: w.stranger.publicJwk },
    });
    assertFailure(verifyPresentation(inputOf(w, presentAll(w, c))), 'issuer_signature_invalid');
  });
  it('a jwk (or x5c) header naming another key is ignored when the document key signed', () => {
    const c = credential(w, { header: { jwk: w.stranger.publicJwk, x5c: ['MIIB-not-a-certificate'] } });
    const r = verifyPresentation(inputOf(w, presentAll(w, c)));
    assertAccept(r);
    assert.deepEqual(r.claims, CLAIMS);
  });
  it('a kid given as the bare thumbprint resolves in the document of the iss', () => {
    const c = credential(w, { kid: w.issuer.kid });
    assertAccept(verifyPresentation(inputOf(w, presentAll(w, c))));
  });
});

describe('the holder thumbprint', () => {
  it('is the RFC 7638 thumbprint of cnf.jwk on accept, and null on anything else', () => {
    const { crv, kty, x, y } = w.holder.publicJwk as Record<string, string>;
    const expected = createHash('sha256').update(JSON.stringify({ crv, kty, x, y }), 'utf8').digest('base64url');
    const accepted = verifyPresentation(inputOf(w, present(w, credential(w).jwt, []), { expected: { claims: [] } }));
    assertAccept(accepted);
    assert.equal(accepted.holder, expected);
    const refused = verifyPresentation(
      inputOf(w, present(w, credential(w).jwt, []), { expected: { claims: [], nonce: 'another-nonce' } }),
    );
    assert.equal(refused.verdict, 'reject');
    assert.equal(refused.holder, null);
  });
});
