/**
 * What one serving process holds (issue 54, point 3): `openrail serve --workers 1` on a fresh
 * SQLite database, its resident set size read from /proc after it starts and after a burst of
 * mixed requests (public pages and documents, back-office reads, offers and verification
 * requests). The figures are printed as diagnostics, never compared with a target: memory
 * targets live in `npm run bench -- memory` (bench/README.md). What is asserted is that the
 * burst was served as it should be, so the figure is of a process that did the work.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort, type OpenrailProcess, serveOn } from '../helpers/process.ts';

const OWNER = 'serving-memory-owner-token-0123456789abcdef';
const BURST = 300;

/** VmRSS of a process, in MiB. */
function residentMb(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  assert.ok(kb, 'VmRSS is in /proc/<pid>/status');
  return Number(kb) / 1024;
}

describe('the resident memory of one serving process', { skip: existsSync('/proc/self/status') ? false : 'needs /proc' }, () => {
  let dir: string;
  let server: { proc: OpenrailProcess; origin: string };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'openrail-memory-'));
    server = await serveOn(
      {
        OPENRAIL_DATA_DIR: dir,
        DATABASE_URL: `sqlite:${join(dir, 'openrail.sqlite')}`,
        OPENRAIL_OWNER_TOKEN: OWNER,
        LOG_LEVEL: 'warn',
      },
      await freePort(),
    );
  });
  after(async () => {
    server?.proc.kill();
    await server?.proc.exited(30_000);
    rmSync(dir, { recursive: true, force: true });
  });

  test(`after start and after ${BURST} mixed requests (printed, not compared)`, async (t) => {
    const pid = server.proc.child.pid;
    assert.ok(pid);
    const atStart = residentMb(pid);
    const owner = { authorization: `Bearer ${OWNER}`, 'content-type': 'application/json' };
    const call = async (path: string, expect: number, init: RequestInit = {}) => {
      const res = await fetch(`${server.origin}${path}`, { redirect: 'manual', ...init });
      const body = await res.text();
      assert.equal(res.status, expect, `${init.method ?? 'GET'} ${path}: ${body.slice(0, 300)}`);
      return body;
    };
    const tenant = JSON.parse(
      await call('/api/tenants', 201, { method: 'POST', headers: owner, body: JSON.stringify({ name: 'Memory Town' }) }),
    ) as { slug: string };
    const type = JSON.parse(
      await call('/api/types', 201, {
        method: 'POST',
        headers: owner,
        body: JSON.stringify({ tenant: tenant.slug, name: 'Library Card', claims: ['given_name', 'card_number'] }),
      }),
    ) as { vct: string; typeId: string };
    const mix: Array<() => Promise<unknown>> = [
      () => call('/', 200),
      () => call('/demo', 200),
      () => call('/verify', 200),
      () => call('/developers/docs/issuance', 200),
      () => call('/api/admin/audit?limit=20', 200, { headers: owner }),
      () => call('/api/admin/ops/health', 200, { headers: owner }),
      () =>
        call('/api/offers', 201, {
          method: 'POST',
          headers: owner,
          body: JSON.stringify({ tenant: tenant.slug, typeId: type.typeId, subject: { given_name: 'Ada', card_number: 'L-1' } }),
        }),
      () =>
        call('/verify/request', 201, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ vct: type.vct, claims: ['given_name'], nonce: crypto.randomUUID(), aud: 'https://rp.example' }),
        }),
    ];
    for (let i = 0; i < BURST; i += 4) await Promise.all(mix.slice(0, 4).map((_, j) => mix[(i + j) % mix.length]?.()));
    const afterBurst = residentMb(pid);
    t.diagnostic(`resident after start: ${atStart.toFixed(1)} MiB; after ${BURST} mixed requests: ${afterBurst.toFixed(1)} MiB`);
    assert.ok(atStart > 0 && afterBurst > 0);
  });
});
