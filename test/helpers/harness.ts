/**
 * Openrail front ends for concurrency tests: one rail in this process (concurrent inject), or
 * two real `openrail serve` processes sharing one PostgreSQL schema over real HTTP; and the
 * helpers that fire a race at them and read its outcome. Used by test/process/*-races.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../../src/adapters/sql/connect.ts';
import { type DatabaseFactory, openTestDb, type TestDatabase } from './databases.ts';
import { freePort, killAll, logLines, type OpenrailProcess, spawnOpenrail } from './process.ts';
import { OWNER_TOKEN, PUBLIC_URL, startRail } from './rail.ts';

const BANNER = 'openrail is serving at';
const MASTER_KEY = Buffer.alloc(32, 0x5a).toString('base64url');

export interface Req {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Reply {
  /** Which process answered (always 0 in-process). */
  lane: number;
  status: number;
  text: string;
  header(name: string): string | undefined;
  json(): Record<string, unknown>;
}

/** One or more openrail front ends on one database, and a separate handle to that database. */
export interface Harness {
  lanes: number;
  send(lane: number, req: Req): Promise<Reply>;
  db: Db;
  /** Server-side evidence for failure messages: error log lines and 5xx request lines. */
  diagnostics(): string;
  close(): Promise<void>;
}

const reply = (lane: number, status: number, text: string, headers: (name: string) => string | undefined): Reply => ({
  lane,
  status,
  text,
  header: headers,
  json: () => JSON.parse(text) as Record<string, unknown>,
});

export async function inProcess(factory: DatabaseFactory): Promise<Harness> {
  const target = await factory.create();
  const rail = await startRail(target, { OPENRAIL_DEMO: 'off' });
  const db = openTestDb(target);
  return {
    lanes: 1,
    send: async (_lane, r) => {
      const res = await rail.app.inject({
        method: r.method,
        url: r.url,
        ...(r.headers ? { headers: r.headers } : {}),
        ...(r.body !== undefined ? { payload: r.body } : {}),
      });
      return reply(0, res.statusCode, res.body, (name) => {
        const v = res.headers[name.toLowerCase()];
        return Array.isArray(v) ? v.join(', ') : v === undefined ? undefined : String(v);
      });
    },
    db,
    diagnostics: () => '(in-process rail: 5xx causes are not logged by the test rail)',
    close: async () => {
      await db.destroy();
      await rail.stop();
      await target.drop();
    },
  };
}

/** Two real `openrail serve` processes, started together, on one PostgreSQL schema. */
export async function twoProcesses(factory: DatabaseFactory): Promise<Harness> {
  const target: TestDatabase = await factory.create();
  const dir = mkdtempSync(join(tmpdir(), 'openrail-races-'));
  const ports: number[] = [];
  while (ports.length < 2) {
    const p = await freePort();
    if (!ports.includes(p)) ports.push(p);
  }
  const common = {
    HOST: '127.0.0.1',
    PUBLIC_URL,
    DATABASE_URL: target.url,
    OPENRAIL_MASTER_KEY: MASTER_KEY,
    OPENRAIL_OWNER_TOKEN: OWNER_TOKEN,
    OPENRAIL_DEMO: 'off',
  };
  const procs: OpenrailProcess[] = ports.map((port, i) =>
    spawnOpenrail(
      ['serve', '--workers', '1'],
      { ...common, PORT: String(port), OPENRAIL_DATA_DIR: join(dir, `data-${i}`) },
      600_000,
    ),
  );
  const db = openTestDb(target);
  const close = async () => {
    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => p.exited(10_000).catch(() => undefined)));
    await killAll();
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
    await target.drop();
  };
  try {
    await Promise.all(procs.map((p) => p.waitForStdout(BANNER, 60_000)));
  } catch (err) {
    await close();
    throw err;
  }
  return {
    lanes: 2,
    send: async (lane, r) => {
      const res = await fetch(`http://127.0.0.1:${ports[lane % 2]}${r.url}`, {
        method: r.method,
        // As in-process: a 303 is an answer to look at, not a page to fetch.
        redirect: 'manual',
        ...(r.headers ? { headers: r.headers } : {}),
        ...(r.body !== undefined ? { body: r.body } : {}),
      });
      const text = await res.text();
      return reply(lane % 2, res.status, text, (name) => res.headers.get(name) ?? undefined);
    },
    db,
    diagnostics: () =>
      procs
        .map((p, i) => {
          const bad = logLines(p.stdout()).filter(
            (l) => (typeof l.level === 'number' && l.level >= 50) || (typeof l.status === 'number' && l.status >= 500),
          );
          return `process ${i} (port ${ports[i]}):\n${bad.map((l) => JSON.stringify(l)).join('\n') || '(no error log lines)'}\nstderr:\n${p.stderr()}`;
        })
        .join('\n'),
    close,
  };
}

export const json = (body: unknown, headers: Record<string, string> = {}) => ({
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
export const operator = { authorization: `Bearer ${OWNER_TOKEN}` };

export async function expectStatus(res: Promise<Reply>, status: number): Promise<Record<string, unknown>> {
  const r = await res;
  assert.equal(r.status, status, `lane ${r.lane}: ${r.text}`);
  return r.json();
}

/**
 * Fires every request at once, request i at lane i (so they alternate between processes). A
 * warm-up round first opens as many keep-alive connections (and fills the servers' database
 * pools), so that connection setup does not stagger the racers and they overlap on the server.
 */
export async function race(h: Harness, requests: Req[]): Promise<Reply[]> {
  if (h.lanes > 1) {
    const warm = await Promise.all(requests.map((_, i) => h.send(i % h.lanes, { method: 'GET', url: '/readyz' })));
    assert.deepEqual(new Set(warm.map((r) => r.status)), new Set([200]));
  }
  return Promise.all(requests.map((r, i) => h.send(i % h.lanes, r)));
}

export const summary = (replies: Reply[]) =>
  replies.map((r) => `#${replies.indexOf(r)} lane ${r.lane}: ${r.status} ${r.text.slice(0, 300)}`).join('\n');

export function assertNo5xx(h: Harness, replies: Reply[]): void {
  const failed = replies.filter((r) => r.status >= 500);
  assert.deepEqual(
    failed.map((r) => `${r.status} ${r.text}`),
    [],
    `${failed.length} of ${replies.length} requests answered 5xx:\n${summary(failed)}\n--- server side:\n${h.diagnostics()}`,
  );
}
