import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderSecurityTxt } from './security-txt.ts';

test('RFC 9116: every contact, exactly one Expires in RFC 3339', () => {
  const text = renderSecurityTxt({
    contacts: ['mailto:security@example.org', 'https://example.org/security'],
    expires: new Date('2027-05-01T12:00:00.000Z'),
    canonical: 'https://example.org/.well-known/security.txt',
    preferredLanguages: 'en',
  });
  const lines = text.trimEnd().split('\n');
  assert.deepEqual(
    lines.filter((l) => l.startsWith('Contact: ')),
    ['Contact: mailto:security@example.org', 'Contact: https://example.org/security'],
  );
  assert.deepEqual(
    lines.filter((l) => l.startsWith('Expires: ')),
    ['Expires: 2027-05-01T12:00:00Z'],
  );
  assert.ok(lines.includes('Canonical: https://example.org/.well-known/security.txt'));
  assert.ok(text.endsWith('\n'));
});
