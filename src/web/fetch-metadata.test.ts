import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crossSiteReason } from './fetch-metadata.ts';

test('Sec-Fetch-Site: no browser, our pages and the address bar are answered; another site, an unknown or doubled value refused', () => {
  const table: Array<[string | string[] | undefined, boolean]> = [
    [undefined, true],
    ['same-origin', true],
    ['none', true],
    ['cross-site', false],
    ['same-site', false],
    ['Same-Origin', false],
    ['', false],
    [['same-origin', 'same-origin'], false],
  ];
  for (const [value, admitted] of table) {
    assert.equal(crossSiteReason(value) === undefined, admitted, JSON.stringify(value));
  }
});
