/**
 * PostgreSQL unreachable for ten seconds in the middle of a run (issue 32; docs/scaling.md, "When
 * the database is unreachable"): the proxy between openrail and the database cuts every connection
 * and refuses new ones, then lets them through again. Meanwhile every request is answered, each
 * with its result or `503 database_unavailable` (or `commit_unknown` for one cut during its
 * commit; Retry-After), never anything else; afterwards the same process serves again by itself;
 * and nothing is half-written: every redeemed offer has its one access token, every collected one
 * its credential and its event. PostgreSQL only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { openTestDb, type TestDatabase, testDatabases } from '../helpers/databases.ts';
import { HALF_WRITTEN, NONE_HALF_WRITTEN } from '../helpers/half-written.ts';
import { newHolderKey } from '../helpers/holder.ts';
import { CARD_CLAIMS, CARD_SUBJECT, issuerPath, PRE_AUTH, proofJwt, registerType } from '../helpers/issuance.ts';
import { type PgProxy, railBehindProxy } from '../helpers/pg-proxy.ts';
import { owner, PUBLIC_URL, railSeconds, type TestRail } from '../helpers/rail.ts';

const OUTAGE_MS = 10_000;
const WORKERS = 4;

const postgres = testDatabases().find((f) => f.name === 'postgres');

describe('PostgreSQL unreachable for ten seconds mid-run', {
  skip: postgres ? false : 'PostgreSQL only (TEST_DATABASE_URL)',
}, () => {
  let db: TestDatabase;
  let proxy: PgProxy;
  let app: FastifyInstance;
  let typeId: string;
  let stop: (() => Promise<void>) | undefined;

  before(async () => {
    let rail: TestRail;
    ({ db, proxy, rail, stop } = await railBehindProxy(postgres as NonNullable<typeof postgres>));
    app = rail.app;
    ({ typeId } = await registerType(app, 'root', 'Outage card', CARD_CLAIMS));
  });
  after(() => stop?.());

  /** Every answer seen: its status, and its error code when it is not a success. */
  const answers: Array<{ status: number; error?: string; retryAfter?: string }> = [];
  const note = (res: { statusCode: number; body: string; headers: Record<string, unknown> }) => {
    const ok = res.statusCode === 200 || res.statusCode === 201;
    const error = ok ? undefined : (JSON.parse(res.body) as { error?: string }).error;
    answers.push({
      status: res.statusCode,
      ...(error ? { error } : {}),
      ...(typeof res.headers['retry-after'] === 'string' ? { retryAfter: res.headers['retry-after'] } : {}),
    });
    return ok ? (JSON.parse(res.body) as Record<string, unknown>) : undefined;
  };

  /** One whole issuance, as far as the database lets it go: offer, token, credential. */
  async function issueOnce(): Promise<boolean> {
    const offer = note(
      await app.inject({
        method: 'POST',
        url: '/api/offers',
        headers: owner,
        payload: { tenant: 'root', typeId, subject: CARD_SUBJECT },
      }),
    );
    if (!offer) return false;
    const code = JSON.parse(new URL(String(offer.offerUri)).searchParams.get('credential_offer') ?? '{}').grants[PRE_AUTH][
      'pre-authorized_code'
    ] as string;
    const token = note(
      await app.inject({
        method: 'POST',
        url: '/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ grant_type: PRE_AUTH, 'pre-authorized_code': code }).toString(),
      }),
    );
    if (!token) return false;
    const key = await newHolderKey();
    const proof = await proofJwt(key, {
      aud: `${PUBLIC_URL}${issuerPath('root')}`,
      nonce: String(token.c_nonce),
      iat: railSeconds(app),
    });
    const credential = note(
      await app.inject({
        method: 'POST',
        url: '/credential',
        headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ credential_configuration_id: typeId, proofs: { jwt: [proof] } }),
      }),
    );
    return credential !== undefined;
  }

  test('every request is answered (its result or 503 database_unavailable); the service recovers by itself; nothing is half-written', async () => {
    assert.equal(await issueOnce(), true, 'issuance works before the outage');
    let running = true;
    let during = 0;
    let outage = false;
    const loops = Array.from({ length: WORKERS }, async () => {
      while (running) {
        const before = answers.length;
        await issueOnce();
        if (outage) during += answers.length - before;
      }
    });
    await new Promise((r) => setTimeout(r, 500));
    proxy.interrupt();
    outage = true;
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    outage = false;
    await proxy.resume();
    await new Promise((r) => setTimeout(r, 1000));
    running = false;
    await Promise.all(loops);

    // A request whose commit (or single write) was on the wire when the connection was cut cannot
    // know its outcome: commit_unknown. The check below finds whether anything was half-made.
    const unexpected = answers.filter(
      (a) =>
        ![200, 201, 503].includes(a.status) ||
        (a.status === 503 && a.error !== 'database_unavailable' && a.error !== 'commit_unknown'),
    );
    assert.deepEqual(unexpected, [], 'only results, 503 database_unavailable and 503 commit_unknown');
    const refused = answers.filter((a) => a.status === 503);
    assert.ok(
      during > 0 && refused.length > 0,
      `requests were answered during the outage: ${during} answers, ${refused.length} refused`,
    );
    assert.ok(
      refused.every((a) => a.retryAfter === '5'),
      'each 503 says when to try again',
    );
    // The same process, without a restart, serves again.
    assert.equal(await issueOnce(), true, 'issuance works after the outage');

    // Nothing half-written, read directly (not through the proxy).
    const direct = openTestDb(db);
    try {
      const { rows } = await sql.raw<Record<string, number>>(HALF_WRITTEN).execute(direct);
      assert.deepEqual(rows[0], NONE_HALF_WRITTEN);
    } finally {
      await direct.destroy();
    }
  });
});
