/**
 * Round trips to PostgreSQL on the hot paths (issue 32; docs/scaling.md), counted by the same
 * proxy the bench puts between openrail and a distant database (test/helpers/pg-proxy.ts): each
 * exchange on a connection, a request and the answer it waits for, is one. The targets are the
 * issue's: an issuance (token, nonce and credential requests) in at most 5, a hosted
 * verification's response in at most 3. This counts; it never times anything. PostgreSQL only:
 * SQLite has no network between openrail and its data.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import { type TestDatabase, testDatabases } from '../helpers/databases.ts';
import { newHolderKey } from '../helpers/holder.ts';
import {
  accessToken,
  CARD_CLAIMS,
  CARD_SUBJECT,
  createOffer,
  freshNonce,
  issuerPath,
  proofJwt,
  registerType,
  requestCredential,
} from '../helpers/issuance.ts';
import { type PgProxy, startPgProxy } from '../helpers/pg-proxy.ts';
import { formBody, openVerification, present } from '../helpers/presentation.ts';
import { PUBLIC_URL, railSeconds, startRail, type TestRail } from '../helpers/rail.ts';

/** The targets: what each operation may cost at most, in round trips. */
const ROUND_TRIP_TARGETS = { issuance: 5, verificationResponse: 3 } as const;

const postgres = testDatabases().find((f) => f.name === 'postgres');

describe('round trips to PostgreSQL on the hot paths', { skip: postgres ? false : 'PostgreSQL only (TEST_DATABASE_URL)' }, () => {
  let db: TestDatabase;
  let proxy: PgProxy;
  let rail: TestRail;
  let app: FastifyInstance;
  let typeId: string;
  let vct: string;

  before(async () => {
    db = await (postgres as NonNullable<typeof postgres>).create();
    proxy = await startPgProxy(db.location.kind === 'postgres' ? db.location.url : '');
    // Jobs stay off, so every round trip counted is the request's own.
    rail = await startRail({ ...db, location: { kind: 'postgres', url: proxy.url } }, {}, undefined, { runJobs: false });
    app = rail.app;
    ({ typeId, vct } = await registerType(app, 'root', 'Round trip card', CARD_CLAIMS));
  });
  after(async () => {
    await rail?.stop();
    await proxy?.stop();
    await db?.drop();
  });

  /** The round trips `send` makes, once the pool's connections are open (a cold connection is not the request's). */
  async function counted<T>(send: () => Promise<T>): Promise<{ value: T; trips: number }> {
    proxy.reset();
    const value = await send();
    return { value, trips: proxy.roundTrips() };
  }

  async function issuance() {
    const { code } = await createOffer(app, { tenant: 'root', typeId, subject: CARD_SUBJECT });
    const key = await newHolderKey();
    const token = await counted(() => accessToken(app, 'root', code));
    const nonce = await counted(() => freshNonce(app, 'root'));
    const proof = await proofJwt(key, { aud: `${PUBLIC_URL}${issuerPath('root')}`, nonce: nonce.value, iat: railSeconds(app) });
    const credential = await counted(() =>
      requestCredential(app, 'root', token.value.access_token, {
        credential_configuration_id: typeId,
        proofs: { jwt: [proof] },
      }),
    );
    assert.equal(credential.value.statusCode, 200, credential.value.body);
    return {
      trips: { token: token.trips, nonce: nonce.trips, credential: credential.trips },
      issued: { credential: credential.value.json().credentials[0].credential as string, key },
    };
  }

  test(`an issuance (token, nonce, credential) makes at most ${ROUND_TRIP_TARGETS.issuance} round trips`, async (t) => {
    await issuance(); // warms the pool and the prepared statements
    const { trips } = await issuance();
    const total = trips.token + trips.nonce + trips.credential;
    t.diagnostic(`round trips: ${JSON.stringify(trips)}`);
    assert.ok(total > 0, 'the counter sees the issuance');
    assert.ok(total <= ROUND_TRIP_TARGETS.issuance, `an issuance made ${total} round trips: ${JSON.stringify(trips)}`);
  });

  test(`a hosted verification's response makes at most ${ROUND_TRIP_TARGETS.verificationResponse} round trips`, async (t) => {
    const { issued } = await issuance();
    const verify = async () => {
      const opened = await counted(() => openVerification(app, vct, ['holder_name']));
      const { transactionId, resultToken } = opened.value;
      const object = await counted(() => app.inject({ method: 'GET', url: `/oid4vp/request/${transactionId}` }));
      const request = decodeJwt(object.value.body) as { nonce: string; state: string };
      const vp = await present(issued.credential, issued.key, ['holder_name'], { nonce: request.nonce, iat: railSeconds(app) });
      const response = await counted(() =>
        app.inject({
          method: 'POST',
          url: '/oid4vp/response',
          ...formBody({ vp_token: JSON.stringify({ credential: [vp] }), state: request.state }),
        }),
      );
      assert.equal(response.value.statusCode, 200, response.value.body);
      const result = await counted(() =>
        app.inject({
          method: 'GET',
          url: `/verify/result/${transactionId}`,
          headers: { authorization: `Bearer ${resultToken}` },
        }),
      );
      assert.equal(result.value.json().outcome.ok, true, result.value.body);
      return { request: opened.trips, requestObject: object.trips, response: response.trips, result: result.trips };
    };
    await verify();
    const trips = await verify();
    t.diagnostic(`round trips: ${JSON.stringify(trips)}`);
    assert.ok(trips.response > 0, 'the counter sees the response');
    assert.ok(
      trips.response <= ROUND_TRIP_TARGETS.verificationResponse,
      `the response made ${trips.response} round trips: ${JSON.stringify(trips)}`,
    );
  });
});
