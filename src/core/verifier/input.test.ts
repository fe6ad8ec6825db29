/**
 * The vector `input` shape (input.ts): each field's rule refuses its own wrong shapes with its own
 * sentence, and a sound input comes back as it was given. An mdoc input (schema /3) is read by its
 * `format`, its session transcript decoded to bytes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readMdocVerificationInput, readVerificationInput, readVerifierInput } from './input.ts';

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

const NS = 'example.conformance.membership.1';
const soundMdoc = () => ({
  format: 'mso_mdoc',
  presentation: 'o2d2ZXJzaW9u',
  didDocument: { id: 'did:web:issuer.example' },
  statusList: 'x.y.z',
  trustAnchors: ['MIIB'],
  expected: { doctype: 'example.conformance.membership', claims: [[NS, 'given_name']], sessionTranscript: '2BhYIIP29g' },
  handover: { clientId: 'c', nonce: 'n', responseUri: 'https://verifier.example/r', encryptionKeyThumbprint: null },
  now: 1_900_000_000,
});

describe('the mdoc input shape', () => {
  test('a sound mdoc input comes back with its transcript as bytes; the handover is not read', () => {
    const read = readVerifierInput(soundMdoc());
    assert.ok(typeof read === 'object' && read.format === 'mso_mdoc');
    const { handover: _, format: __, ...rest } = soundMdoc();
    assert.deepEqual(read.input, {
      ...rest,
      expected: { ...rest.expected, sessionTranscript: new Uint8Array(Buffer.from('2BhYIIP29g', 'base64url')) },
    });
    const { statusList: ___, ...withheld } = soundMdoc();
    const without = readMdocVerificationInput(withheld);
    assert.equal(typeof without === 'object' && 'statusList' in without, false);
    assert.equal(
      typeof readMdocVerificationInput({ ...soundMdoc(), expected: { ...soundMdoc().expected, claims: [] } }),
      'object',
    );
  });

  test('an SD-JWT VC input is read as one, with or without its format; another format is refused', () => {
    assert.deepEqual(readVerifierInput(sound()), { format: 'dc+sd-jwt', input: sound() });
    assert.deepEqual(readVerifierInput({ ...sound(), format: 'dc+sd-jwt' }), { format: 'dc+sd-jwt', input: sound() });
    assert.match(String(readVerifierInput({ ...sound(), format: 'jwt_vc_json' })), /input.format is neither/);
    assert.match(String(readVerifierInput(null)), /input is not an object/);
    // Without its format an mdoc input is read as an SD-JWT VC input, and is not one.
    const { format: _, ...unlabelled } = soundMdoc();
    assert.match(String(readVerifierInput(unlabelled)), /input.expected needs string aud, nonce and vct/);
    assert.match(String(readMdocVerificationInput(unlabelled)), /input.format is not mso_mdoc/);
    // The SD-JWT reader alone does not take an mdoc input for one.
    assert.match(String(readVerificationInput(soundMdoc())), /input.format is not dc\+sd-jwt/);
  });

  const expected = soundMdoc().expected;
  const refusals: Array<[string, unknown, RegExp]> = [
    ['a status list that is not a string', { ...soundMdoc(), statusList: 7 }, /statusList is not a string/],
    ['no trust anchors', { ...soundMdoc(), trustAnchors: undefined }, /trustAnchors is not a list .*needs them/],
    ['eleven trust anchors', { ...soundMdoc(), trustAnchors: Array(11).fill('MIIB') }, /trustAnchors is not a list/],
    ['a trust anchor too long', { ...soundMdoc(), trustAnchors: ['A'.repeat(16_385)] }, /trustAnchors is not a list/],
    ['now a string', { ...soundMdoc(), now: '1900000000' }, /input.now is not a number/],
    ['expected missing', { ...soundMdoc(), expected: undefined }, /input.expected is not an object/],
    ['a doctype that is not a string', { ...soundMdoc(), expected: { ...expected, doctype: 1 } }, /doctype is not a string/],
    [
      'claims as names',
      { ...soundMdoc(), expected: { ...expected, claims: ['given_name'] } },
      /claims is not a list of at most 256/,
    ],
    ['a claim of three parts', { ...soundMdoc(), expected: { ...expected, claims: [[NS, 'a', 'b']] } }, /claims is not a list/],
    ['a claim not of strings', { ...soundMdoc(), expected: { ...expected, claims: [[NS, 1]] } }, /claims is not a list/],
    ['257 claims', { ...soundMdoc(), expected: { ...expected, claims: Array(257).fill([NS, 'a']) } }, /claims is not a list/],
    [
      'no transcript',
      { ...soundMdoc(), expected: { ...expected, sessionTranscript: undefined } },
      /sessionTranscript is not 1 to 4096 bytes/,
    ],
    ['an empty transcript', { ...soundMdoc(), expected: { ...expected, sessionTranscript: '' } }, /sessionTranscript is not/],
    [
      'a transcript in base64',
      { ...soundMdoc(), expected: { ...expected, sessionTranscript: 'a+b/' } },
      /sessionTranscript is not/,
    ],
    [
      'a transcript too long',
      { ...soundMdoc(), expected: { ...expected, sessionTranscript: 'A'.repeat(5464) } },
      /sessionTranscript is not/,
    ],
  ];
  for (const [name, value, message] of refusals) {
    test(`refused: ${name}`, () => {
      const read = readVerifierInput(value);
      assert.equal(typeof read, 'string');
      assert.match(read as string, message);
    });
  }

  test('a transcript of exactly 4096 bytes is read', () => {
    const transcript = Buffer.alloc(4096, 7).toString('base64url');
    const read = readMdocVerificationInput({ ...soundMdoc(), expected: { ...expected, sessionTranscript: transcript } });
    assert.equal(typeof read === 'object' && read.expected.sessionTranscript.length, 4096);
  });
});
