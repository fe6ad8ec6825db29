import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalJson } from './canonical-json.ts';

test('members are sorted by UTF-16 code units, integer-like keys included (RFC 8785, 3.2.3)', () => {
  // The keys of the RFC's sorting example, given in its input order.
  const input = {
    '\u20ac': 'Euro Sign',
    '\r': 'Carriage Return',
    '\ufb33': 'Hebrew Letter Dalet With Dagesh',
    '1': 'One',
    '\ud83d\ude00': 'Emoji: Grinning Face',
    '\u0080': 'Control',
    '\u00f6': 'Latin Small Letter O With Diaeresis',
  };
  // The text is read back member by member: a parsed object would list "1" first again.
  const keys = [...canonicalJson(input).matchAll(/"((?:[^"\\]|\\.)*)":/g)].map((m) => JSON.parse(`"${m[1]}"`));
  assert.deepEqual(keys, ['\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33']);
  assert.equal(canonicalJson({ b: 1, '10': 2, a: 3, '2': 4 }), '{"10":2,"2":4,"a":3,"b":1}');
});

test('nested values, arrays and literals are written without whitespace', () => {
  assert.equal(
    canonicalJson({ z: [3, { y: null, x: true }], a: 'é', n: 1e21, m: -0, f: 0.1 }),
    '{"a":"é","f":0.1,"m":0,"n":1e+21,"z":[3,{"x":true,"y":null}]}',
  );
  assert.equal(canonicalJson([]), '[]');
  assert.equal(canonicalJson({}), '{}');
  assert.equal(canonicalJson('a"b'), '"a\\"b"');
});

test('undefined members are left out, as JSON.stringify does', () => {
  assert.equal(canonicalJson({ a: undefined, b: 1 }), '{"b":1}');
  assert.equal(canonicalJson([undefined]), '[null]');
});
