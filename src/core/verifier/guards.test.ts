/**
 * Guards of the reference verifier that mutation testing (npm run mutation -- verifier) found
 * untested: each test here fails when the one guard it names is removed or loosened. The boundary
 * tests pair a case just inside with one just outside, so that a moved comparison fails one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deflateSync } from 'node:zlib';
import {
  assertAccept,
  assertFailure,
  CLAIMS,
  credential,
  credentialPayload,
  disclosure,
  disclosuresOf,
  es256By,
  handCredential,
  handStatusList,
  NOW,
  newWorld,
  present,
  presentAll,
  signCredential,
  verifyIn,
} from '../../../test/helpers/verifier.ts';
import { compressStatusList, packStatuses } from '../status-list/codec.ts';
import { CLOCK_SKEW_S } from './verify-presentation.ts';

const verify = verifyIn;

describe('the status list', () => {
  const w = newWorld();
  const presentation = presentAll(w, credential(w));

  it('a compression bomb (more than 16 MiB once inflated) is refused; exactly 16 MiB is read', () => {
    const bomb = deflateSync(new Uint8Array(16 * 1024 * 1024 + 1)).toString('base64url');
    assertFailure(verify(w, presentation, { statusList: handStatusList(w, { lst: bomb }) }), 'status_list_invalid');
    const limit = deflateSync(new Uint8Array(16 * 1024 * 1024)).toString('base64url');
    assertAccept(verify(w, presentation, { statusList: handStatusList(w, { lst: limit }) }));
  });

  it('bits must be 1, 2, 4 or 8 even when the index lies inside the list', () => {
    for (const bits of [0, 3, 5, 16, '1']) {
      const lst = compressStatusList(packStatuses(1024, 8, []));
      const r = verify(w, presentation, { statusList: handStatusList(w, { lst, payload: { status_list: { bits, lst } } }) });
      assertFailure(r, 'status_list_invalid');
    }
  });

  it('each of 1, 2, 4 and 8 bits reads the entry at its width', () => {
    for (const bits of [1, 2, 4, 8] as const) {
      const value = (1 << bits) - 1;
      const set = handStatusList(w, { bits, entries: [[w.idx, value]] });
      assertFailure(verify(w, presentation, { statusList: set }), 'credential_revoked');
      const neighbours = handStatusList(w, {
        bits,
        entries: [
          [w.idx - 1, value],
          [w.idx + 1, value],
        ],
      });
      assertAccept(verify(w, presentation, { statusList: neighbours }));
    }
  });

  it('a list without exp, and a list without iss, are read', () => {
    assertAccept(verify(w, presentation, { statusList: handStatusList(w, { payload: { exp: undefined } }) }));
    assertAccept(verify(w, presentation, { statusList: handStatusList(w, { payload: { iss: undefined } }) }));
  });

  it('a status claim that is not {idx, uri} is invalid, even with no list to read', () => {
    for (const idx of [-1, '5', 1.5, null]) {
      const c = credential(w, { status: { uri: 'https://issuer.verifier-test.example/status/1', idx: idx as number } });
      assertFailure(verify(w, presentAll(w, c), { statusList: null }), 'status_list_invalid');
    }
  });

  it('a status_list claim whose lst is not a base64url string, or not zlib, is refused', () => {
    for (const lst of [5, undefined, 'not base64url!', 'AAAA']) {
      const r = verify(w, presentation, { statusList: handStatusList(w, { payload: { status_list: { bits: 1, lst } } }) });
      assertFailure(r, 'status_list_invalid');
    }
    assertFailure(
      verify(w, presentation, { statusList: handStatusList(w, { payload: { status_list: 'x' } }) }),
      'status_list_invalid',
    );
  });

  it('a list whose iss is another issuer is refused', () => {
    const r = verify(w, presentation, { statusList: handStatusList(w, { payload: { iss: 'did:web:other.example' } }) });
    assertFailure(r, 'status_list_invalid');
  });

  it('a list whose exp or nbf is not a number is refused', () => {
    assertFailure(
      verify(w, presentation, { statusList: handStatusList(w, { payload: { exp: `${NOW + 3600}` } }) }),
      'status_list_expired',
    );
    assertFailure(
      verify(w, presentation, { statusList: handStatusList(w, { payload: { nbf: `${NOW}` } }) }),
      'status_list_invalid',
    );
  });

  it('index 0 is an entry like any other', () => {
    const first = { ...w, idx: 0 };
    const held = presentAll(first, credential(first));
    assertAccept(verify(first, held, { statusList: handStatusList(first, { entries: [[1, 1]] }) }));
    assertFailure(verify(first, held, { statusList: handStatusList(first, { entries: [[0, 1]] }) }), 'credential_revoked');
    const negative = { ...w, idx: -1 };
    assertFailure(
      verify(negative, presentAll(negative, credential(negative)), { statusList: handStatusList(negative) }),
      'status_list_invalid',
    );
  });

  it('an index just past the end of the list is refused; the last entry is read', () => {
    const last = { ...w, idx: 1023 };
    assertAccept(verify(last, presentAll(last, credential(last)), { statusList: handStatusList(last) }));
    const past = { ...w, idx: 1024 };
    assertFailure(verify(past, presentAll(past, credential(past)), { statusList: handStatusList(past) }), 'status_list_invalid');
  });

  it(`a list nbf is honoured up to CLOCK_SKEW_S (${CLOCK_SKEW_S}s) before it, and not a second earlier`, () => {
    assertAccept(verify(w, presentation, { statusList: handStatusList(w, { payload: { nbf: NOW + CLOCK_SKEW_S } }) }));
    assertFailure(
      verify(w, presentation, { statusList: handStatusList(w, { payload: { nbf: NOW + CLOCK_SKEW_S + 1 } }) }),
      'status_list_invalid',
    );
    assertAccept(verify(w, presentation, { statusList: handStatusList(w, { payload: { nbf: NOW - 60 } }) }));
  });

  it('a list signed by a key that is not an assertion key, or not signed as ES256, is refused', () => {
    const stranger = handStatusList(w, { signer: es256By(w.stranger) });
    assertFailure(verify(w, presentation, { statusList: stranger }), 'status_list_invalid');
    assertFailure(
      verify(w, presentation, { statusList: handStatusList(w, { header: { alg: 'ES384' } }) }),
      'status_list_invalid',
    );
    assertFailure(verify(w, presentation, { statusList: handStatusList(w, { header: { typ: 'JWT' } }) }), 'status_list_invalid');
  });
});

describe('the credential', () => {
  const w = newWorld();
  const withPayload = (over: Record<string, unknown>) => {
    const hand = handCredential(w, over);
    return verify(w, present(w, hand.jwt, hand.disclosures));
  };

  it(`a credential nbf is honoured up to CLOCK_SKEW_S before it, and a non-number nbf or exp is refused`, () => {
    assertAccept(withPayload({ nbf: NOW - 3600 }));
    assertAccept(withPayload({ nbf: NOW + CLOCK_SKEW_S }));
    assertFailure(withPayload({ nbf: NOW + CLOCK_SKEW_S + 1 }), 'credential_outside_validity');
    assertFailure(withPayload({ nbf: `${NOW - 3600}` }), 'credential_outside_validity');
    assertFailure(withPayload({ exp: `${NOW + 3600}` }), 'credential_outside_validity');
  });

  it("a DID document whose id is not the issuer is refused, though it lists the issuer's key id", () => {
    const doc = structuredClone(w.didDocument) as unknown as Record<string, unknown>;
    doc.id = 'did:web:elsewhere.verifier-test.example';
    // Every reference stays absolute under the issuer's DID: only the document's own id differs.
    const r = verify(w, presentAll(w, credential(w)), { didDocument: doc, statusList: null });
    assert.equal(r.ledger.find((e) => e.check === 'issuer_key')?.failure, 'did_document_not_bound');
    assert.equal(r.verdict, 'reject');
  });

  it('a nested _sd or "..." deeper than one level is refused, in the payload and in a disclosure', () => {
    // A payload refused before its disclosures are read discloses no claim: the required ones fail too.
    const refused = ['required_claims'] as const;
    const deepSd = { address: { locality: { _sd: ['x'] } } };
    assertFailure(withPayload(deepSd), 'unsupported_disclosure_structure', refused);
    const deepArray = { memberships: [[{ '...': 'x' }]] };
    assertFailure(withPayload(deepArray), 'unsupported_disclosure_structure', refused);
    const deepInObject = { memberships: { list: [{ club: { '...': 'x' } }] } };
    assertAccept(withPayload(deepInObject));
    const inArrayObject = { memberships: { list: [{ '...': 'x' }] } };
    assertFailure(withPayload(inArrayObject), 'unsupported_disclosure_structure', refused);

    for (const value of [{ street: { _sd: ['x'] } }, [[{ '...': 'x' }]], { list: [{ '...': 'y' }] }]) {
      const good = Object.entries(CLAIMS).map(([name, v]) => disclosure(name, v));
      const nested = disclosure('address', value);
      const jwt = signCredential(w, credentialPayload(w, [...good, nested]));
      assertFailure(verify(w, present(w, jwt, [...good, nested])), 'unsupported_disclosure_structure');
    }
  });

  it('an ordinary array claim, plain or disclosed, is a claim like another', () => {
    const plain = withPayload({ roles: ['member', 'board'], tags: [['a', 'b']] });
    assertAccept(plain);
    assert.deepEqual(plain.claims?.roles, ['member', 'board']);
    const good = Object.entries(CLAIMS).map(([name, v]) => disclosure(name, v));
    const roles = disclosure('roles', [{ name: 'member' }, 'board']);
    const jwt = signCredential(w, credentialPayload(w, [...good, roles]));
    const r = verify(w, present(w, jwt, [...good, roles]));
    assertAccept(r);
    assert.deepEqual(r.claims?.roles, [{ name: 'member' }, 'board']);
  });

  it('iat may be disclosed selectively (every other registered claim may not)', () => {
    const good = Object.entries(CLAIMS).map(([name, v]) => disclosure(name, v));
    const iat = disclosure('iat', NOW - 3600);
    const jwt = signCredential(w, credentialPayload(w, [...good, iat], { iat: undefined }));
    assertAccept(verify(w, present(w, jwt, [...good, iat])));
    for (const name of ['exp', 'nbf', 'cnf', 'vct', 'status', 'iss', '_sd', '_sd_alg']) {
      const reserved = disclosure(name, 1);
      const bad = signCredential(w, credentialPayload(w, [...good, reserved]));
      assertFailure(verify(w, present(w, bad, [...good, reserved])), 'malformed_disclosure');
    }
  });

  it('_sd must be an array of digest strings', () => {
    const refused = ['required_claims'] as const;
    for (const sd of ['digest', [7], [null], [{ '...': 'x' }]]) {
      assertFailure(withPayload({ _sd: sd }), 'unsupported_disclosure_structure', refused);
    }
  });

  it('a credential with digests of which none is presented passes the disclosure check', () => {
    const hand = handCredential(w);
    const r = verify(w, present(w, hand.jwt, []), { expected: { claims: [] } });
    assertAccept(r);
    assert.equal(r.ledger.find((e) => e.check === 'disclosures')?.status, 'passed');
    const plain = signCredential(w, credentialPayload(w, [], { _sd: undefined, given_name: 'Ada' }));
    const none = verify(w, present(w, plain, []), { expected: { claims: [] } });
    assertAccept(none);
    assert.equal(none.ledger.find((e) => e.check === 'disclosures')?.status, 'not_applicable');
  });

  it('array claims holding null, numbers and strings are claims like others', () => {
    assertAccept(withPayload({ list: [null, 1, 'x', [null]] }));
  });

  it('a passed check carries no failure or detail; a failed one carries both', () => {
    const r = verify(w, presentAll(w, credential(w)));
    for (const entry of r.ledger) assert.deepEqual(Object.keys(entry).sort(), ['check', 'status'], entry.check);
    const failed = verify(w, presentAll(w, credential(w), { nonce: 'other' }));
    const freshness = failed.ledger.find((e) => e.check === 'freshness');
    assert.deepEqual(Object.keys(freshness ?? {}).sort(), ['check', 'detail', 'failure', 'status']);
  });

  it('a presentation with a character outside printable ASCII is malformed, wherever it stands', () => {
    const sound = presentAll(w, credential(w));
    assertFailure(verify(w, `${sound.slice(0, 20)}é${sound.slice(21)}`), 'malformed_presentation');
    assertFailure(verify(w, `${sound} `), 'malformed_presentation');
    // In a disclosure, which is read only after the structure: still the structure that fails.
    const c = credential(w);
    for (const odd of ['abécd', 'ab cd', 'é', '\u00a0x']) {
      assertFailure(verify(w, present(w, c.jwt, [...disclosuresOf(c), odd])), 'malformed_presentation');
    }
  });

  it('an issuer key that is not P-256 is no issuer key', () => {
    const doc = structuredClone(w.didDocument);
    const method = doc.verificationMethod[0];
    assert.ok(method);
    method.publicKeyJwk = { kty: 'EC', crv: 'P-384', x: 'AAAA', y: 'AAAA' };
    const r = verify(w, presentAll(w, credential(w)), { didDocument: doc, statusList: null });
    assert.equal(r.ledger.find((e) => e.check === 'issuer_key')?.failure, 'issuer_key_unknown');
  });
});
