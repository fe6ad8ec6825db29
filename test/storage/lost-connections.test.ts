/**
 * A PostgreSQL connection lost under one request, as a failover loses it (issue 51;
 * docs/high-availability.md, "What a client sees"), made exact by the proxy's one cut:
 * - lost before the commit, a unit of work is run once more and succeeds, its rows made once;
 * - lost after the COMMIT reached the server, the answer is `503 commit_unknown` (the change was
 *   made; asking again is refused as a repeat would be), never a 500 and never a second run;
 * - lost after a write sent on its own reached the server (a pre-authorized code redeemed in one
 *   statement), the same `commit_unknown`, and the code stays spent: single use holds;
 * - a standby's refusal of writes (SQLSTATE 25006) is `database_unavailable`, and a node that
 *   reaches no writable database is not ready.
 * PostgreSQL only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type Db, openDatabase } from '../../src/adapters/sql/connect.ts';
import { pingWritable } from '../../src/adapters/sql/kernel/cluster-state.ts';
import { ServiceError } from '../../src/core/errors.ts';
import { openTestDb, type TestDatabase, testDatabases } from '../helpers/databases.ts';
import { CARD_CLAIMS, CARD_SUBJECT, PRE_AUTH, registerType } from '../helpers/issuance.ts';
import { type PgProxy, railBehindProxy } from '../helpers/pg-proxy.ts';
import { owner, type TestRail } from '../helpers/rail.ts';

const postgres = testDatabases().find((f) => f.name === 'postgres');

describe('a PostgreSQL connection lost under a request', {
  skip: postgres ? false : 'PostgreSQL only (TEST_DATABASE_URL)',
}, () => {
  let db: TestDatabase;
  let direct: Db;
  let proxy: PgProxy;
  let app: FastifyInstance;
  let typeId: string;
  let stop: (() => Promise<void>) | undefined;

  before(async () => {
    let rail: TestRail;
    ({ db, proxy, rail, stop } = await railBehindProxy(postgres as NonNullable<typeof postgres>, { recordStatements: true }));
    app = rail.app;
    direct = openTestDb(db);
    ({ typeId } = await registerType(app, 'root', 'Lost card', CARD_CLAIMS));
  });
  after(async () => {
    await direct?.destroy();
    await stop?.();
  });

  const newTenant = (name: string) => app.inject({ method: 'POST', url: '/api/tenants', headers: owner, payload: { name } });
  /** What a tenant's creation wrote, read past the proxy: its rows, audit entries and events. */
  const written = async (slug: string) => ({
    tenants: (await direct.selectFrom('tenants').select('slug').where('slug', '=', slug).execute()).length,
    audit: (await direct.selectFrom('audit_log').select('seq').where('target', '=', slug).execute()).length,
    events: (await direct.selectFrom('outbox').select('id').where('tenant', '=', slug).execute()).length,
  });

  test('lost before the commit: the unit of work runs once more and its writes are made once', async () => {
    proxy.cutOnce(/^insert into "tenants"/, 'before');
    const made = await newTenant('Before Commit');
    assert.ok(proxy.cut(), 'the connection was cut under the transaction');
    assert.equal(made.statusCode, 201, made.body);
    assert.deepEqual(await written(made.json().slug), { tenants: 1, audit: 1, events: 1 });
  });

  test('lost after the COMMIT reached the server: 503 commit_unknown, made once; asked again, it is made again (a client reads first)', async () => {
    proxy.cutOnce(/^commit/, 'after');
    const lost = await newTenant('After Commit');
    assert.ok(proxy.cut());
    assert.equal(lost.statusCode, 503, lost.body);
    assert.equal(lost.json().error, 'commit_unknown');
    assert.equal(lost.headers['retry-after'], '5');
    const slug = 'after-commit';
    assert.deepEqual(await written(slug), { tenants: 1, audit: 1, events: 1 }, 'the commit was made, once');
    const again = await newTenant('After Commit');
    assert.equal(again.statusCode, 201, again.body);
    assert.notEqual(again.json().slug, slug, 'asked again, it is a new tenant: the client reads before it repeats');
    assert.deepEqual(await written(slug), { tenants: 1, audit: 1, events: 1 }, 'nothing of the first was made twice');
  });

  test('lost after a single-statement write reached the server: commit_unknown, and the code stays spent', async () => {
    const offer = await app.inject({
      method: 'POST',
      url: '/api/offers',
      headers: owner,
      payload: { tenant: 'root', typeId, subject: CARD_SUBJECT },
    });
    assert.equal(offer.statusCode, 201, offer.body);
    const code = JSON.parse(new URL(String(offer.json().offerUri)).searchParams.get('credential_offer') ?? '{}').grants[PRE_AUTH][
      'pre-authorized_code'
    ] as string;
    const redeem = () =>
      app.inject({
        method: 'POST',
        url: '/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ grant_type: PRE_AUTH, 'pre-authorized_code': code }).toString(),
      });
    proxy.cutOnce(/update offers set redeemed_at/, 'after');
    const lost = await redeem();
    assert.ok(proxy.cut());
    assert.equal(lost.statusCode, 503, lost.body);
    assert.equal(lost.json().error, 'commit_unknown');
    const tokens = await direct
      .selectFrom('access_tokens')
      .select('grant_id')
      .where('grant_id', '=', offer.json().offerId)
      .execute();
    assert.equal(tokens.length, 1, 'the redemption was made, once');
    const again = await redeem();
    assert.equal(again.statusCode, 400, again.body);
    assert.equal(again.json().error, 'invalid_grant', 'the code was spent: single use holds across the lost answer');
  });

  test('a standby refusing writes (25006) is database_unavailable, and a node on it is not writable', async () => {
    const location = db.location.kind === 'postgres' ? db.location : undefined;
    assert.ok(location);
    const readOnly = openDatabase(location, {
      ...(db.schema ? { schema: db.schema } : {}),
      settings: { default_transaction_read_only: 'on' },
    });
    try {
      await assert.rejects(readOnly.deleteFrom('settings').where('name', '=', 'nothing').execute(), (err) => {
        assert.ok(err instanceof ServiceError, String(err));
        assert.equal(err.code, 'database_unavailable');
        return true;
      });
      await assert.rejects(pingWritable(readOnly), /takes no writes/);
      await pingWritable(direct);
    } finally {
      await readOnly.destroy();
    }
  });
});
