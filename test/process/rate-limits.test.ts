/**
 * Interface spec, Limits 1: a key's budget lives in the database, so every process serving the
 * deployment counts against the same one. Two processes (two `openrail serve` on one PostgreSQL;
 * two workers on one SQLite file) answer a key's requests alternately; together they admit its
 * quota and no more.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { testDatabases } from '../helpers/databases.ts';
import { freePort, killAll, type OpenrailProcess, spawnOpenrail } from '../helpers/process.ts';

const OWNER = 'rate-owner-token-0123456789abcdefghijklmnopq';
const MASTER_KEY = Buffer.alloc(32, 0x2e).toString('base64url');
const BANNER = 'openrail is serving at';

after(killAll);

async function serve(env: Record<string, string>, workers: number): Promise<{ proc: OpenrailProcess; origin: string }> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const proc = spawnOpenrail(
    ['serve', '--workers', String(workers)],
    { ...env, PORT: String(port), PUBLIC_URL: origin },
    600_000,
  );
  await proc.waitForStdout(BANNER, 60_000);
  return { proc, origin };
}

async function call(origin: string, method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, ratelimit: res.headers.get('ratelimit') };
}

for (const factory of testDatabases()) {
  describe(`one rate budget across processes (${factory.name})`, () => {
    test('a sandbox key is admitted 60 times in a window, whichever process answers', async () => {
      const target = await factory.create();
      const dir = mkdtempSync(join(tmpdir(), 'openrail-rate-'));
      const env = {
        HOST: '127.0.0.1',
        DATABASE_URL: target.url,
        OPENRAIL_OWNER_TOKEN: OWNER,
        OPENRAIL_MASTER_KEY: MASTER_KEY,
        OPENRAIL_DEMO: 'off',
      };
      const servers: Array<{ proc: OpenrailProcess; origin: string }> = [];
      try {
        // PostgreSQL: two separate processes; SQLite: one primary with two workers sharing the file.
        if (factory.name === 'postgres') {
          for (let i = 0; i < 2; i++) servers.push(await serve({ ...env, OPENRAIL_DATA_DIR: join(dir, `p${i}`) }, 1));
        } else {
          servers.push(await serve({ ...env, OPENRAIL_DATA_DIR: dir }, 2));
        }
        const origins = servers.map((s) => s.origin);
        const first = origins[0] as string;
        const tenant = (await call(first, 'POST', '/api/tenants', OWNER, { name: 'Rate Transit' })).json.slug as string;
        const made = await call(first, 'POST', '/api/operators', OWNER, {
          username: 'approver',
          password: 'correct horse battery',
          roles: ['owner'],
        });
        assert.equal(made.status, 201);
        const login = await fetch(`${first}/api/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'approver', password: 'correct horse battery' }),
        });
        const approver = ((await login.json()) as { token: string }).token;
        const request = await call(first, 'POST', '/api/admin/integration/provisioning', OWNER, {
          tenant,
          label: 'Load test',
          reason: 'Shared budget',
          scopes: ['channels'],
          rateClass: 'sandbox',
        });
        const minted = await call(first, 'POST', '/api/admin/integration/tokens', approver, {
          requestId: (request.json.request as { id: string }).id,
        });
        assert.equal(minted.status, 201);
        const key = (minted.json.token as { secret: string }).secret;

        // Start early in a window, so all 70 requests fall in one.
        while (Date.now() % 60_000 > 40_000) await new Promise((r) => setTimeout(r, 500));
        const answers = [];
        for (let i = 0; i < 70; i++)
          answers.push(await call(origins[i % origins.length] as string, 'GET', `/api/org-channels?tenant=${tenant}`, key));
        const admitted = answers.filter((a) => a.status === 200);
        const refused = answers.filter((a) => a.status === 429);
        assert.equal(admitted.length, 60, 'the quota, not twice the quota');
        assert.equal(refused.length, 10);
        const remaining = admitted.map((a) => Number(/r=(\d+)/.exec(a.ratelimit ?? '')?.[1]));
        assert.deepEqual(
          [...remaining].sort((a, b) => b - a),
          Array.from({ length: 60 }, (_, i) => 59 - i),
          'each admitted request took its own place in one count',
        );
      } finally {
        for (const s of servers) s.proc.kill('SIGTERM');
        await Promise.all(servers.map((s) => s.proc.exited(10_000).catch(() => undefined)));
        rmSync(dir, { recursive: true, force: true });
        await target.drop();
      }
    });
  });
}
