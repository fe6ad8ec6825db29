/**
 * The isolation cases of the parts owners publish for the modules that cannot use them
 * (docs/architecture.md, "Tables, owners and views"; decision 0025), registered into the isolation
 * suite (isolation.test.ts) with its `isolated`: the wallet's statements the offers and deposits
 * adapters compose, and the views of bearers the operator plane reads.
 */
import assert from 'node:assert/strict';
import type { Db } from '../../src/adapters/sql/connect.ts';
import { SqlDepositStore } from '../../src/adapters/sql/deposits/sql-deposit-store.ts';
import { SqlIntegrationTokenStore } from '../../src/adapters/sql/integration/sql-integration-token-store.ts';
import { SqlIntegrationViews } from '../../src/adapters/sql/integration/sql-integration-views.ts';
import { SqlOfferStore } from '../../src/adapters/sql/offers/sql-offer-store.ts';
import { SqlOperatorSessionStore, SqlOperatorStore } from '../../src/adapters/sql/operators/sql-operator-store.ts';
import { SqlOperatorsViews } from '../../src/adapters/sql/operators/sql-operators-views.ts';
import { SqlPartnerStore } from '../../src/adapters/sql/partners/sql-partner-store.ts';
import { SqlPartnersViews } from '../../src/adapters/sql/partners/sql-partners-views.ts';
import { SqlWalletItemStore } from '../../src/adapters/sql/wallet/sql-wallet-item-store.ts';
import type { WalletItemRecord } from '../../src/ports/wallet-item-store.ts';

/** The time the seeded rows are made at, apart from the rest of the suite's. */
const AT = 1_830_000_000_000;

export const OWNER_PART_CASES = {
  walletParts:
    'OfferStore.putInWallet and DepositStore (putInWallet, itemState, channelState; the wallet’s statements): an item is its tenant’s own, another tenant reads no item state under the same deposit id, nor a channel with the same account',
  operatorPlane:
    'OperatorsViews.sessionOperator, IntegrationViews.activeKey and PartnersViews.partnerSession: a bearer is found by its hash alone, whatever its tenant (the plane scopes its principal to it), by design; each answers its own operator, key or member, and nothing once it is ended',
} as const;

export function ownerPartsIsolation(isolated: (name: string, fn: () => Promise<void>) => void, db: () => Db): void {
  isolated(OWNER_PART_CASES.walletParts, async () => {
    const offers = new SqlOfferStore(db());
    const deposits = new SqlDepositStore(db());
    const account = 'op-wallet-account';
    const item = (tenant: string, kind: WalletItemRecord['kind'], ref: string): WalletItemRecord => ({
      id: `itm_op_${tenant}_${ref}`,
      tenant,
      accountId: account,
      kind,
      ref,
      title: `${tenant} ${kind}`,
      state: 'pending',
      demo: false,
      createdAt: AT,
      updatedAt: AT,
      expiresAt: null,
    });
    // The same offer ref and deposit id in both tenants; one deposit in beta alone.
    for (const tenant of ['alpha', 'beta']) {
      await offers.putInWallet(item(tenant, 'offer', 'op-offer'));
      await deposits.putInWallet(item(tenant, 'deposit', 'op-dep-w'));
    }
    await deposits.putInWallet(item('beta', 'deposit', 'op-dep-w-beta'));
    await assert.rejects(
      deposits.putInWallet({ ...item('alpha', 'deposit', 'op-dep-w'), id: 'itm_op_again' }),
      'one item per record',
    );
    const tenantsOf = async (ref: string) =>
      (await db().selectFrom('wallet_items').select('tenant').where('ref', '=', ref).orderBy('tenant').execute()).map(
        (r) => r.tenant,
      );
    assert.deepEqual(await tenantsOf('op-offer'), ['alpha', 'beta'], 'each item in its own tenant');
    assert.equal(await new SqlWalletItemStore(db()).decide('itm_op_beta_op-dep-w', 'accepted', AT + 1), true);
    assert.equal(await deposits.itemState('alpha', 'op-dep-w'), 'pending', 'beta’s acceptance is not alpha’s');
    assert.equal(await deposits.itemState('beta', 'op-dep-w'), 'accepted');
    assert.equal(await deposits.itemState('alpha', 'op-dep-w-beta'), undefined, 'beta’s deposit is not alpha’s');
    assert.equal(await deposits.itemState('alpha', 'op-offer'), undefined, 'an offer’s item is no deposit’s');
    // One account with an active channel to alpha and a requested one to beta; another with beta only.
    for (const [tenant, accountId, state] of [
      ['alpha', account, 'active'],
      ['beta', account, 'requested'],
      ['beta', 'op-wallet-other', 'active'],
    ] as const) {
      await db()
        .insertInto('channels')
        .values({
          tenant,
          account_id: accountId,
          state,
          elements: '[]',
          requested_by: 'tenant',
          created_at: AT,
          updated_at: AT,
        })
        .execute();
    }
    assert.equal(await deposits.channelState('alpha', account), 'active');
    assert.equal(await deposits.channelState('beta', account), 'requested');
    assert.equal(await deposits.channelState('alpha', 'op-wallet-other'), undefined, 'beta’s channel is not alpha’s');
  });

  isolated(OWNER_PART_CASES.operatorPlane, async () => {
    const operators = new SqlOperatorStore(db());
    const sessions = new SqlOperatorSessionStore(db());
    const partners = new SqlPartnerStore(db());
    const tokens = new SqlIntegrationTokenStore(db());
    const views = {
      operators: new SqlOperatorsViews(db()),
      partners: new SqlPartnersViews(db()),
      integration: new SqlIntegrationViews(db()),
    };
    const end = AT + 600_000;
    for (const tenant of ['alpha', 'beta'] as const) {
      const username = `op-plane-${tenant}`;
      await operators.create({
        username,
        passwordHash: '!',
        roles: ['tenant-admin'],
        tenant,
        status: tenant === 'alpha' ? 'active' : 'suspended',
        failedAttempts: 0,
        lockedUntil: null,
        createdAt: AT,
        updatedAt: AT,
        email: null,
        invitationExpiresAt: null,
      });
      await sessions.create(`op-session-${tenant}`, username, AT, end);
      await tokens.createToken({
        id: `itk_opplane_${tenant}`,
        tenant,
        label: `${tenant} key`,
        scopes: ['issuance'],
        rateClass: 'standard',
        tokenHash: `op-key-${tenant}`,
        state: tenant === 'alpha' ? 'active' : 'revoked',
        requestId: null,
        createdBy: 'operator:op',
        createdAt: AT,
        rotatedAt: null,
        revokedAt: null,
        revokedBy: null,
        partnerId: null,
      });
      const applicationId = `pap_opplane_${tenant}`;
      await partners.createApplication({
        id: applicationId,
        kind: 'issuer',
        organisation: `${tenant} partner`,
        contactName: 'OP',
        contactEmail: `op.${tenant}@example.test`,
        country: null,
        website: null,
        useCase: 'isolation',
        stage: tenant === 'alpha' ? 'live' : 'applied',
        stageAt: AT,
        statusTokenHash: `op-status-${tenant}`,
        tenant: tenant === 'alpha' ? 'alpha' : null,
        grant: tenant === 'alpha' ? { scopes: ['issuance'], rateClass: 'standard' } : null,
        createdBy: 'public',
        createdAt: AT,
        updatedAt: AT,
      });
      const memberId = `ptm_opplane_${tenant}`;
      await partners.addMember({
        id: memberId,
        applicationId,
        email: `op.${tenant}@example.test`,
        role: 'developer',
        addedBy: 'op',
        addedAt: AT,
      });
      await partners.createSession(`op-partner-${tenant}`, memberId, AT, end);
    }
    assert.deepEqual(await views.operators.sessionOperator('op-session-alpha', AT), {
      username: 'op-plane-alpha',
      roles: ['tenant-admin'],
      tenant: 'alpha',
      status: 'active',
    });
    assert.equal((await views.operators.sessionOperator('op-session-beta', AT))?.status, 'suspended', 'beta’s own, as it is');
    assert.equal(await views.operators.sessionOperator('op-session-alpha', end), undefined, 'an ended session');
    assert.equal(await views.operators.sessionOperator('op-session-gamma', AT), undefined);
    assert.deepEqual(
      [(await views.integration.activeKey('op-key-alpha'))?.id, (await views.integration.activeKey('op-key-alpha'))?.tenant],
      ['itk_opplane_alpha', 'alpha'],
    );
    assert.equal(await views.integration.activeKey('op-key-beta'), undefined, 'a revoked key');
    assert.deepEqual(await views.partners.partnerSession('op-partner-alpha', AT), {
      memberId: 'ptm_opplane_alpha',
      applicationId: 'pap_opplane_alpha',
      email: 'op.alpha@example.test',
      role: 'developer',
      stage: 'live',
      tenant: 'alpha',
      grant: { scopes: ['issuance'], rateClass: 'standard' },
    });
    const beta = await views.partners.partnerSession('op-partner-beta', AT);
    assert.deepEqual([beta?.memberId, beta?.stage, beta?.tenant], ['ptm_opplane_beta', 'applied', null], 'beta’s own, unlinked');
    assert.equal(await views.partners.partnerSession('op-partner-alpha', end), undefined, 'an ended session');
    assert.equal(await views.partners.partnerSession('op-session-alpha', AT), undefined, 'an operator’s bearer is no partner’s');
  });
}
