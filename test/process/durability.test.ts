/**
 * Nothing answered is lost on kill -9 (decision 0016). A real `openrail serve` takes a storm of
 * spends (token redemptions), issuances and revocations; half way through the answers it is
 * killed with SIGKILL, every process of it, while the rest are still in flight. Restarted on the
 * same database, every operation that had been answered 200 must still hold: a redeemed code stays
 * spent, an issued credential keeps its status entry (and its access token stays spent), a revoked
 * credential shows revoked in its status list, and no status entry is handed out a second time.
 * Run on SQLite (one process, and two workers sharing the file) and on PostgreSQL, with group
 * commit on.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { inflateSync } from 'node:zlib';
import { decodeJwt } from 'jose';
import { readStatus } from '../../src/core/status-list/codec.ts';
import { type DatabaseFactory, testDatabases } from '../helpers/databases.ts';
import { newHolderKey } from '../helpers/holder.ts';
import { PRE_AUTH, proofJwt } from '../helpers/issuance.ts';
import { freePort, killAll, killTree, type OpenrailProcess, spawnOpenrail } from '../helpers/process.ts';

const OWNER = 'durability-owner-token-0123456789abcdefghijkl';
const MASTER_KEY = Buffer.alloc(32, 0x3c).toString('base64url');
const BANNER = 'openrail is serving at';
/** Operations of each kind in the storm. */
const EACH = 24;

after(killAll);

interface Server {
  proc: OpenrailProcess;
  origin: string;
}

/** Both starts listen on one port, so the status list addresses in credentials stay valid. */
async function startServer(env: Record<string, string>, workers: number, port: number): Promise<Server> {
  const origin = `http://127.0.0.1:${port}`;
  const proc = spawnOpenrail(['serve', '--workers', String(workers)], { ...env, PORT: String(port), PUBLIC_URL: origin });
  await proc.waitForStdout(BANNER, 60_000);
  return { proc, origin };
}

async function call(
  origin: string,
  method: string,
  path: string,
  init: { body?: string; headers?: Record<string, string> } = {},
) {
  const res = await fetch(`${origin}${path}`, { method, ...init });
  return { status: res.status, text: await res.text() };
}

const operatorJson = { authorization: `Bearer ${OWNER}`, 'content-type': 'application/json' };
const form = { 'content-type': 'application/x-www-form-urlencoded' };

async function api(origin: string, path: string, body: unknown, expect = 201): Promise<Record<string, unknown>> {
  const res = await call(origin, 'POST', path, { headers: operatorJson, body: JSON.stringify(body) });
  assert.equal(res.status, expect, res.text);
  return JSON.parse(res.text);
}

interface Issued {
  credential: string;
  token: string;
  status: { uri: string; idx: number };
}

async function offerCode(origin: string, tenant: string, typeId: string, n: number): Promise<string> {
  const created = await api(origin, '/api/offers', { tenant, typeId, subject: { name: `Holder ${n}`, level: 'gold' } });
  const offer = JSON.parse(new URL(String(created.offerUri)).searchParams.get('credential_offer') ?? 'null');
  return offer.grants[PRE_AUTH]['pre-authorized_code'];
}

const redeem = (origin: string, tenant: string, code: string) =>
  call(origin, 'POST', `/t/${tenant}/token`, {
    headers: form,
    body: new URLSearchParams({ grant_type: PRE_AUTH, 'pre-authorized_code': code }).toString(),
  });

/** Token, nonce and credential; undefined unless the credential step answered 200. */
async function issue(origin: string, tenant: string, typeId: string, code: string): Promise<Issued | undefined> {
  const token = await redeem(origin, tenant, code);
  if (token.status !== 200) return undefined;
  const { access_token } = JSON.parse(token.text);
  const nonce = await call(origin, 'POST', `/t/${tenant}/nonce`);
  if (nonce.status !== 200) return undefined;
  const key = await newHolderKey();
  const issuer = `${origin}/t/${tenant}`;
  const proof = await proofJwt(key, { aud: issuer, nonce: JSON.parse(nonce.text).c_nonce });
  const res = await call(origin, 'POST', `/t/${tenant}/credential`, {
    headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ credential_configuration_id: typeId, proofs: { jwt: [proof] } }),
  });
  if (res.status !== 200) return undefined;
  const credential = JSON.parse(res.text).credentials[0].credential as string;
  const payload = decodeJwt(credential.split('~')[0] ?? '') as { status: { status_list: { uri: string; idx: number } } };
  return { credential, token: access_token, status: payload.status.status_list };
}

async function statusBit(ref: { uri: string; idx: number }): Promise<number> {
  const res = await fetch(ref.uri);
  assert.equal(res.status, 200, ref.uri);
  const list = (decodeJwt(await res.text()) as { status_list: { lst: string } }).status_list;
  return readStatus(inflateSync(Buffer.from(list.lst, 'base64url')), 1, ref.idx);
}

const sqliteOnly = (factories: DatabaseFactory[]) => factories.filter((f) => f.name === 'sqlite');

const cases: Array<{ factory: DatabaseFactory; workers: number }> = [
  ...sqliteOnly(testDatabases()).map((factory) => ({ factory, workers: 1 })),
  ...sqliteOnly(testDatabases()).map((factory) => ({ factory, workers: 2 })),
  ...testDatabases()
    .filter((f) => f.name === 'postgres')
    .map((factory) => ({ factory, workers: 2 })),
];

for (const { factory, workers } of cases) {
  describe(`kill -9 loses nothing answered (${factory.name}, ${workers} serving process${workers > 1 ? 'es' : ''})`, () => {
    test('every answered spend, issuance and revocation holds after a SIGKILL in the middle of a storm', {
      timeout: 180_000,
    }, async () => {
      const target = await factory.create();
      const dataDir = mkdtempSync(join(tmpdir(), 'openrail-durability-'));
      const env = {
        HOST: '127.0.0.1',
        DATABASE_URL: target.url,
        OPENRAIL_DATA_DIR: dataDir,
        OPENRAIL_OWNER_TOKEN: OWNER,
        OPENRAIL_MASTER_KEY: MASTER_KEY,
        OPENRAIL_DEMO: 'off',
        LOG_LEVEL: 'warn',
      };
      try {
        const port = await freePort();
        let server = await startServer(env, workers, port);
        const tenant = String((await api(server.origin, '/api/tenants', { name: 'Durable City' })).slug);
        const typeId = String(
          (await api(server.origin, '/api/types', { tenant, name: 'Card', claims: ['name', 'level:enum(gold|silver)'] })).typeId,
        );
        // Credentials to revoke in the storm, and codes to spend and to issue with.
        const before: Issued[] = [];
        for (let i = 0; i < EACH; i++) {
          const issued = await issue(server.origin, tenant, typeId, await offerCode(server.origin, tenant, typeId, i));
          assert.ok(issued, 'a credential before the storm');
          before.push(issued);
        }
        const spendCodes = await Promise.all(
          Array.from({ length: EACH }, (_, i) => offerCode(server.origin, tenant, typeId, 100 + i)),
        );
        const issueCodes = await Promise.all(
          Array.from({ length: EACH }, (_, i) => offerCode(server.origin, tenant, typeId, 200 + i)),
        );

        // The storm: each operation records itself once answered 200; once half of them have
        // answered, and at least one of each kind, every serving process is killed on the spot, the
        // rest still in flight.
        const spent: string[] = [];
        const issued: Issued[] = [];
        const revoked: Issued[] = [];
        const total = EACH * 3;
        let answered = 0;
        let killed = false;
        const answeredOne = () => {
          const eachKind = spent.length > 0 && issued.length > 0 && revoked.length > 0;
          if (++answered >= total / 2 && (eachKind || answered === total) && !killed) {
            killed = true;
            killTree(server.proc.child.pid as number);
          }
        };
        const origin = server.origin;
        const guard = async (op: () => Promise<void>) => {
          try {
            await op();
          } catch {
            // cut off by the kill
          }
        };
        const storm = [
          ...spendCodes.map(
            (code) => () =>
              guard(async () => {
                const res = await redeem(origin, tenant, code);
                if (res.status === 200 && !killed) spent.push(code);
                answeredOne();
              }),
          ),
          ...issueCodes.map(
            (code) => () =>
              guard(async () => {
                const one = await issue(origin, tenant, typeId, code);
                if (one && !killed) issued.push(one);
                answeredOne();
              }),
          ),
          ...before.map(
            (credential) => () =>
              guard(async () => {
                const res = await call(origin, 'POST', `/api/tenants/${tenant}/revoke`, {
                  headers: operatorJson,
                  body: JSON.stringify({ status: credential.status }),
                });
                if (res.status === 200 && !killed) revoked.push(credential);
                answeredOne();
              }),
          ),
        ];
        // Interleaved, so that each kind is under way from the start.
        const interleaved = Array.from({ length: EACH }, (_, i) => [storm[i], storm[EACH + i], storm[2 * EACH + i]]).flat();
        await Promise.all(interleaved.map((start) => start?.()));
        assert.ok(killed, 'the server was killed during the storm');
        await server.proc.exited(15_000);
        assert.ok(spent.length > 0 && issued.length > 0 && revoked.length > 0, 'each kind was answered before the kill');

        server = await startServer(env, workers, port);
        for (const code of spent) {
          const again = await redeem(server.origin, tenant, code);
          assert.equal(again.status, 400, `a code redeemed before the kill stays spent: ${again.text}`);
          assert.equal(JSON.parse(again.text).error, 'invalid_grant');
        }
        for (const one of issued) {
          // The access token it spent stays spent, and its status entry is still its own.
          const key = await newHolderKey();
          const res = await call(server.origin, 'POST', `/t/${tenant}/credential`, {
            headers: { authorization: `Bearer ${one.token}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              credential_configuration_id: typeId,
              proofs: { jwt: [await proofJwt(key, { aud: `${server.origin}/t/${tenant}`, nonce: 'x' })] },
            }),
          });
          assert.equal(res.status, 401, `the access token of an answered issuance stays spent: ${res.text}`);
          const revocation = await api(server.origin, `/api/tenants/${tenant}/revoke`, { status: one.status }, 200);
          assert.equal((revocation.revoked as unknown[]).length, 1, 'the credential is still on record under its status entry');
        }
        for (const one of revoked)
          assert.equal(await statusBit(one.status), 1, `${one.status.uri}#${one.status.idx} stays revoked`);

        // No entry is ever handed out twice: credentials issued after the restart take new ones.
        const taken = new Set([...before, ...issued].map((c) => `${c.status.uri}#${c.status.idx}`));
        for (let i = 0; i < 8; i++) {
          const fresh = await issue(server.origin, tenant, typeId, await offerCode(server.origin, tenant, typeId, 300 + i));
          assert.ok(fresh);
          const ref = `${fresh.status.uri}#${fresh.status.idx}`;
          assert.equal(taken.has(ref), false, `${ref} was handed out before the kill`);
          taken.add(ref);
        }
        server.proc.kill('SIGTERM');
        await server.proc.exited(15_000);
      } finally {
        await killAll();
        rmSync(dataDir, { recursive: true, force: true });
        await target.drop();
      }
    });
  });
}
