import assert from 'node:assert/strict';
import { test } from 'node:test';
import { baseSlug, isDemoName, isDemoSlug, MAX_SLUG_LENGTH, SLUG_PATTERN, slugCandidate } from './slug.ts';

const pattern = new RegExp(SLUG_PATTERN);

test('slugs are lowercase ASCII words joined by single hyphens', () => {
  assert.equal(baseSlug('City of Ghent'), 'city-of-ghent');
  assert.equal(baseSlug('  Café   Zürich!! '), 'cafe-zurich');
  assert.equal(baseSlug('ÅLAND -- Öresund'), 'aland-oresund');
  assert.equal(baseSlug('東京'), 'tenant', 'a name with no ASCII letters or digits still gets a slug');
});

test('the platform and demonstration namespaces are never derived for an ordinary tenant', () => {
  assert.equal(baseSlug('root'), 'org-root');
  assert.equal(baseSlug('Demo'), 'org-demo');
  assert.equal(baseSlug('Demo Systems Ltd'), 'org-demo-systems-ltd');
  assert.equal(isDemoSlug(baseSlug('Demo Systems Ltd')), false);
  assert.equal(baseSlug('Democracy Now'), 'democracy-now');
});

test('slugs respect the length limit, also with a collision suffix', () => {
  const long = baseSlug(`${'a'.repeat(30)} ${'b'.repeat(30)}`);
  assert.ok(long.length <= MAX_SLUG_LENGTH);
  assert.match(long, pattern);
  for (const n of [1, 2, 10, 100]) {
    const candidate = slugCandidate(long, n);
    assert.ok(candidate.length <= MAX_SLUG_LENGTH, candidate);
    assert.match(candidate, pattern);
  }
  assert.equal(slugCandidate('harbour', 1), 'harbour');
  assert.equal(slugCandidate('harbour', 3), 'harbour-3');
});

test('demo marks', () => {
  assert.equal(isDemoSlug('demo-transit'), true);
  assert.equal(isDemoSlug('demonstration'), false);
  assert.equal(isDemoName('Metro Transit (Demo)'), true);
  assert.equal(isDemoName('Metro Transit (demo) '), true);
  assert.equal(isDemoName('Demo Metro'), false);
});
