/**
 * The receiver printed in docs/webhooks.md works as the page says: it is taken from the page,
 * run as its own Node process against real deliveries, and refuses what the page says it refuses.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { testDatabases } from '../../../test/helpers/databases.ts';
import { freePort } from '../../../test/helpers/process.ts';
import { owner, startRail, type TestRail } from '../../../test/helpers/rail.ts';
import { APP_ROOT } from '../../app/start.ts';
import { signBody } from '../../core/webhook-signature.ts';

const guide = readFileSync(join(APP_ROOT, 'docs', 'webhooks.md'), 'utf8');
const [, receiverCode] = /## Checking a delivery[\s\S]*?```js\n([\s\S]*?)```/.exec(guide) ?? [];

describe('the receiver of docs/webhooks.md', () => {
  const [factory] = testDatabases();
  let rail: TestRail;
  let dir: string;
  let origin: string;
  let child: ReturnType<typeof spawn>;
  let stdout = '';
  let drop: () => Promise<void>;

  before(async () => {
    assert.ok(receiverCode, 'the page has the receiver');
    assert.ok(receiverCode.split('\n').filter((l) => l.trim() !== '').length <= 20, 'in 20 lines');
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    dir = mkdtempSync(join(tmpdir(), 'openrail-guide-'));
    const file = join(dir, 'receiver.mjs');
    // The page listens on 8080; the test gives it a free port and the secret it is shown.
    writeFileSync(file, receiverCode.replace('.listen(8080)', `.listen(${port}, '127.0.0.1')`));
    const db = await (factory?.create() ?? Promise.reject(new Error('no database')));
    drop = () => db.drop();
    rail = await startRail(db, { OPENRAIL_OUTBOUND_ALLOW: origin, OPENRAIL_WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms' });
    const made = await rail.app.inject({
      method: 'POST',
      url: '/api/admin/integration/webhooks',
      headers: owner,
      payload: { tenant: 'root', url: `${origin}/hook`, events: ['org.created'] },
    });
    assert.equal(made.statusCode, 201, made.body);
    child = spawn(process.execPath, [file], { env: { ...process.env, OPENRAIL_WEBHOOK_SECRET: made.json().webhook.secret } });
    child.stdout?.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    await waitUntil(async () => (await fetch(origin, { method: 'POST' }).catch(() => undefined)) !== undefined);
  });
  after(async () => {
    child.kill();
    await rail.stop();
    await drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('it accepts openrail’s deliveries and prints each once', async () => {
    await waitUntil(async () => stdout.includes('webhook.ping'));
    // The receiver prints before it answers, and the ping's first attempt may have found it not yet
    // listening: the delivery is recorded once the answer is back, so wait for that record.
    const ping = async () =>
      (await rail.app.inject({ method: 'GET', url: '/api/admin/integration/deliveries', headers: owner })).json().deliveries[0];
    await waitUntil(async () => (await ping())?.state === 'delivered');
    assert.equal((await ping()).lastStatus, 204);
    assert.equal(stdout.split('webhook.ping').length - 1, 1, 'printed once');
  });

  test('it refuses a forged signature and a malformed header', async () => {
    // An id no real delivery can have (real ones are dlv_ and base64url, which has no dot): a real
    // delivery whose id merely began with the forged one's once made the check below fail.
    const forged = 'dlv_forged.delivery';
    const body = `{"id":"${forged}","type":"webhook.ping","createdAt":"2026-11-24T08:00:00.000Z","tenant":"root","data":{}}`;
    const send = (signature: string) =>
      fetch(`${origin}/hook`, { method: 'POST', headers: { 'x-svc-signature': signature, 'x-svc-delivery': forged }, body });
    assert.equal((await send(signBody('whsec_not-the-secret', body))).status, 401);
    assert.equal((await send('sha256=abc')).status, 400);
    assert.equal((await send(`sha1=${'0'.repeat(64)}`)).status, 400);
    assert.equal((await send(signBody('whsec_not-the-secret', body).toUpperCase().replace('SHA256=', 'sha256='))).status, 400);
    assert.ok(!stdout.includes(forged), 'nothing forged was printed');
  });
});

async function waitUntil(check: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
