import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { Flush } from '../../src/adapters/sql/wal-sync.ts';
import type { Module } from '../../src/app/module.ts';
import { type StartOptions, startOpenrail } from '../../src/app/start.ts';
import { MODULES, type Openrail } from '../../src/compose.ts';
import { loadConfig } from '../../src/config/config.ts';
import type { Clock } from '../../src/core/clock.ts';
import { type DatabaseFactory, type TestDatabase, testDatabases } from './databases.ts';
import { freePort } from './process.ts';

export const OWNER_TOKEN = 'test-owner-token-0123456789abcdefghijklmnop';
export const PUBLIC_URL = 'https://rail.example.test';

export interface TestRail extends Openrail {
  stop(): Promise<void>;
}

export interface RailOptions extends Pick<StartOptions, 'runJobs' | 'logger' | 'fetcher'> {
  /** Modules served beside the service's own (a suite's probe routes). */
  extraModules?: Module[];
  /** SQLite: how the write-ahead log is flushed (a suite watching group commit). */
  flush?: Flush;
}

/** A composed openrail on `db`, configured as by the environment `env` (plus test defaults). */
export async function startRail(
  db: TestDatabase,
  env: Record<string, string> = {},
  clock?: Clock,
  options: RailOptions = {},
): Promise<TestRail> {
  const dataDir = mkdtempSync(join(tmpdir(), 'openrail-data-'));
  const config = loadConfig({
    PUBLIC_URL,
    OPENRAIL_OWNER_TOKEN: OWNER_TOKEN,
    OPENRAIL_MASTER_KEY: Buffer.alloc(32, 7).toString('base64url'),
    OPENRAIL_DATA_DIR: dataDir,
    ...env,
  });
  config.database = db.location;
  const rail = await startOpenrail(config, [...MODULES, ...(options.extraModules ?? [])], {
    ...(clock ? { clock } : {}),
    database: {
      ...(db.schema ? { schema: db.schema } : {}),
      ...(options.flush ? { flush: options.flush } : {}),
    },
    ...(options.runJobs === undefined ? {} : { runJobs: options.runJobs }),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.fetcher ? { fetcher: options.fetcher } : {}),
    warn: () => {},
  }).catch((err) => {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  });
  if (clock) clocks.set(rail.app, clock);
  return {
    ...rail,
    stop: async () => {
      await rail.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A fresh database and a rail on it, for a suite's `before`; `stopRail` is its `after`. */
export async function railOn(
  factory: DatabaseFactory,
  env: Record<string, string> = {},
  clock?: Clock,
  options: RailOptions = {},
): Promise<{ db: TestDatabase; rail: TestRail }> {
  const db = await factory.create();
  return { db, rail: await startRail(db, env, clock, options) };
}

export async function stopRail(rail: TestRail, db: TestDatabase): Promise<void> {
  await rail.stop();
  await db.drop();
}

const clocks = new WeakMap<object, Clock>();

/**
 * The time of the rail an app belongs to, in seconds: its own clock when the test gave it one (a
 * clock that stands still does not follow the wall), so a proof made for it is as fresh as the
 * rail judges it, however long the suites before it ran.
 */
export const railSeconds = (app: object) => Math.floor((clocks.get(app)?.now() ?? Date.now()) / 1000);

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
export const owner = bearer(OWNER_TOKEN);

/**
 * `post` and `get` by inject on the rail `railOf` answers (read on each call, so a suite can make
 * them before its `before` starts the rail), as the owner unless other headers are given.
 */
export function ownerCalls(railOf: () => TestRail) {
  return {
    post: (url: string, payload?: unknown, headers: Record<string, string> = owner) =>
      railOf().app.inject({ method: 'POST', url, headers, ...(payload === undefined ? {} : { payload: payload as object }) }),
    get: (url: string, headers: Record<string, string> = owner) => railOf().app.inject({ method: 'GET', url, headers }),
  };
}

/** Has `rail` listen on a free loopback port (its PUBLIC_URL stays as it was): the origin it answers at. */
export async function listenOnLoopback(rail: TestRail): Promise<string> {
  await rail.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(rail.app.server.address() as AddressInfo).port}`;
}

/**
 * A composed openrail on a real 127.0.0.1 socket whose PUBLIC_URL is that socket's own origin, so
 * a browser's same-origin requests, the did:web DIDs and a wallet all reach it at the address it
 * publishes. The port must be known before compose, hence chosen first.
 */
export async function startRailOnSocket(
  db: TestDatabase,
  env: Record<string, string> = {},
): Promise<{ rail: TestRail; origin: string }> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const rail = await startRail(db, { ...env, PUBLIC_URL: origin });
  await rail.app.listen({ port, host: '127.0.0.1' });
  return { rail, origin };
}

/** A suite's rail on a socket and its database, there once the suite's first `before` has run. */
export interface SocketRail {
  readonly db: TestDatabase;
  readonly rail: TestRail;
  readonly origin: string;
}

/**
 * In a describe, before its own hooks: a rail on a real socket (startRailOnSocket) on a fresh
 * SQLite database, started before the suite's tests with the variables `env` answers then, and
 * stopped, its database dropped, after them.
 */
export function sqliteRailOnSocket(env: () => Record<string, string> | Promise<Record<string, string>> = () => ({})): SocketRail {
  const suite = {} as { db: TestDatabase; rail: TestRail; origin: string };
  before(async () => {
    const [sqlite] = testDatabases();
    assert.ok(sqlite);
    suite.db = await sqlite.create();
    Object.assign(suite, await startRailOnSocket(suite.db, await env()));
  });
  after(async () => {
    await suite.rail?.stop();
    await suite.db?.drop();
  });
  return suite;
}

/**
 * POSTs `body` as JSON to a rail on a socket with the owner bearer, asserts the answer's status
 * (`expected`, 201 unless told) and returns its JSON.
 */
export async function postAsOwner(origin: string, path: string, body: unknown, expected = 201): Promise<Record<string, unknown>> {
  const res = await fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { ...owner, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  assert.equal(res.status, expected, JSON.stringify(json));
  return json;
}

/** An answer of `jsonCaller`: its status and headers, the body as text, and as JSON when it is JSON. */
export interface JsonAnswer {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: a test reads whichever members the operation answers.
  json: any;
}

/** Calls a rail on a real socket: a JSON body when one is given, the answer read whole. `originOf` is read on each call. */
export function jsonCaller(originOf: () => string) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> => {
    const res = await fetch(`${originOf()}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    const json = res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : undefined;
    return { status: res.status, headers: res.headers, text, json };
  };
}
