/**
 * The isolation cases of the views the operations group and the day's list read other modules'
 * tables through (docs/operations.md; docs/architecture.md, "Tables, owners and views"),
 * registered into the isolation suite (isolation.test.ts) with its `isolated`. Each owner's read
 * that takes a tenant is asked as alpha, as beta and as the platform: a tenant's answer is its own
 * rows only, the platform's names both. Health, backlogs and rates are the platform's, by design.
 */
import assert from 'node:assert/strict';
import { SqlApprovalsViews } from '../../src/adapters/sql/approvals/sql-approvals-views.ts';
import type { Db } from '../../src/adapters/sql/connect.ts';
import { SqlIssuanceViews } from '../../src/adapters/sql/issuance/sql-issuance-views.ts';
import { SqlKernelViews } from '../../src/adapters/sql/kernel/sql-kernel-views.ts';
import { SqlOffersViews } from '../../src/adapters/sql/offers/sql-offers-views.ts';
import { SqlTenantStore } from '../../src/adapters/sql/tenants/sql-tenant-store.ts';
import { SqlVerificationViews } from '../../src/adapters/sql/verification/sql-verification-views.ts';
import { SqlWalletViews } from '../../src/adapters/sql/wallet/sql-wallet-views.ts';
import { SqlWebhooksViews } from '../../src/adapters/sql/webhooks/sql-webhooks-views.ts';
import { tenantRecord } from '../helpers/databases.ts';

const TENANTS = ['alpha', 'beta'] as const;
type Tenant = (typeof TENANTS)[number];
/** The time the seeded rows are made at, apart from the rest of the suite's. */
const AT = 1_800_000_000_000;
const SEQ = 9_800_000;
const LIST = 980;
/** Before this, the seeded work is due; after AT itself. */
const DUE = AT + 5;
/**
 * A tenant only this file issues in, for a period with no end: asked of alpha or beta, it would
 * count whatever another isolation file issues for them after AT, in whichever order they run.
 */
const OPEN = 'ov-open';
/** Alpha's rows come once, beta's twice: a count that reached across would show. */
const times = (t: Tenant) => (t === 'alpha' ? [1] : [1, 2]);
const typeOf = (t: Tenant) => `ov-type-${t}`;

export const OPS_VIEW_CASES = {
  kernel:
    'KernelViews (operations): a tenant’s signing keys, its signing keys by age, the issuer keys named and its audit entries of an action are its own only; job leases, unrouted events, mail rates, superseded keys and the chain from a seq are the platform’s, by design',
  issuance:
    'IssuanceViews (operations): issued and outstanding counts, status lists and their revoked entries, expiring credentials and what a scope touches are the named tenant’s only',
  offers:
    'OffersViews (operations): unused offers about to expire, expiring groups, subjects past their erasure and the issuance funnel are the named tenant’s only',
  verification: 'VerificationViews: expired transactions and the verification funnel are the named tenant’s only',
  webhooks:
    'WebhooksViews: overdue deliveries, held lanes and dead deliveries are the named tenant’s only; the backlog and the rates are the platform’s, by design',
  approvals: 'ApprovalsViews: pending and overdue approvals are the named tenant’s only',
  wallet: 'WalletViews.demoMarkMismatches: the demo law is checked over every tenant’s items, the platform’s, by design',
} as const;

async function seed(db: Db): Promise<void> {
  assert.equal(await new SqlTenantStore(db).create(tenantRecord(OPEN, AT), []), true);
  await db
    .insertInto('issued_credentials')
    .values({
      id: 'crd_ovopen',
      tenant: OPEN,
      type_id: 'ov-type-open',
      offer_id: 'off_ovopen',
      list_seq: LIST,
      idx: 0,
      holder_thumbprint: 'ov-holder-open',
      issued_at: AT + 500,
      revoked_at: null,
      expires_at: null,
    })
    .execute();
  for (const t of TENANTS) {
    await db
      .insertInto('status_lists')
      .values({ tenant: t, seq: LIST, size: 16, capacity: 8, allocated: 3, created_at: AT })
      .execute();
    await db
      .insertInto('verification_counts')
      .values({ day: AT - (AT % 86_400_000), tenant: t, type_id: typeOf(t), requests: 1, responses: 1, accepted: 0 })
      .execute();
    await db
      .insertInto('webhooks')
      .values({
        id: `whk_ov${t}`,
        tenant: t,
        url: 'https://hooks.example/ov',
        events: '["*"]',
        active: 1,
        inactive_reason: null,
        sealed_secret: 'ov',
        created_by: 'ov',
        created_at: AT,
        updated_at: AT,
        last_success_at: null,
        lane_holder: 'ov-process',
        lane_until: AT,
      })
      .execute();
    for (const k of times(t)) {
      const id = `${t}${k}`;
      // One revoked credential issued at AT, one unrevoked that expires, issued just after.
      for (const [suffix, issuedAt, revokedAt, expiresAt, idx] of [
        ['', AT, AT + 1, null, k],
        ['x', AT + 10, null, AT + 1000, 8 + k],
      ] as const) {
        await db
          .insertInto('issued_credentials')
          .values({
            id: `crd_ov${suffix}${id}`,
            tenant: t,
            type_id: typeOf(t),
            offer_id: `off_ov${suffix}${id}`,
            list_seq: LIST,
            idx,
            holder_thumbprint: `ov-holder-${id}`,
            issued_at: issuedAt,
            revoked_at: revokedAt,
            expires_at: expiresAt,
          })
          .execute();
      }
      await db
        .insertInto('audit_log')
        .values({
          seq: SEQ + (t === 'alpha' ? 0 : 10) + k,
          at: AT + 1,
          actor: 'operator:ov',
          action: 'credential.revoked',
          tenant: t,
          target: `crd_ov${id}`,
          detail: JSON.stringify({ typeId: typeOf(t), reason: 'isolation' }),
          prev_hash: 'x',
          hash: `ov-${id}`,
        })
        .execute();
      await db
        .insertInto('offers')
        .values({
          id: `off_ov${id}`,
          tenant: t,
          type_id: typeOf(t),
          code_hash: `ov-code-${id}`,
          ref_hash: null,
          tx_code: null,
          tx_code_hash: null,
          tx_attempts: 0,
          subject: '{}',
          created_at: AT,
          expires_at: AT + 60_000,
          erase_after: AT + 1,
          redeemed_at: null,
          collected_at: null,
        })
        .execute();
      await db
        .insertInto('presentation_transactions')
        .values({
          id: `vtx_ov${id}`,
          state: `ov-state-${id}`,
          nonce: `ov-nonce-${id}`,
          result_token_hash: `ov-result-${id}`,
          caller_aud: 'https://rp.example',
          type_tenant: t,
          type_id: typeOf(t),
          vct: `https://${t}.example/ov`,
          claims: '[]',
          requested_by: null,
          created_at: AT,
          expires_at: AT + 1,
          completed_at: null,
          outcome: null,
          holder_thumbprint: null,
          enrolled_at: null,
        })
        .execute();
      for (const [suffix, state, finishedAt] of [
        ['p', 'pending', null],
        ['d', 'dead', AT + 2],
      ] as const) {
        await db
          .insertInto('webhook_deliveries')
          .values({
            id: `dlv_ov${suffix}${id}`,
            webhook_id: `whk_ov${t}`,
            tenant: t,
            event_id: `ov-event-${suffix}${id}`,
            event_type: 'offer.created',
            payload: '{}',
            state,
            attempts: 1,
            failures: 1,
            next_attempt_at: AT + 1,
            last_status: 500,
            last_error: null,
            created_at: AT,
            finished_at: finishedAt,
          })
          .execute();
      }
      await db
        .insertInto('approvals')
        .values({
          id: `prv_ov${id}`,
          action: 'ov.probe',
          params: JSON.stringify({ label: `ov ${id}` }),
          tenant: t,
          account_id: null,
          state: 'pending',
          reason: 'ov',
          requested_by: 'operator:ov',
          requested_at: AT,
          expires_at: AT + 1,
          decided_by: null,
          decided_at: null,
          note: null,
          result: null,
          result_private: 0,
          result_expires_at: null,
        })
        .execute();
      // Marked demonstration data in a tenant that is no demonstration one: a breach of the demo law.
      await db
        .insertInto('wallet_items')
        .values({
          id: `itm_ov${id}`,
          tenant: t,
          account_id: `ov-account-${id}`,
          kind: 'offer',
          ref: `ov-ref-${id}`,
          title: 'ov',
          state: 'pending',
          demo: 1,
          created_at: AT,
          updated_at: AT,
          expires_at: null,
        })
        .execute();
    }
  }
}

/**
 * Asks `read` as alpha, as beta and as the platform: each tenant's answer is non-empty and wholly
 * its own, the platform's names both.
 */
async function narrowed<R extends { tenant: string | null }>(what: string, read: (tenant: Tenant | null) => Promise<R[]>) {
  for (const t of TENANTS) {
    const rows = await read(t);
    assert.ok(rows.length > 0, `${what} as ${t} found its own rows`);
    for (const row of rows) assert.equal(row.tenant, t, `${what} as ${t}: ${JSON.stringify(row)}`);
  }
  const all = new Set((await read(null)).map((r) => r.tenant));
  for (const t of TENANTS) assert.ok(all.has(t), `${what} for the platform names ${t}`);
}

/** Only the rows seeded here (their type or id says so). */
const mine = <R extends { typeId?: string; id?: string }>(rows: R[]) =>
  rows.filter((r) => /^ov-|^[a-z]{3}_ov/.test(r.typeId ?? r.id ?? ''));

export function opsViewsIsolation(isolated: (name: string, fn: () => Promise<void>) => void, db: () => Db): void {
  let seededOnce: Promise<void> | undefined;
  const ready = () => {
    seededOnce ??= seed(db());
    return seededOnce;
  };

  isolated(OPS_VIEW_CASES.kernel, async () => {
    await ready();
    const kernel = new SqlKernelViews(db());
    await narrowed('signingKeys', (t) => kernel.signingKeys(t, { limit: 100 }));
    await narrowed('signingKeysOlderThan', (t) => kernel.signingKeysOlderThan(t, Number.MAX_SAFE_INTEGER, 100));
    const revoked = (ts: readonly Tenant[]) => ts.flatMap((t) => times(t).map((k) => `crd_ov${t}${k}`)).reverse();
    for (const [asked, seen] of [
      ['alpha', ['alpha']],
      ['beta', ['beta']],
      [null, TENANTS],
    ] as const) {
      const entries = await kernel.auditOfAction('credential.revoked', asked, { limit: 100, since: AT, until: AT + 2 });
      assert.deepEqual(
        entries.map((r) => r.target),
        revoked(seen),
        `${asked ?? 'the platform'}: its revocations, newest first`,
      );
    }
    const issuerKey = async (t: Tenant) => (await kernel.signingKeys(t, { limit: 100 })).find((k) => k.purpose === 'issuer');
    const [alphaKey, betaKey] = [await issuerKey('alpha'), await issuerKey('beta')];
    assert.ok(alphaKey && betaKey);
    const named = (tenant: Tenant, kid: string) => kernel.issuerKeys([{ tenant, kid }]);
    assert.deepEqual(await named('alpha', alphaKey.kid), [alphaKey]);
    assert.deepEqual(await named('beta', alphaKey.kid), [], 'alpha’s kid names no key of beta');
    assert.deepEqual(await named('alpha', betaKey.kid), [], 'beta’s kid names no key of alpha');
    // The platform's own reads answer without a tenant at all.
    assert.ok(Array.isArray(await kernel.jobLeases()));
    assert.ok((await kernel.unroutedEvents()).count >= 0);
    assert.ok((await kernel.mailRates(AT)).sent >= 0);
    const active = await kernel.activeKeys(10_000);
    assert.ok(active.every((k) => k.supersededAt === null && k.retiredAt === null));
    assert.deepEqual(
      active.map((k) => `${k.tenant}/${k.purpose}`),
      active.map((k) => `${k.tenant}/${k.purpose}`).sort(),
      'every tenant’s, by tenant and purpose, by design',
    );
    for (const purpose of ['issuer', 'verifier'] as const) {
      assert.ok(
        (await kernel.supersededKeys(100, purpose)).every(
          (k) => k.purpose === purpose && k.supersededAt !== null && k.retiredAt === null,
        ),
      );
    }
    assert.ok(Array.isArray(await kernel.auditEntries(SEQ, 10)), 'the chain is read from a seq, every tenant’s, by design');
  });

  isolated(OPS_VIEW_CASES.issuance, async () => {
    await ready();
    const issuance = new SqlIssuanceViews(db());
    await narrowed('statusLists', (t) => issuance.statusLists(t, { limit: 200 }));
    await narrowed('expiring', async (t) => mine(await issuance.expiring(t, AT, AT + 1001, 100)));
    for (const t of TENANTS) {
      const n = times(t).length;
      assert.equal(
        (await issuance.statusLists(t, { limit: 200 })).find((l) => l.seq === LIST)?.revoked,
        n,
        `${t}'s revoked entries only`,
      );
      assert.deepEqual(await issuance.issuedIn([{ tenant: t, from: AT, to: AT + 1 }]), [n], `${t}'s issued count only`);
      const periods = [AT, AT + 10].map((from) => ({ tenant: t, from, to: from + 1 }));
      assert.deepEqual(await issuance.outstandingIn(periods, AT), [0, n], `${t}'s own: revoked ones are not outstanding`);
      assert.deepEqual(await issuance.outstandingIn([{ tenant: t, from: AT + 10, to: AT + 11 }], AT + 1000), [0], 'expired');
      assert.deepEqual(
        mine(await issuance.expiring(t, AT, AT + 1001, 100)).map((g) => [g.tenant, g.typeId, g.count, g.firstAt]),
        [[t, typeOf(t), n, AT + 1000]],
      );
      const touched = await issuance.touched({ since: AT - 1, until: AT + 11, tenants: [t] });
      assert.deepEqual(
        touched.map((a) => [a.tenant, a.credentials, a.revoked, a.accounts]),
        [[t, 2 * n, n, n]],
        `${t}: its own credentials only`,
      );
      const signed = (tenant: Tenant) =>
        issuance.touched({ since: AT - 1, until: AT + 11, tenants: [t], signedIn: [{ tenant, from: AT, to: AT + 1 }] });
      assert.deepEqual(
        (await signed(t)).map((a) => [a.tenant, a.credentials]),
        [[t, n]],
        'issued in the period only',
      );
      const other = t === 'alpha' ? 'beta' : 'alpha';
      assert.deepEqual(await signed(other), [], 'another tenant’s period touches none of this tenant’s');
      assert.deepEqual(await issuance.touched({ since: AT - 1, until: AT + 11, tenants: [t], signedIn: [] }), []);
    }
    assert.deepEqual(
      await issuance.issuedIn([
        { tenant: 'alpha', from: AT, to: AT + 11 },
        { tenant: OPEN, from: AT, to: null },
        { tenant: 'beta', from: AT, to: AT + 11 },
      ]),
      [2, 1, 4],
      'each period counts its own tenant’s, in order; one with no end counts what came after AT',
    );
    assert.deepEqual(await issuance.issuedIn([{ tenant: OPEN, from: AT, to: AT + 500 }]), [0], 'the end is exclusive');
  });

  isolated(OPS_VIEW_CASES.offers, async () => {
    await ready();
    const offers = new SqlOffersViews(db());
    await narrowed('expiringUnused', async (t) => mine((await offers.expiringUnused(t, AT + 59_999, AT + 60_001, 50)).top));
    await narrowed('expiring', async (t) => mine(await offers.expiring(t, AT + 59_999, AT + 60_001, 100)));
    await narrowed('unerasedSubjects', async (t) => mine(await offers.unerasedSubjects(t, DUE, 100)));
    await narrowed('funnel', async (t) => mine(await offers.funnel(t, AT, 100)));
    for (const t of TENANTS) {
      assert.equal((await offers.expiringUnused(t, AT + 59_999, AT + 60_001, 50)).count, times(t).length, `${t}'s count only`);
      assert.deepEqual(
        mine(await offers.funnel(t, AT, 100)).map((f) => f.steps),
        [[times(t).length, 0, 0]],
      );
    }
  });

  isolated(OPS_VIEW_CASES.verification, async () => {
    await ready();
    const verification = new SqlVerificationViews(db());
    const funnel = async (t: Tenant | null) => mine(await verification.funnel(t, AT - (AT % 86_400_000), 100));
    await narrowed('expiredTransactions', async (t) => mine(await verification.expiredTransactions(t, DUE, 100)));
    await narrowed('funnel', funnel);
    for (const t of TENANTS) {
      const steps = [1 + times(t).length, 1, 0];
      assert.deepEqual(await funnel(t), [{ tenant: t, typeId: typeOf(t), steps }], `${t}'s rolled-up and live ones only`);
    }
  });

  isolated(OPS_VIEW_CASES.webhooks, async () => {
    await ready();
    const webhooks = new SqlWebhooksViews(db());
    await narrowed('overdueDeliveries', async (t) => mine(await webhooks.overdueDeliveries(t, DUE, 100)));
    await narrowed('heldLanes', async (t) => mine(await webhooks.heldLanes(t, DUE, 100)));
    await narrowed('deadDeliveries', async (t) =>
      (await webhooks.deadDeliveries(t, 50)).top.filter((d) => d.deliveryId.startsWith('dlv_ov')),
    );
    for (const t of TENANTS) {
      assert.deepEqual(
        mine(await webhooks.overdueDeliveries(t, DUE, 100))
          .map((d) => d.id)
          .sort(),
        times(t).map((k) => `dlv_ovp${t}${k}`),
      );
    }
    const [alpha, beta, all] = await Promise.all([
      webhooks.deadDeliveries('alpha', 0),
      webhooks.deadDeliveries('beta', 0),
      webhooks.deadDeliveries(null, 0),
    ]);
    assert.equal(all.count, alpha.count + beta.count, 'each tenant counts its own dead deliveries');
    assert.ok((await webhooks.backlog()).count >= 3, 'the backlog is every tenant’s, by design');
    assert.ok((await webhooks.rates(AT)).attempts >= 0);
  });

  isolated(OPS_VIEW_CASES.approvals, async () => {
    await ready();
    const approvals = new SqlApprovalsViews(db());
    await narrowed('pending', async (t) => (await approvals.pending('ov.probe', t, AT, 50)).top);
    await narrowed('overdue', async (t) => mine(await approvals.overdue(t, DUE, 100)));
    for (const t of TENANTS) {
      const pending = await approvals.pending('ov.probe', t, AT, 50);
      assert.equal(pending.count, times(t).length, `${t}'s count only`);
      assert.deepEqual(pending.top[0]?.params, { label: `ov ${t}1` });
      assert.equal((await approvals.pending('ov.probe', t, AT + 1, 50)).count, 0, 'expired ones are not pending');
    }
  });

  isolated(OPS_VIEW_CASES.wallet, async () => {
    await ready();
    const found = mine(await new SqlWalletViews(db()).demoMarkMismatches(1000)).map((i) => i.tenant);
    assert.deepEqual(found, ['alpha', 'beta', 'beta'], 'every tenant’s, by tenant and id');
  });
}
