/**
 * Where a long value of an app page may wrap (docs/admin-app.md, "Tables"): after the separators
 * of a long word and nowhere else, so a table never needs to break a word anywhere.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { breakable, renderValue, wrapPoints } from './render-json.ts';

describe('the wrap points of a long value', () => {
  test('a DID wraps after its separators and its percent-escapes, never inside an IP address or a name', () => {
    assert.deepEqual(wrapPoints('did:web:127.0.0.1%3A8443:t:riverside-library'), [
      'did:',
      'web:',
      '127.0.0.1%3A',
      '8443:',
      't:',
      'riverside-library',
    ]);
    assert.deepEqual(wrapPoints('https://rail.example.test/a/b?x=1'), [
      'https://',
      'rail.',
      'example.',
      'test/',
      'a/',
      'b?',
      'x=',
      '1',
    ]);
  });

  test('a short word, and a date and time, are never broken', () => {
    assert.deepEqual(wrapPoints('did:web:example.com:t:x'), ['did:web:example.com:t:x']);
    assert.deepEqual(wrapPoints('2026-11-29T08:04:30.127Z'), ['2026-11-29T08:04:30.127Z']);
    assert.deepEqual(wrapPoints('2026-11-29T08:04:30.127+01:00'), ['2026-11-29T08:04:30.127+01:00']);
  });

  test('a run with no separator longer than 32 characters (a key) may wrap after 32', () => {
    const key = 'a'.repeat(40);
    assert.deepEqual(wrapPoints(key), ['a'.repeat(32), 'a'.repeat(8)]);
    // A hyphen is a break of the browser's own: the run starts again after it.
    assert.deepEqual(wrapPoints(`${'b'.repeat(20)}-${'c'.repeat(20)}`), [`${'b'.repeat(20)}-${'c'.repeat(20)}`]);
  });

  test('the text stays escaped, with a <wbr> between the parts of its long words only', () => {
    assert.equal(
      breakable('<b> did:web:127.0.0.1%3A8443:t:acme-rowing').toString(),
      '&lt;b&gt; did:<wbr>web:<wbr>127.0.0.1%3A<wbr>8443:<wbr>t:<wbr>acme-rowing',
    );
  });

  test('a table of records marks the cells of one word, and shows its DIDs breakable', () => {
    const page = renderValue(
      'orgs',
      [{ slug: 'acme-rowing', did: 'did:web:127.0.0.1%3A8443:t:acme-rowing', name: 'Acme Rowing' }],
      () => undefined,
    ).toString();
    assert.match(page, /<td class="token"><span class="value">did:<wbr>web:/);
    assert.match(page, /<td><span class="value">Acme Rowing<\/span><\/td>/);
  });
});
