import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { divergence, sourceDigest } from './source-digest.ts';

test('the source digest is sha256 over sha256sum-style lines sorted by path', () => {
  const files = { 'src/b.ts': 'b'.repeat(64), 'package.json': 'a'.repeat(64) };
  const lines = `${'a'.repeat(64)}  package.json\n${'b'.repeat(64)}  src/b.ts\n`;
  assert.equal(sourceDigest(files), `sha256:${createHash('sha256').update(lines).digest('hex')}`);
  assert.equal(
    sourceDigest({ 'package.json': 'a'.repeat(64), 'src/b.ts': 'b'.repeat(64) }),
    sourceDigest(files),
    'order-independent',
  );
  assert.notEqual(sourceDigest({ ...files, 'src/b.ts': 'c'.repeat(64) }), sourceDigest(files));
});

test('divergence counts missing, changed and extra files', () => {
  assert.deepEqual(divergence({ a: '1', b: '2', c: '3' }, { a: '1', b: 'X', d: '4', e: '5' }), {
    missing: 1,
    changed: 1,
    extra: 2,
  });
  assert.deepEqual(divergence({ a: '1' }, { a: '1' }), { missing: 0, changed: 0, extra: 0 });
});
