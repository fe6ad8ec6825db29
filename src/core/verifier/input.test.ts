/**
 * The vector `input` shape (input.ts): each field's rule refuses its own wrong shapes with its own
 * sentence, and a sound input comes back as it was given.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readVerificationInput } from './input.ts';

const sound = () => ({
  presentation: 'a.b.c~',
  didDocument: { id: 'did:web:issuer.example' },
  statusList: 'x.y.z',
  expected: { aud: 'aud', nonce: 'n', vct: 'https://vct.example', claims: ['given_name'] },
  now: 1_900_000_000,
});

describe('the verifier input shape', () => {
  test('a sound input comes back whole; without a status list it has none', () => {
    assert.deepEqual(readVerificationInput(sound()), sound());
    const { statusList: _, ...withoutList } = sound();
    const read = readVerificationInput(withoutList);
    assert.deepEqual(read, withoutList);
    assert.equal(typeof read === 'object' && 'statusList' in read, false);
    // The presentation and the document are the verifier's to judge, whatever they are.
    assert.equal(typeof readVerificationInput({ ...sound(), presentation: 7, didDocument: null }), 'object');
    assert.deepEqual(readVerificationInput({ ...sound(), expected: { ...sound().expected, claims: [] } }), {
      ...sound(),
      expected: { ...sound().expected, claims: [] },
    });
    // Schema /2: trust anchors come back as given.
    assert.deepEqual(readVerificationInput({ ...sound(), trustAnchors: ['MIIB', 'MIIC+/=='] }), {
      ...sound(),
      trustAnchors: ['MIIB', 'MIIC+/=='],
    });
  });

  const refusals: Array<[string, unknown, RegExp]> = [
    ['not an object', 'input', /input is not an object/],
    ['null', null, /input is not an object/],
    ['a status list that is not a string', { ...sound(), statusList: 7 }, /statusList is not a string/],
    ['a status list that is null', { ...sound(), statusList: null }, /statusList is not a string/],
    ['now missing', { ...sound(), now: undefined }, /input.now is not a number/],
    ['now a string', { ...sound(), now: '1900000000' }, /input.now is not a number/],
    ['now infinite', { ...sound(), now: Number.POSITIVE_INFINITY }, /input.now is not a number/],
    ['now not a number', { ...sound(), now: Number.NaN }, /input.now is not a number/],
    ['expected missing', { ...sound(), expected: undefined }, /input.expected is not an object/],
    ['expected an array', { ...sound(), expected: [] }, /input.expected is not an object/],
    ['aud not a string', { ...sound(), expected: { ...sound().expected, aud: 1 } }, /needs string aud, nonce and vct/],
    ['nonce not a string', { ...sound(), expected: { ...sound().expected, nonce: null } }, /needs string aud, nonce and vct/],
    ['vct not a string', { ...sound(), expected: { ...sound().expected, vct: {} } }, /needs string aud, nonce and vct/],
    ['claims missing', { ...sound(), expected: { ...sound().expected, claims: undefined } }, /claims is not an array of strings/],
    ['claims a string', { ...sound(), expected: { ...sound().expected, claims: 'given_name' } }, /claims is not an array/],
    ['a claim not a string', { ...sound(), expected: { ...sound().expected, claims: ['a', 1] } }, /claims is not an array/],
    ['trust anchors not a list', { ...sound(), trustAnchors: 'MIIB' }, /trustAnchors is not a list of 1 to 10/],
    ['an empty list of trust anchors', { ...sound(), trustAnchors: [] }, /trustAnchors is not a list/],
    ['eleven trust anchors', { ...sound(), trustAnchors: Array(11).fill('MIIB') }, /trustAnchors is not a list/],
    ['a trust anchor that is not base64', { ...sound(), trustAnchors: ['-----BEGIN'] }, /trustAnchors is not a list/],
    ['a trust anchor too long', { ...sound(), trustAnchors: ['A'.repeat(16_385)] }, /trustAnchors is not a list/],
  ];
  for (const [name, value, message] of refusals) {
    test(`refused: ${name}`, () => {
      const read = readVerificationInput(value);
      assert.equal(typeof read, 'string');
      assert.match(read as string, message);
    });
  }
});
