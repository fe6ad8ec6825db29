/**
 * Webhook delivery across processes (docs/webhooks.md). A real `openrail serve` is killed with
 * SIGKILL while a thousand events wait for delivery and some are in flight; restarted on the same
 * database, every event still arrives (duplicates are allowed and counted, losses are not). And two
 * processes sharing one PostgreSQL deliver each event once under normal operation.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { verifyBody } from '../../src/core/webhook-signature.ts';
import { testDatabases } from '../helpers/databases.ts';
import { freePort, killAll, killTree, type OpenrailProcess, serveOn } from '../helpers/process.ts';
import { type Received, startReceiver } from '../helpers/receiver.ts';

const OWNER = 'webhook-owner-token-0123456789abcdefghijklmn';
const MASTER_KEY = Buffer.alloc(32, 0x4d).toString('base64url');
const headers = { authorization: `Bearer ${OWNER}`, 'content-type': 'application/json' };

after(killAll);

async function call(origin: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${origin}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  assert.ok(res.status === 200 || res.status === 201, `${path}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** A tenant with one type: each offer of it writes one offer.created event. */
async function setUp(origin: string) {
  const tenant = (await call(origin, '/api/tenants', { name: 'Webhook Storm' })).slug as string;
  const type = await call(origin, '/api/types', { tenant, name: 'Storm Pass', claims: ['holder'] });
  return { tenant, typeId: type.typeId as string };
}

/** Makes `count` offers, `width` at a time, spread over the origins; answers their ids. */
async function offers(origins: string[], tenant: string, typeId: string, count: number, width = 25): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += width) {
    const batch = Array.from({ length: Math.min(width, count - i) }, (_, j) =>
      call(origins[(i + j) % origins.length] as string, '/api/offers', { tenant, typeId, subject: { holder: `h${i + j}` } }),
    );
    for (const made of await Promise.all(batch)) ids.push(made.offerId as string);
  }
  return ids;
}

const offerIdOf = (r: Received) => (JSON.parse(r.body) as { data: { offerId?: string } }).data.offerId;

for (const factory of testDatabases()) {
  describe(`webhook delivery survives kill -9 (${factory.name})`, () => {
    test('a thousand pending events, some in flight, all arrive after a SIGKILL and a restart', async (t) => {
      const receiver = await startReceiver();
      const target = await factory.create();
      const dir = mkdtempSync(join(tmpdir(), 'openrail-webhook-kill-'));
      const port = await freePort();
      const env = {
        HOST: '127.0.0.1',
        DATABASE_URL: target.url,
        OPENRAIL_OWNER_TOKEN: OWNER,
        OPENRAIL_MASTER_KEY: MASTER_KEY,
        OPENRAIL_DEMO: 'off',
        OPENRAIL_DATA_DIR: dir,
        OPENRAIL_OUTBOUND_ALLOW: receiver.origin,
        OPENRAIL_WEBHOOK_RETRY_SCHEDULE: '200ms,500ms,1s,2s,5s',
      };
      try {
        let server = await serveOn(env, port);
        const { tenant, typeId } = await setUp(server.origin);
        const hook = (await call(server.origin, '/api/admin/integration/webhooks', {
          tenant,
          url: `${receiver.origin}/storm`,
          events: ['offer.created'],
        })) as { webhook: { secret: string } };
        // A slow receiver, so that the backlog builds up while the offers are made.
        receiver.answer = () => ({ status: 200, delayMs: 15 });
        const made = await offers([server.origin], tenant, typeId, 1000);
        await receiver.until((got) => got.filter(offerIdOf).length >= 50, 60_000);
        killTree(server.proc.child.pid as number);
        await server.proc.exited(10_000).catch(() => undefined);
        const beforeKill = receiver.received.filter(offerIdOf).length;
        assert.ok(beforeKill < 1000, `events were still pending at the kill (${beforeKill} received)`);

        receiver.answer = () => ({ status: 200 });
        server = await serveOn(env, port);
        const wanted = new Set(made);
        await receiver.until((got) => {
          const seen = new Set(got.map(offerIdOf));
          return made.every((id) => seen.has(id));
        }, 120_000);
        const storm = receiver.received.filter(offerIdOf);
        for (const r of storm) assert.ok(verifyBody(hook.webhook.secret, r.body, r.headers['x-svc-signature'] as string));
        const ids = storm.map((r) => r.headers['x-svc-delivery']);
        const duplicates = ids.length - new Set(ids).size;
        assert.equal(new Set(storm.map(offerIdOf)).size, wanted.size, 'every event arrived');
        assert.ok(duplicates <= 8, `duplicates come only from attempts in flight at the kill (${duplicates})`);
        t.diagnostic(`received before the kill: ${beforeKill}; duplicates after restart: ${duplicates}`);
        server.proc.kill('SIGTERM');
        await server.proc.exited(10_000).catch(() => undefined);
      } finally {
        await receiver.close();
        rmSync(dir, { recursive: true, force: true });
        await target.drop();
      }
    });
  });
}

for (const factory of testDatabases().filter((f) => f.name === 'postgres')) {
  describe('two processes on one PostgreSQL', () => {
    test('deliver each event once under normal operation', async () => {
      const receiver = await startReceiver();
      const target = await factory.create();
      const dir = mkdtempSync(join(tmpdir(), 'openrail-webhook-two-'));
      const env = {
        HOST: '127.0.0.1',
        DATABASE_URL: target.url,
        OPENRAIL_OWNER_TOKEN: OWNER,
        OPENRAIL_MASTER_KEY: MASTER_KEY,
        OPENRAIL_DEMO: 'off',
        OPENRAIL_OUTBOUND_ALLOW: receiver.origin,
      };
      const servers: Array<{ proc: OpenrailProcess; origin: string }> = [];
      try {
        for (let i = 0; i < 2; i++)
          servers.push(await serveOn({ ...env, OPENRAIL_DATA_DIR: join(dir, `p${i}`) }, await freePort()));
        const origins = servers.map((s) => s.origin);
        const { tenant, typeId } = await setUp(origins[0] as string);
        const paths = ['/a', '/b', '/c', '/d'];
        for (const [i, path] of paths.entries()) {
          await call(origins[i % 2] as string, '/api/admin/integration/webhooks', {
            tenant,
            url: `${receiver.origin}${path}`,
            events: ['offer.created'],
          });
        }
        receiver.answer = () => ({ status: 200, delayMs: 2 });
        const made = await offers(origins, tenant, typeId, 200);
        await receiver.until(
          (got) => paths.every((p) => got.filter((r) => r.path === p && offerIdOf(r)).length >= made.length),
          60_000,
        );
        // A moment more for any duplicate to show.
        await new Promise((r) => setTimeout(r, 1500));
        for (const path of paths) {
          const got = receiver.received.filter((r) => r.path === path && offerIdOf(r));
          assert.equal(got.length, made.length, `${path}: each event once`);
          assert.deepEqual(new Set(got.map(offerIdOf)), new Set(made));
          assert.equal(new Set(got.map((r) => r.headers['x-svc-delivery'])).size, made.length);
        }
      } finally {
        for (const s of servers) s.proc.kill('SIGTERM');
        await Promise.all(servers.map((s) => s.proc.exited(10_000).catch(() => undefined)));
        await receiver.close();
        rmSync(dir, { recursive: true, force: true });
        await target.drop();
      }
    });
  });
}
