/**
 * docs/backoffice.md states the role matrix the back office enforces: its "Roles" table must be
 * ROLE_MATRIX, row for row and role for role, so the page cannot drift from the code.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ROLE_MATRIX } from '../src/http/admin/role-matrix.ts';

test('the role table of docs/backoffice.md is ROLE_MATRIX', () => {
  const page = readFileSync(new URL('../docs/backoffice.md', import.meta.url), 'utf8');
  const documented = new Map(
    [...page.matchAll(/^\| `([A-Za-z]+)` \| ([a-z, -]+) \|/gm)].map(([, row = '', roles = '']) => [
      row,
      roles
        .split(',')
        .map((r) => r.trim())
        .sort(),
    ]),
  );
  const matrix = new Map(Object.entries(ROLE_MATRIX).map(([row, roles]) => [row, [...roles].sort()]));
  assert.deepEqual(Object.fromEntries(documented), Object.fromEntries(matrix));
});
