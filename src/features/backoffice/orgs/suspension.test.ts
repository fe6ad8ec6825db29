import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import { type TestDatabase, testDatabases } from '../../../../test/helpers/databases.ts';
import { billBody } from '../../../../test/helpers/deposits.ts';
import { newHolderKey } from '../../../../test/helpers/holder.ts';
import {
  accessToken,
  createOffer,
  issueOne,
  issuerId,
  proofJwt,
  redeem,
  registerType,
  requestCredential,
} from '../../../../test/helpers/issuance.ts';
import { signedInOperator } from '../../../../test/helpers/operators.ts';
import { CLIENT_ID, present } from '../../../../test/helpers/presentation.ts';
import { bearer, owner, startRail, type TestRail } from '../../../../test/helpers/rail.ts';
import { rowCounts } from '../../../../test/helpers/refusals.ts';
import { verifyPresentation } from '../../../core/verifier/verify-presentation.ts';

/** No array claims: the verifiers check top-level disclosures only. */
const CLAIMS = ['holder_name', 'student:bool'];
const SUBJECT = { holder_name: 'Ada Lovelace', student: false };
const PRE_AUTH = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
const ORGS = '/api/admin/orgs';
const TABLES = ['tenants', 'org_lifecycle', 'audit_log', 'outbox', 'approvals'] as const;

type Headers = Record<string, string>;

/**
 * Suspension through four eyes (docs/backoffice/orgs.md, "Suspension"), end to end: one operator
 * files it, a second approves, and then the tenant issues nothing while what it issued stays
 * verifiable; reactivation restores issuance.
 */
for (const factory of testDatabases()) {
  describe(`suspending an organisation (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let slug: string;
    let typeId: string;
    let vct: string;
    let ops1: Headers;
    let ops2: Headers;
    let analyst: Headers;
    let ownAdmin: Headers;
    let integrationToken: string;

    const post = (url: string, payload: unknown, headers: Headers = owner) =>
      rail.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });
    const get = (url: string, headers: Headers = owner) => rail.app.inject({ method: 'GET', url, headers });
    const counts = () => rowCounts(rail.db, TABLES);

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, { OPENRAIL_DEMO: 'off' });
      const made = await post(ORGS, { name: 'Ghent Transit' });
      assert.equal(made.statusCode, 201, made.body);
      slug = made.json().org.slug;
      ({ typeId, vct } = await registerType(rail.app, slug, 'Pass', CLAIMS));
      ops1 = await signedInOperator(rail.app, 'ops-one', ['ops']);
      ops2 = await signedInOperator(rail.app, 'ops-two', ['ops']);
      analyst = await signedInOperator(rail.app, 'ana', ['analyst']);
      ownAdmin = await signedInOperator(rail.app, 'ghent-admin', ['tenant-admin'], slug);
      const olga = await signedInOperator(rail.app, 'olga', ['owner']);
      const opened = await post('/api/admin/integration/provisioning', {
        tenant: slug,
        label: 'Ticketing',
        reason: 'Nightly offers',
        scopes: ['issuance'],
        rateClass: 'standard',
      });
      assert.equal(opened.statusCode, 201, opened.body);
      const minted = await post('/api/admin/integration/tokens', { requestId: opened.json().request.id }, olga);
      assert.equal(minted.statusCode, 201, minted.body);
      integrationToken = minted.json().token.secret;
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    /** Offers with the integration token, as an integrator would. */
    const offerWithToken = () => post('/api/offers', { tenant: slug, typeId, subject: SUBJECT }, bearer(integrationToken));

    test('suspension needs a second operator, and then the tenant issues nothing while what it issued stays verifiable', async () => {
      assert.equal((await offerWithToken()).statusCode, 201, 'the token offers while the tenant is active');
      const issued = await issueOne(rail.app, slug, typeId, SUBJECT);
      // A code offered before the suspension, and an access token redeemed before it.
      const pending = await createOffer(rail.app, { tenant: slug, typeId, subject: SUBJECT });
      const redeemedEarlier = await createOffer(rail.app, { tenant: slug, typeId, subject: SUBJECT });
      const early = await accessToken(rail.app, slug, redeemedEarlier.code);

      // Neither a tenant-admin nor an analyst may ask for it; the platform tenant cannot be suspended.
      assert.equal((await post(`${ORGS}/${slug}/suspend`, { reason: 'x' }, ownAdmin)).statusCode, 403);
      assert.equal((await post(`${ORGS}/${slug}/suspend`, { reason: 'x' }, analyst)).statusCode, 403);
      const rootRefused = await post(`${ORGS}/root/suspend`, { reason: 'x' }, ops1);
      assert.equal(rootRefused.statusCode, 409, rootRefused.body);
      assert.equal(rootRefused.json().error, 'org_state');

      const before = await counts();
      const filed = await post(`${ORGS}/${slug}/suspend`, { reason: 'Fraud report 42' }, ops1);
      assert.equal(filed.statusCode, 202, filed.body);
      const { approval, auditSeq, ok } = filed.json();
      assert.equal(ok, true);
      assert.equal(typeof auditSeq, 'number');
      assert.equal(approval.action, 'org.suspend');
      assert.equal(approval.state, 'pending');
      assert.deepEqual(approval.params, { slug, reason: 'Fraud report 42' });
      const afterFiling = await counts();
      assert.equal(afterFiling.tenants, before.tenants);
      assert.equal(afterFiling.org_lifecycle, before.org_lifecycle, 'filing suspends nothing');
      assert.equal((await get(`${ORGS}/${slug}/lifecycle`, analyst)).json().status, 'active');
      assert.equal((await offerWithToken()).statusCode, 201, 'still issuing while the approval is pending');

      const self = await post(`/api/admin/approvals/${approval.approvalId}/approve`, {}, ops1);
      assert.equal(self.statusCode, 403, self.body);
      assert.equal(self.json().error, 'same_operator');
      const approved = await post(`/api/admin/approvals/${approval.approvalId}/approve`, {}, ops2);
      assert.equal(approved.statusCode, 200, approved.body);
      assert.equal(approved.json().approval.state, 'approved');

      const lifecycle = (await get(`${ORGS}/${slug}/lifecycle`, ownAdmin)).json();
      assert.equal(lifecycle.status, 'suspended');
      assert.equal(lifecycle.reason, 'Fraud report 42');
      assert.equal(lifecycle.changes.length, 1);
      assert.deepEqual(
        { ...lifecycle.changes[0], at: undefined },
        {
          seq: 1,
          status: 'suspended',
          actor: 'operator:ops-two',
          reason: 'Fraud report 42',
          approvalId: approval.approvalId,
          at: undefined,
        },
      );
      const entry = await rail.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'org.suspended')
        .where('tenant', '=', slug)
        .executeTakeFirstOrThrow();
      assert.equal(entry.actor, 'operator:ops-two');
      assert.deepEqual(JSON.parse(entry.detail), {
        approvalId: approval.approvalId,
        requestedBy: 'operator:ops-one',
        reason: 'Fraud report 42',
      });
      const event = await rail.db
        .selectFrom('outbox')
        .selectAll()
        .where('type', '=', 'org.suspended')
        .where('tenant', '=', slug)
        .executeTakeFirstOrThrow();
      assert.equal(JSON.parse(event.data).approvalId, approval.approvalId);

      // Filing again is refused at once; so is approving a second suspension.
      const again = await post(`${ORGS}/${slug}/suspend`, { reason: 'twice' }, ops1);
      assert.equal(again.statusCode, 409, again.body);
      assert.equal(again.json().error, 'org_state');

      // It issues nothing: offers (by an operator or its token), its codes, its access tokens.
      const offered = await post('/api/offers', { tenant: slug, typeId, subject: SUBJECT });
      assert.equal(offered.statusCode, 403, offered.body);
      assert.equal(offered.json().error, 'tenant_suspended');
      const keyed = await offerWithToken();
      assert.equal(keyed.statusCode, 403, keyed.body);
      assert.equal(keyed.json().error, 'tenant_suspended');
      const keyedRead = await get(`/api/admin/integration/tokens?tenant=${slug}`, bearer(integrationToken));
      assert.equal(keyedRead.statusCode, 403, 'every request with its token is refused');
      assert.equal(keyedRead.json().error, 'tenant_suspended');
      const token = await redeem(rail.app, slug, { grant_type: PRE_AUTH, 'pre-authorized_code': pending.code });
      assert.equal(token.statusCode, 400, token.body);
      assert.equal(token.json().error, 'invalid_grant');
      assert.match(token.json().error_description, /suspended/);
      const key = await newHolderKey();
      const credential = await requestCredential(rail.app, slug, early.access_token, {
        credential_configuration_id: typeId,
        proofs: { jwt: [await proofJwt(key, { aud: issuerId(slug), nonce: early.c_nonce })] },
      });
      assert.equal(credential.statusCode, 400, credential.body);
      assert.equal(credential.json().error, 'credential_request_denied');
      // Nor does it put anything in wallets: a deposit is refused.
      const deposited = await post(
        `/api/tenants/${slug}/bills`,
        billBody('NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs', { depositId: 'bill-while-suspended' }),
      );
      assert.equal(deposited.statusCode, 403, deposited.body);
      assert.equal(deposited.json().error, 'tenant_suspended');

      // What it issued stays verifiable: its DID document, metadata and status list serve.
      const did = await get(`/t/${slug}/did.json`, {});
      assert.equal(did.statusCode, 200);
      assert.equal((await get(`/.well-known/openid-credential-issuer/t/${slug}`, {})).statusCode, 200);
      const status = (
        decodeJwt(issued.credential.split('~')[0] as string).status as { status_list: { uri: string; idx: number } }
      ).status_list;
      const list = await get(new URL(status.uri).pathname, {});
      assert.equal(list.statusCode, 200, list.body);

      // The conformance (reference) verifier, fed what the service publishes.
      const nonce = randomBytes(16).toString('base64url');
      const aud = 'https://shop.example';
      const vp = await present(issued.credential, issued.key, ['holder_name'], { aud, nonce });
      const result = verifyPresentation({
        presentation: vp,
        didDocument: did.json(),
        statusList: list.body,
        expected: { aud, nonce, vct, claims: ['holder_name'] },
        now: Math.floor(Date.now() / 1000),
      });
      assert.equal(result.verdict, 'accept', JSON.stringify(result.ledger));

      // Hosted verification at /verify.
      const opened = await post(
        '/verify/request',
        { vct, claims: ['holder_name'], nonce: randomBytes(18).toString('base64url'), aud },
        {},
      );
      assert.equal(opened.statusCode, 201, opened.body);
      const { transactionId, resultToken } = opened.json();
      const request = decodeJwt((await get(`/oid4vp/request/${transactionId}`, {})).body) as { nonce: string; state: string };
      const hostedVp = await present(issued.credential, issued.key, ['holder_name'], { aud: CLIENT_ID, nonce: request.nonce });
      const response = await rail.app.inject({
        method: 'POST',
        url: '/oid4vp/response',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ vp_token: JSON.stringify({ credential: [hostedVp] }), state: request.state }).toString(),
      });
      assert.equal(response.statusCode, 200, response.body);
      const outcome = (await get(`/verify/result/${transactionId}`, bearer(resultToken))).json().outcome;
      assert.equal(outcome.ok, true, JSON.stringify(outcome));

      // Operators still revoke its credentials.
      const revoked = await post('/api/revoke', { tenant: slug, status: { uri: status.uri, idx: status.idx } });
      assert.equal(revoked.statusCode, 200, revoked.body);
      assert.equal(revoked.json().revoked.length, 1, revoked.body);

      // Reactivation restores issuance, directly, for the platform's operators only.
      assert.equal((await post(`${ORGS}/${slug}/reactivate`, { reason: 'cleared' }, ownAdmin)).statusCode, 403);
      const reactivated = await post(`${ORGS}/${slug}/reactivate`, { reason: 'Report cleared' }, ops1);
      assert.equal(reactivated.statusCode, 200, reactivated.body);
      assert.equal(reactivated.json().ok, true);
      assert.equal(reactivated.json().lifecycle.status, 'active');
      assert.deepEqual(
        reactivated.json().lifecycle.changes.map((c: { status: string; actor: string }) => [c.status, c.actor]),
        [
          ['active', 'operator:ops-one'],
          ['suspended', 'operator:ops-two'],
        ],
      );
      const reactivatedEntry = await rail.db
        .selectFrom('audit_log')
        .select(['action', 'actor'])
        .where('seq', '=', reactivated.json().auditSeq)
        .executeTakeFirstOrThrow();
      assert.deepEqual(reactivatedEntry, { action: 'org.reactivated', actor: 'operator:ops-one' });
      assert.equal((await rail.db.selectFrom('outbox').select('id').where('type', '=', 'org.reactivated').execute()).length, 1);
      assert.equal((await offerWithToken()).statusCode, 201, 'its token offers again');
      assert.equal((await accessToken(rail.app, slug, pending.code)).access_token.length > 0, true, 'its code redeems');
      await issueOne(rail.app, slug, typeId, SUBJECT);

      const twice = await post(`${ORGS}/${slug}/reactivate`, { reason: 'again' }, ops1);
      assert.equal(twice.statusCode, 409);
      assert.equal(twice.json().error, 'org_state');
      assert.equal((await post(`${ORGS}/no-such-org/reactivate`, { reason: 'x' }, ops1)).json().error, 'unknown_tenant');
      assert.equal((await post(`${ORGS}/no-such-org/suspend`, { reason: 'x' }, ops1)).json().error, 'unknown_tenant');
    });

    test('an approval filed while active fails at approval once the tenant is suspended, and changes nothing', async () => {
      const first = (await post(`${ORGS}/${slug}/suspend`, { reason: 'one' }, ops1)).json().approval;
      const second = (await post(`${ORGS}/${slug}/suspend`, { reason: 'two' }, ops1)).json().approval;
      assert.equal((await post(`/api/admin/approvals/${first.approvalId}/approve`, {}, ops2)).statusCode, 200);
      const before = await counts();
      const late = await post(`/api/admin/approvals/${second.approvalId}/approve`, {}, ops2);
      assert.equal(late.statusCode, 409, late.body);
      assert.equal(late.json().error, 'org_state');
      assert.deepEqual(await counts(), before, 'the refused approval wrote nothing');
      assert.equal((await post(`${ORGS}/${slug}/reactivate`, { reason: 'done' }, ops2)).statusCode, 200);
    });
  });
}
