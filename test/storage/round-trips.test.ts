/**
 * Round trips to PostgreSQL on the hot paths (issue 32; docs/scaling.md), counted by the same
 * proxy the bench puts between openrail and a distant database (test/helpers/pg-proxy.ts): each
 * exchange on a connection, a request and the answer it waits for, is one. The issue's targets:
 * an issuance (token, nonce and credential requests) in at most 5, a hosted verification's
 * response in at most 3. The others are what each path makes today, so that one more round trip
 * fails here rather than going unseen: a revocation, a deposit, a webhook lane's deliveries, and
 * audited operator writes (a tenant created, a partner's stage moved, an organisation's suspension
 * approved). Issue 54's: a HAIP issuance (the authorization code flow, PAR to credential) in at
 * most 12.
 * This counts; it never times anything. PostgreSQL only: SQLite has no network between openrail
 * and its data.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import { webhooksModule } from '../../src/features/webhooks/module.ts';
import { testDatabases } from '../helpers/databases.ts';
import { billBody } from '../helpers/deposits.ts';
import {
  approvalForm,
  newHaipWallet,
  newWalletProvider,
  REDIRECT_URI,
  returnLink,
  type WalletProvider,
} from '../helpers/haip-wallet.ts';
import { accountOf, newHolderKey } from '../helpers/holder.ts';
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
import { signedInOperator } from '../helpers/operators.ts';
import { type PgProxy, railBehindProxy } from '../helpers/pg-proxy.ts';
import { formBody, openVerification, present } from '../helpers/presentation.ts';
import { owner, PUBLIC_URL, railSeconds, type TestRail } from '../helpers/rail.ts';
import { type Receiver, startReceiver } from '../helpers/receiver.ts';

/** The targets: what each operation may cost at most, in round trips. */
const ROUND_TRIP_TARGETS = {
  issuance: 5,
  verificationResponse: 3,
  /**
   * One credential: the tenant read, then in one transaction (begin, commit) the revocation's one
   * statement, and the audit entry with its `credential.revoked` event in another (the head
   * locked, moved and the entry hashed by PostgreSQL: sql-audit-trail.ts). It was 7 when the
   * head, the entry and the event were three.
   */
  revocation: 5,
  /**
   * The tenant's status, then in one transaction (begin, commit): the deposit and the product read,
   * the deposit chain's head, the deposit with its head's move, the wallet item, and the audit
   * entry with its `deposit.created` event. It was 11 when the audit entry and the event were three.
   */
  deposit: 9,
  /**
   * A drain of WEBHOOK_BACKLOG deliveries to one endpoint: one record each, and 10 for the drain
   * (the routing: the events and endpoints read, then the marks and deliveries as one statement;
   * the lane's claim, its reads before and after the batch, its release, and the looks for more
   * work). It was 16 when the routing was a transaction (begin, the router's lock, the reads, the
   * deliveries, the marks, commit), each pass preceded by a read of whether anything waited.
   */
  webhookDrain: 20 + 10,
  /**
   * An audited operator write, POST /api/tenants: the free slug read, then in one transaction
   * (begin, commit) the tenant store's savepoint, the tenant and its issuer key, and the audit
   * entry with its `org.created` event as one statement. It was 9 when the audit head's move, the
   * entry (with the head's new hash) and the event were a round trip each.
   */
  tenantCreation: 7,
  /**
   * One HAIP credential through the authorization code flow (docs/haip.md), from an offer's
   * issuer_state (32 before issue 54): PAR 3 (the anonymous budget; the issuer with the offer;
   * the proof of possession's mark with the request), the authorization page 1 (the request opened
   * by one update that checks its issuer and answers both), the approval 1 (the code granted by one
   * update that checks the issuer and answers the request), the token 2 (the issuer with the
   * request of the code; the proof's mark, the code, the offer's code and the access token in one
   * statement), the nonce 0, the credential 3 (as `issuance` above). It was 12 when each page read
   * the tenant first.
   */
  haipIssuance: 10,
  /**
   * POST /api/admin/partners/{id}/stage (to screening): the application read, then in one
   * transaction (begin, commit) the conditional stage move, its history entry, the partner's keys
   * read and its team's sessions ended (a stage that does not sign in), and the audit entry with its
   * `partner.stage_changed` event as one statement; then the application read for the answer. It
   * was 10 when the event was a statement of its own.
   */
  partnerStageMove: 9,
  /**
   * POST /api/admin/approvals/{id}/approve of an org.suspend: the approver's session and operator,
   * the approval, and the four-eyes check of linked operators; then in one transaction (begin,
   * commit) the approval decided, the tenant's status moved, its lifecycle's last seq read and the
   * entry inserted, the `org.suspended` audit entry with its event as one statement, the approval's
   * result and its `approval.approved` audit entry; then the approval read for the answer. It was
   * 15 when the event was a statement of its own.
   */
  orgSuspension: 14,
} as const;
const WEBHOOK_BACKLOG = 20;

const postgres = testDatabases().find((f) => f.name === 'postgres');

describe('round trips to PostgreSQL on the hot paths', { skip: postgres ? false : 'PostgreSQL only (TEST_DATABASE_URL)' }, () => {
  let proxy: PgProxy;
  let rail: TestRail;
  let receiver: Receiver;
  let app: FastifyInstance;
  let typeId: string;
  let vct: string;
  let stop: (() => Promise<void>) | undefined;
  let walletProvider: WalletProvider;

  before(async () => {
    receiver = await startReceiver();
    walletProvider = await newWalletProvider();
    // Jobs stay off, so every round trip counted is the request's own.
    ({ proxy, rail, stop } = await railBehindProxy(
      postgres as NonNullable<typeof postgres>,
      { recordStatements: true },
      { OPENRAIL_OUTBOUND_ALLOW: receiver.origin, OPENRAIL_WALLET_ATTESTATION_ANCHORS_FILE: walletProvider.anchorFile },
    ));
    app = rail.app;
    ({ typeId, vct } = await registerType(app, 'root', 'Round trip card', CARD_CLAIMS));
  });
  after(async () => {
    await stop?.();
    await receiver?.close();
  });

  /** The round trips `send` makes, once the pool's connections are open (a cold connection is not the request's). */
  async function counted<T>(send: () => Promise<T>): Promise<{ value: T; trips: number }> {
    proxy.reset();
    const value = await send();
    return { value, trips: proxy.roundTrips() };
  }

  async function issuance() {
    const { code, offerId } = await createOffer(app, { tenant: 'root', typeId, subject: CARD_SUBJECT });
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
      offerId,
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

  const post = (url: string, payload?: unknown) =>
    app.inject({ method: 'POST', url, headers: owner, ...(payload === undefined ? {} : { payload: payload as object }) });

  /** Asserts `trips` within `target`, naming what each round trip sent when it is not. */
  function within(trips: number, target: number, what: string) {
    assert.ok(trips > 0, `the counter sees ${what}`);
    assert.ok(
      trips <= target,
      `${what} made ${trips} round trips (at most ${target}):\n${JSON.stringify(proxy.trips(), null, 1)}`,
    );
  }

  test(`a revocation makes at most ${ROUND_TRIP_TARGETS.revocation} round trips`, async (t) => {
    let trips = 0;
    for (let i = 0; i < 2; i++) {
      const { offerId } = await issuance();
      const revoked = await counted(() => post('/api/revoke', { tenant: 'root', offerId }));
      assert.equal(revoked.value.statusCode, 200, revoked.value.body);
      assert.equal(revoked.value.json().revoked.length, 1);
      trips = revoked.trips;
    }
    t.diagnostic(`round trips: ${trips}`);
    within(trips, ROUND_TRIP_TARGETS.revocation, 'a revocation');
  });

  test(`a deposit makes at most ${ROUND_TRIP_TARGETS.deposit} round trips`, async (t) => {
    const product = await post('/api/products', { tenant: 'root', kind: 'bill', name: 'Water' });
    assert.equal(product.statusCode, 201, product.body);
    assert.equal((await post(`/api/products/${product.json().productId}/approve`)).statusCode, 200);
    let trips = 0;
    for (let i = 0; i < 2; i++) {
      const account = accountOf(await newHolderKey());
      assert.equal((await post('/api/members/enroll', { tenant: 'root', accountId: account })).statusCode, 201);
      const deposited = await counted(() => post('/api/tenants/root/bills', billBody(account)));
      assert.equal(deposited.value.statusCode, 201, deposited.value.body);
      trips = deposited.trips;
    }
    t.diagnostic(`round trips: ${trips}`);
    within(trips, ROUND_TRIP_TARGETS.deposit, 'a deposit');
  });

  test(`an audited operator write (a tenant created) makes at most ${ROUND_TRIP_TARGETS.tenantCreation} round trips`, async (t) => {
    let trips = 0;
    for (let i = 0; i < 2; i++) {
      const made = await counted(() => post('/api/tenants', { name: `Round Trip Club ${i}` }));
      assert.equal(made.value.statusCode, 201, made.value.body);
      trips = made.trips;
    }
    t.diagnostic(`round trips: ${trips}`);
    within(trips, ROUND_TRIP_TARGETS.tenantCreation, 'a tenant creation');
  });

  test(`a partner's stage move makes at most ${ROUND_TRIP_TARGETS.partnerStageMove} round trips`, async (t) => {
    let trips = 0;
    for (let i = 0; i < 2; i++) {
      const filed = await post('/api/admin/partners', {
        kind: 'issuer',
        organisation: `Round Trip Partner ${i}`,
        contactName: 'Ada Lovelace',
        contactEmail: `partner-${i}@round-trips.example`,
        country: 'BE',
        website: 'https://round-trips.example',
        useCase: 'We count the round trips of a stage move.',
      });
      assert.equal(filed.statusCode, 201, filed.body);
      const moved = await counted(() => post(`/api/admin/partners/${filed.json().applicationId}/stage`, { stage: 'screening' }));
      assert.equal(moved.value.statusCode, 200, moved.value.body);
      trips = moved.trips;
    }
    t.diagnostic(`round trips: ${trips}`);
    within(trips, ROUND_TRIP_TARGETS.partnerStageMove, "a partner's stage move");
  });

  test(`an organisation's suspension approved makes at most ${ROUND_TRIP_TARGETS.orgSuspension} round trips`, async (t) => {
    const approver = await signedInOperator(app, 'round-trips-ops', ['ops']);
    let trips = 0;
    for (let i = 0; i < 2; i++) {
      const made = await post('/api/admin/orgs', { name: `Round Trip Suspended ${i}` });
      assert.equal(made.statusCode, 201, made.body);
      const filed = await post(`/api/admin/orgs/${made.json().org.slug}/suspend`, { reason: 'Counting round trips' });
      assert.equal(filed.statusCode, 202, filed.body);
      const approved = await counted(() =>
        app.inject({
          method: 'POST',
          url: `/api/admin/approvals/${filed.json().approval.approvalId}/approve`,
          headers: approver,
          payload: {},
        }),
      );
      assert.equal(approved.value.statusCode, 200, approved.value.body);
      assert.equal(approved.value.json().approval.state, 'approved', approved.value.body);
      trips = approved.trips;
    }
    t.diagnostic(`round trips: ${trips}`);
    within(trips, ROUND_TRIP_TARGETS.orgSuspension, "an organisation's suspension approved");
  });

  test(`a webhook lane delivers ${WEBHOOK_BACKLOG} events in at most ${ROUND_TRIP_TARGETS.webhookDrain} round trips`, async (t) => {
    const dispatcher = (await rail.services(webhooksModule)).dispatcher;
    const made = await post('/api/admin/integration/webhooks', {
      tenant: 'root',
      url: `${receiver.origin}/hook`,
      events: ['offer.created'],
    });
    assert.equal(made.statusCode, 201, made.body);
    await dispatcher.runOnce(); // the registration's ping
    for (let i = 0; i < WEBHOOK_BACKLOG; i++) await createOffer(app, { tenant: 'root', typeId, subject: CARD_SUBJECT });
    const before = receiver.received.length;
    const drain = await counted(() => dispatcher.runOnce());
    assert.equal(receiver.received.length - before, WEBHOOK_BACKLOG, 'every event is delivered in the one drain');
    t.diagnostic(`round trips: ${drain.trips} for ${WEBHOOK_BACKLOG} deliveries`);
    within(drain.trips, ROUND_TRIP_TARGETS.webhookDrain, `a drain of ${WEBHOOK_BACKLOG} deliveries`);
  });

  test(`a HAIP issuance (PAR, authorization page, approval, token, nonce, credential) makes at most ${ROUND_TRIP_TARGETS.haipIssuance} round trips`, async (t) => {
    const tenant = (await post('/api/tenants', { name: 'HAIP Round Trips' })).json().slug as string;
    const flow = await post('/api/tenants/authorization-flow', { tenant, haipIssuance: true });
    assert.equal(flow.statusCode, 200, flow.body);
    const type = await registerType(app, tenant, 'HAIP round trip card', CARD_CLAIMS);
    const issuer = `${PUBLIC_URL}/t/${tenant}`;
    const formType = { 'content-type': 'application/x-www-form-urlencoded' };
    const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
    // The server's DPoP nonce, kept from one issuance to the next as a wallet keeps it (the first proof is asked for one).
    let dpopNonce: string | undefined;

    /** One credential, as a HAIP wallet and its holder's browser collect it; the round trips of each step. */
    const haipIssuance = async () => {
      const { code: issuerState } = await createOffer(app, { tenant, typeId: type.typeId, subject: CARD_SUBJECT });
      const wallet = await newHaipWallet(walletProvider, PUBLIC_URL);
      const verifier = randomBytes(32).toString('base64url');
      const attested = async () => ({
        'oauth-client-attestation': wallet.attestationJwt,
        'oauth-client-attestation-pop': await wallet.pop(issuer),
      });
      /** A DPoP request, retried once with the server nonce when asked for one, as wallets do. */
      const withDpop = async (
        url: string,
        send: (dpop: string) => Promise<Awaited<ReturnType<typeof app.inject>>>,
        accessToken?: string,
      ) => {
        const proof = () =>
          wallet.dpopProof('POST', `${PUBLIC_URL}${url}`, {
            ...(dpopNonce ? { nonce: dpopNonce } : {}),
            ...(accessToken ? { accessToken } : {}),
          });
        let res = await send(await proof());
        const fresh = res.headers['dpop-nonce'];
        if ((res.statusCode === 400 || res.statusCode === 401) && typeof fresh === 'string') {
          dpopNonce = fresh;
          res = await send(await proof());
        }
        return res;
      };
      const headers = await attested();
      const par = await counted(async () =>
        app.inject({
          method: 'POST',
          url: `/t/${tenant}/par`,
          headers: { ...formType, ...headers },
          payload: form({
            response_type: 'code',
            client_id: wallet.clientId,
            issuer_state: issuerState,
            code_challenge: createHash('sha256').update(verifier).digest('base64url'),
            code_challenge_method: 'S256',
            redirect_uri: REDIRECT_URI,
            state: 'round-trips',
          }),
        }),
      );
      assert.equal(par.value.statusCode, 201, par.value.body);
      const requestUri = par.value.json().request_uri as string;
      const opened = await counted(() =>
        app.inject({
          method: 'GET',
          url: `/t/${tenant}/authorize?${new URLSearchParams({ client_id: wallet.clientId, request_uri: requestUri })}`,
          headers: { accept: 'text/html' },
        }),
      );
      assert.equal(opened.value.statusCode, 200, opened.value.body);
      const cookie = String([opened.value.headers['set-cookie']].flat()[0]).split(';')[0] as string;
      const { action, authorization } = approvalForm(opened.value.body);
      const approved = await counted(() =>
        app.inject({
          method: 'POST',
          url: action,
          headers: { ...formType, cookie, origin: new URL(PUBLIC_URL).origin },
          payload: form({ authorization, decision: 'approve' }),
        }),
      );
      assert.equal(approved.value.statusCode, 200, approved.value.body);
      const code = new URL(returnLink(approved.value.body)).searchParams.get('code') as string;
      const tokenHeaders = await attested();
      const token = await counted(() =>
        withDpop(`/t/${tenant}/token`, (dpop) =>
          app.inject({
            method: 'POST',
            url: `/t/${tenant}/token`,
            headers: { ...formType, ...tokenHeaders, dpop },
            payload: form({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT_URI }),
          }),
        ),
      );
      assert.equal(token.value.statusCode, 200, token.value.body);
      const accessToken = token.value.json().access_token as string;
      const nonce = await counted(() => freshNonce(app, tenant));
      const proof = await proofJwt(wallet.holderKey, { aud: issuer, nonce: nonce.value, iat: railSeconds(app) });
      const credential = await counted(() =>
        withDpop(
          `/t/${tenant}/credential`,
          (dpop) =>
            app.inject({
              method: 'POST',
              url: `/t/${tenant}/credential`,
              headers: { authorization: `DPoP ${accessToken}`, dpop, 'content-type': 'application/json' },
              payload: JSON.stringify({ credential_configuration_id: type.typeId, proofs: { jwt: [proof] } }),
            }),
          accessToken,
        ),
      );
      assert.equal(credential.value.statusCode, 200, credential.value.body);
      return {
        par: par.trips,
        authorize: opened.trips,
        approve: approved.trips,
        token: token.trips,
        nonce: nonce.trips,
        credential: credential.trips,
      };
    };
    await haipIssuance(); // warms the pool and the prepared statements, and gets the server's DPoP nonce
    const trips = await haipIssuance();
    const total = Object.values(trips).reduce((a, b) => a + b, 0);
    t.diagnostic(`round trips: ${total} ${JSON.stringify(trips)}`);
    assert.ok(total > 0, 'the counter sees the issuance');
    assert.ok(total <= ROUND_TRIP_TARGETS.haipIssuance, `a HAIP issuance made ${total} round trips: ${JSON.stringify(trips)}`);
  });
});
