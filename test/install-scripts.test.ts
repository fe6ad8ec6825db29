/**
 * Install without alarms (README, "Install"): npm 11 runs a dependency's install
 * script only when package.json's `allowScripts` approves it, and warns about every one it does
 * not cover. The project approves the scripts it relies on — the native builds of better-sqlite3
 * (SQLite) and pkcs11js (keys in a hardware token), and esbuild's binary check (tsx runs the service)
 * — and denies the rest, so `npm install` is silent and SQLite still opens.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from './helpers/process.ts';

const RELIED_ON = ['better-sqlite3', 'esbuild', 'pkcs11js'];

test('every dependency with an install script is approved or denied, and only those the service needs run', () => {
  const listed = execFileSync('npm', ['install-scripts', 'ls'], { cwd: REPO_ROOT, encoding: 'utf8' });
  assert.doesNotMatch(listed, /not yet covered by allowScripts/, `npm would warn on install:\n${listed}`);
  const { allowScripts } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    allowScripts: Record<string, boolean>;
  };
  const approved = Object.entries(allowScripts)
    .filter(([, allowed]) => allowed)
    .map(([name]) => name.replace(/@[^@/]*$/, ''))
    .sort();
  assert.deepEqual(approved, RELIED_ON);
});
