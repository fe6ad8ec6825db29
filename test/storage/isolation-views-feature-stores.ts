/**
 * The isolation cases of the views the feature stores read another owner's tables through
 * (docs/architecture.md, "Tables, owners and views"), registered into the isolation suite
 * (isolation.test.ts) with its `isolated`: the outbox's coverage the webhooks module shows, the
 * status lists the status module signs, the deposit a wallet item hands its holder, the hosted
 * verifier's transaction an enrolment spends, the tenant status the operator plane checks, and
 * the keys a partner mints.
 */
import assert from 'node:assert/strict';
import type { Db } from '../../src/adapters/sql/connect.ts';
import { SqlDepositsViews } from '../../src/adapters/sql/deposits/sql-deposits-views.ts';
import { SqlIntegrationTokenStore } from '../../src/adapters/sql/integration/sql-integration-token-store.ts';
import { SqlIntegrationViews } from '../../src/adapters/sql/integration/sql-integration-views.ts';
import { SqlIssuanceViews } from '../../src/adapters/sql/issuance/sql-issuance-views.ts';
import { SqlKernelViews } from '../../src/adapters/sql/kernel/sql-kernel-views.ts';
import { SqlTenantStore } from '../../src/adapters/sql/tenants/sql-tenant-store.ts';
import { SqlTenantsViews } from '../../src/adapters/sql/tenants/sql-tenants-views.ts';
import { SqlPresentationTransactionStore } from '../../src/adapters/sql/verification/sql-presentation-transaction-store.ts';
import { SqlVerificationViews } from '../../src/adapters/sql/verification/sql-verification-views.ts';

/** The time the seeded rows are made at, apart from the rest of the suite's. */
const AT = 1_780_000_000_000;

export const FEATURE_STORE_CASES = {
  coverage:
    'KernelViews.eventCoverage: a tenant sees its own events and where they went only; within null is the platform’s view, by design',
  statusLists:
    'IssuanceViews: statusList and revokedIndices read the named tenant’s list only; another tenant’s list of the same number, and its revoked indices, are not its own',
  depositBody:
    'DepositsViews.body: a deposit id is its tenant’s own; another tenant reads no body under it, nor its own under another’s',
  enrolment:
    'VerificationViews.enrolment: a transaction is found by id alone, whichever tenant’s type it asked for (the holder enrols in that tenant), by design, and answers its own state only',
  tenantStatus: 'TenantsViews.status: a tenant’s status is its own; suspending one leaves another as it was',
  partnerKeys:
    'IntegrationViews: a partner’s keys are found by the partner, a key by its id, whatever its tenant (the partners module checks whose it is), by design; another partner’s keys are not among them',
} as const;

export function featureStoresIsolation(isolated: (name: string, fn: () => Promise<void>) => void, db: () => Db): void {
  isolated(FEATURE_STORE_CASES.coverage, async () => {
    const views = new SqlKernelViews(db());
    // Alpha's event went to one endpoint, beta's to none, and beta has one waiting: a count that reached across would show.
    const events = [
      { id: 'evt-cov-alpha', tenant: 'alpha', routed_to: 1 },
      { id: 'evt-cov-beta', tenant: 'beta', routed_to: 0 },
      { id: 'evt-cov-beta-2', tenant: 'beta', routed_to: null },
    ];
    for (const e of events) {
      await db()
        .insertInto('outbox')
        .values({ ...e, type: 'coverage.probe', created_at: AT, data: '{}' })
        .execute();
    }
    const probe = (rows: Awaited<ReturnType<SqlKernelViews['eventCoverage']>>) => rows.filter((r) => r.type === 'coverage.probe');
    assert.deepEqual(probe(await views.eventCoverage('beta', AT)), [
      { tenant: 'beta', type: 'coverage.probe', events: 2, unrouted: 1, waiting: 1 },
    ]);
    assert.deepEqual(probe(await views.eventCoverage('alpha', AT)), [
      { tenant: 'alpha', type: 'coverage.probe', events: 1, unrouted: 0, waiting: 0 },
    ]);
    assert.deepEqual(
      probe(await views.eventCoverage(null, AT)).map((r) => r.tenant),
      ['alpha', 'beta'],
    );
    assert.deepEqual(probe(await views.eventCoverage('beta', AT + 1)), [], 'since is inclusive of its own time only');
    await db().deleteFrom('outbox').where('type', '=', 'coverage.probe').execute();
  });

  isolated(FEATURE_STORE_CASES.statusLists, async () => {
    const views = new SqlIssuanceViews(db());
    // List 4270 of each tenant, of different sizes; beta revokes index 3 and alpha index 4.
    for (const [n, tenant] of ['alpha', 'beta'].entries()) {
      await db()
        .insertInto('status_lists')
        .values({ tenant, seq: 4270, size: 16 * (n + 1), capacity: 8, allocated: 1, created_at: AT })
        .execute();
      await db()
        .insertInto('issued_credentials')
        .values({
          id: `crd_sl_${tenant}`,
          tenant,
          type_id: `sl-type-${tenant}`,
          offer_id: `off_sl_${tenant}`,
          list_seq: 4270,
          idx: 4 - n,
          holder_thumbprint: `sl-holder-${tenant}`,
          issued_at: AT,
          revoked_at: AT + 1,
          expires_at: null,
        })
        .execute();
    }
    await db()
      .insertInto('status_lists')
      .values({ tenant: 'beta', seq: 4271, size: 16, capacity: 8, allocated: 0, created_at: AT })
      .execute();
    assert.deepEqual(await views.statusList('alpha', 4270), { size: 16, revision: 0 });
    assert.deepEqual(await views.statusList('beta', 4270), { size: 32, revision: 0 });
    assert.equal(await views.statusList('alpha', 4271), undefined, 'beta’s list 4271 is not alpha’s');
    assert.deepEqual(await views.revokedIndices('alpha', 4270), [4]);
    assert.deepEqual(await views.revokedIndices('beta', 4270), [3]);
    assert.deepEqual(await views.revokedIndices('alpha', 4271), []);
  });

  isolated(FEATURE_STORE_CASES.depositBody, async () => {
    const views = new SqlDepositsViews(db());
    // One deposit id in both tenants, with different bodies; one id in beta alone.
    for (const [tenant, depositId] of [
      ['alpha', 'fs-dep'],
      ['beta', 'fs-dep'],
      ['beta', 'fs-dep-beta'],
    ] as const) {
      await db()
        .insertInto('deposits')
        .values({
          tenant,
          deposit_id: depositId,
          account_id: `fs-account-${tenant}`,
          product_id: 'fs-product',
          item_id: `fs-item-${tenant}-${depositId}`,
          body: JSON.stringify({ depositId, tenant }),
          body_hash: 'fs',
          created_at: AT,
          chain_seq: null,
          prev_hash: null,
          chain_hash: null,
          erased_at: null,
        })
        .execute();
    }
    assert.deepEqual(JSON.parse((await views.body('alpha', 'fs-dep')) ?? 'null'), { depositId: 'fs-dep', tenant: 'alpha' });
    assert.deepEqual(JSON.parse((await views.body('beta', 'fs-dep')) ?? 'null'), { depositId: 'fs-dep', tenant: 'beta' });
    assert.equal(await views.body('alpha', 'fs-dep-beta'), undefined, 'beta’s deposit is not alpha’s');
  });

  isolated(FEATURE_STORE_CASES.enrolment, async () => {
    const store = new SqlPresentationTransactionStore(db());
    const views = new SqlVerificationViews(db());
    for (const [n, tenant] of ['alpha', 'beta'].entries()) {
      await store.create({
        id: `vtx_fs_${tenant}`,
        state: `state-fs-${tenant}`,
        nonce: `nonce-fs-${tenant}`,
        resultTokenHash: `result-fs-${tenant}`,
        callerAud: 'https://rp.example',
        typeTenant: tenant,
        typeId: `fs-type-${tenant}`,
        vct: `https://${tenant}.example/fs`,
        claims: ['name'],
        requestedBy: null,
        createdAt: AT + n,
        expiresAt: AT + 600_000,
        completedAt: null,
        outcome: null,
        holder: null,
        enrolledAt: null,
        issuerDid: null,
        profile: 'openid4vp',
        responseKey: null,
        dcOrigin: null,
        verifierChain: null,
        redirectUri: null,
        responseCodeHash: null,
      });
    }
    // Beta's is answered and accepted; alpha's stays pending.
    assert.equal(await store.complete('vtx_fs_beta', { ok: true }, AT + 5, AT + 600_000, { holder: 'fs-holder' }), true);
    assert.deepEqual(await views.enrolment('vtx_fs_beta'), {
      id: 'vtx_fs_beta',
      typeTenant: 'beta',
      typeId: 'fs-type-beta',
      holder: 'fs-holder',
      accepted: true,
      resultTokenHash: 'result-fs-beta',
      responseCodeHash: null,
      expiresAt: AT + 600_000,
      completedAt: AT + 5,
      enrolledAt: null,
    });
    const alpha = await views.enrolment('vtx_fs_alpha');
    assert.equal(alpha?.typeTenant, 'alpha');
    assert.equal(alpha?.accepted, false, 'completing beta’s left alpha’s pending');
    assert.equal(alpha?.holder, null);
    assert.equal(await views.enrolment('vtx_fs_gamma'), undefined);
  });

  isolated(FEATURE_STORE_CASES.tenantStatus, async () => {
    const views = new SqlTenantsViews(db());
    const tenants = new SqlTenantStore(db());
    const before = await views.status('alpha');
    assert.equal((await views.status('beta'))?.status, 'active');
    assert.equal(await tenants.setStatus('beta', 'active', 'suspended', 'fs', AT), true);
    assert.deepEqual(await views.status('beta'), { status: 'suspended', since: AT, reason: 'fs' });
    assert.deepEqual(await views.status('alpha'), before, 'suspending beta left alpha as it was');
    assert.equal(await views.status('gamma'), undefined);
    assert.equal(await tenants.setStatus('beta', 'suspended', 'active', 'fs', AT + 1), true);
  });

  isolated(FEATURE_STORE_CASES.partnerKeys, async () => {
    const tokens = new SqlIntegrationTokenStore(db());
    const views = new SqlIntegrationViews(db());
    for (const [tenant, partnerId] of [
      ['alpha', 'pap_fs_alpha'],
      ['beta', 'pap_fs_beta'],
    ] as const) {
      await tokens.createToken({
        id: `itk_fs_${tenant}`,
        tenant,
        label: `${tenant} partner key`,
        scopes: ['issuance'],
        rateClass: 'standard',
        tokenHash: `hash-fs-${tenant}`,
        state: 'active',
        requestId: null,
        createdBy: 'partner:fs',
        createdAt: AT,
        rotatedAt: null,
        revokedAt: null,
        revokedBy: null,
        partnerId,
      });
    }
    assert.deepEqual(
      (await views.partnerKeys('pap_fs_beta', 10)).map((k) => [k.id, k.tenant]),
      [['itk_fs_beta', 'beta']],
    );
    assert.deepEqual(await views.partnerKeys('pap_fs_gamma', 10), []);
    assert.equal((await views.key('itk_fs_alpha'))?.tenant, 'alpha');
    assert.equal((await views.key('itk_fs_alpha'))?.partnerId, 'pap_fs_alpha', 'the caller sees whose key it is');
    assert.equal(await views.key('itk_fs_gamma'), undefined);
  });
}
