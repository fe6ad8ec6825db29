/**
 * `npm start` is the documented way to run the service, and a process manager stops what it
 * started by its process id: npm's. The service must stop with it, not live on as an orphan.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { freePort, REPO_ROOT } from '../helpers/process.ts';

test('stopping npm start by its process id stops the server', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'openrail-npm-start-'));
  const port = await freePort();
  const npm = spawn('npm', ['start'], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: String(port), OPENRAIL_DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let out = '';
    npm.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const deadline = Date.now() + 60_000;
    while (!out.includes('openrail is serving at') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok(out.includes('openrail is serving at'), out);
    assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200);

    npm.kill('SIGTERM');
    const stopped = Date.now() + 10_000;
    let listening = true;
    while (listening && Date.now() < stopped) {
      listening = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        () => true,
        () => false,
      );
      if (listening) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(listening, false, 'the server stopped listening');
  } finally {
    npm.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
