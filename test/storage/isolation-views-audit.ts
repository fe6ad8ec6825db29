/**
 * The isolation cases of the views the back office's audit, analytics, timeline, credential reads
 * and approval checks compose (docs/architecture.md, "Tables, owners and views"): the kernel's
 * audit chain and outbox, and what issuance, offers, membership, the wallet and deposits publish.
 * Registered into the isolation suite (isolation.test.ts) with its `isolated`. Rows of the same
 * shape are seeded in both tenants (beta twice where a count could reach across); each read asked
 * as alpha answers alpha's only, as beta beta's only, and as the platform both.
 */
import assert from 'node:assert/strict';
import type { Db } from '../../src/adapters/sql/connect.ts';
import { SqlDepositsViews } from '../../src/adapters/sql/deposits/sql-deposits-views.ts';
import { SqlIssuanceViews } from '../../src/adapters/sql/issuance/sql-issuance-views.ts';
import { SqlKernelViews } from '../../src/adapters/sql/kernel/sql-kernel-views.ts';
import { SqlMembershipViews } from '../../src/adapters/sql/membership/sql-membership-views.ts';
import { SqlOffersViews } from '../../src/adapters/sql/offers/sql-offers-views.ts';
import { SqlWalletViews } from '../../src/adapters/sql/wallet/sql-wallet-views.ts';
import { SubjectTimeline } from '../../src/features/backoffice/session/timeline.ts';
import { TIMELINE_SOURCES } from '../../src/ports/backoffice-views.ts';
import { narrowed, ownOnly, TENANTS, tenantOf } from './isolation-reads.ts';
import { ACCOUNT, AT, DAY, ids, PAGE, SEQ, seed, WINDOW } from './isolation-views-audit-seed.ts';

export const AUDIT_VIEW_CASES = {
  kernelAudit:
    'KernelViews: an audit page, an audit mark, the entries naming a key, the activity feed and the events naming a key are the named tenant’s only (a tenant’s feed also holds the verifications of its own types); the head, the chain, an entry by seq and the verification counts are the platform’s, by design',
  issuance:
    'IssuanceViews: a credential, the credential list, a subject’s credentials, the known and valid ids and the day counts are the named tenant’s only',
  offers: 'OffersViews: an offer, the offers of a timeline and the day counts are the named tenant’s only',
  membership: 'MembershipViews: an account’s memberships and the enrolments per day are the named tenant’s only',
  wallet:
    'WalletViews: the offers addressed to an account, its items, an offer’s item and its channels are the named tenant’s only',
  deposits: 'DepositsViews: an account’s deposits are the named tenant’s only',
  timeline:
    'the support timeline, composed of those views: an account’s, asked for one tenant, holds that tenant’s entries only; a credential’s and an offer’s are their own tenant’s only',
} as const;

/** The tenant an id seeded here names (`…alpha1`, `…beta2`). */
const tenantIn = (id: string) => [TENANTS.find((t) => id.includes(t)) ?? id];

/** Registers the cases; `db` answers the suite's database once its `before` has run. */
export function auditViewsIsolation(isolated: (name: string, fn: () => Promise<void>) => void, db: () => Db): void {
  let seededOnce: Promise<void> | undefined;
  const ready = () => {
    seededOnce ??= seed(db());
    return seededOnce;
  };

  isolated(AUDIT_VIEW_CASES.kernelAudit, async () => {
    await ready();
    const kernel = new SqlKernelViews(db());
    await narrowed(
      'auditPage',
      async (t) =>
        (await kernel.auditPage({ tenant: t, action: 'au.marked', order: 'asc', limit: 50 })).filter((e) => e.seq > SEQ),
      tenantOf,
    );
    await ownOnly('auditMark', (t, asked) => kernel.auditMark('au.marked', ids(t).credential, asked));
    await narrowed('auditNaming', (t) => kernel.auditNaming(ACCOUNT, t, PAGE), tenantOf);
    await narrowed(
      'activity',
      async (t) =>
        (
          await kernel.activity({
            tenant: t,
            ...(t === null ? {} : { vctPrefix: `https://au.example/${t}/types/` }),
            ...WINDOW,
            limit: 50,
          })
        ).map((e) => ({
          tenant: e.tenant === 'root' ? (tenantIn(String('vct' in e.data ? e.data.vct : undefined))[0] as string) : e.tenant,
        })),
      tenantOf,
    );
    await narrowed('eventsNaming', (t) => kernel.eventsNaming(ACCOUNT, t, PAGE), tenantOf);
    // The platform's: the head, one entry by seq (the back office judges who may see it), the verification counts.
    const head = await kernel.auditHead();
    assert.ok(Number.isInteger(head.seq) && typeof head.hash === 'string');
    for (const seq of [SEQ + 1, SEQ + 2]) assert.equal((await kernel.auditEntry(seq))?.seq, seq, 'found by seq alone');
    assert.deepEqual(
      (await kernel.auditEntries(SEQ + 1, 2)).map((e) => [e.seq, e.tenant]),
      [
        [SEQ + 1, 'alpha'],
        [SEQ + 2, 'beta'],
      ],
      'the chain in order, every tenant’s',
    );
    // Neither names a tenant: an operator's last sign-in (an operator may have none), and collation.
    assert.equal(await kernel.lastSignIn('au-nobody'), null);
    assert.deepEqual(await kernel.collate([['beta'], ['alpha']]), [1, 0]);
    const verified = (await kernel.verificationsPerDay({ ...WINDOW, vctPrefix: 'https://au.example/' })).map((v) => [
      tenantIn(v.vct)[0],
      v.completed,
    ]);
    assert.deepEqual(verified.sort(), [
      ['alpha', 1],
      ['beta', 2],
    ]);
  });

  isolated(AUDIT_VIEW_CASES.issuance, async () => {
    await ready();
    const issuance = new SqlIssuanceViews(db());
    await ownOnly('credential', (t, asked) => issuance.credential(ids(t).credential, asked));
    await narrowed(
      'credentials',
      async (t) => (await issuance.credentials({ tenant: t, ...WINDOW, limit: 50 })).filter((c) => c.id.startsWith('crd_au')),
      tenantOf,
    );
    for (const by of ['issued', 'revoked'] as const) {
      await narrowed(`credentialsOf a holder, ${by}`, (t) => issuance.credentialsOf({ holder: ACCOUNT }, t, by, PAGE), tenantOf);
      await ownOnly(
        `credentialsOf one, ${by}`,
        async (t, asked) => (await issuance.credentialsOf({ id: ids(t).credential }, asked, by, PAGE))[0],
      );
      await ownOnly(
        `credentialsOf an offer, ${by}`,
        async (t, asked) => (await issuance.credentialsOf({ offerId: ids(t).offer }, asked, by, PAGE))[0],
      );
    }
    const both = [ids('alpha').credential, ids('beta').credential, ids('beta', 2).credential];
    assert.deepEqual(await issuance.knownCredentials('alpha', both), [ids('alpha').credential]);
    assert.deepEqual((await issuance.knownCredentials('beta', both)).sort(), both.slice(1).sort());
    // Revoked: none is valid; the type's credentials are counted per tenant once unrevoked.
    await db().updateTable('issued_credentials').set({ revoked_at: null }).where('id', 'in', both).execute();
    try {
      assert.deepEqual(await issuance.validOfType('alpha', ids('alpha').type, 10), [ids('alpha').credential]);
      assert.deepEqual(await issuance.validOfType('alpha', ids('beta').type, 10), [], 'beta’s type is not alpha’s');
      assert.deepEqual(await issuance.validOfType('beta', ids('beta').type, 10), both.slice(1));
    } finally {
      await db()
        .updateTable('issued_credentials')
        .set({ revoked_at: AT + 2 })
        .where('id', 'in', both)
        .execute();
    }
    // The same type id in both tenants, valid: each tenant's own only, and none of a tenant that has none.
    for (const [tenant, idx] of [
      ['alpha', 1],
      ['beta', 2],
    ] as const) {
      await db()
        .insertInto('issued_credentials')
        .values({
          id: `crd_target_${tenant}`,
          tenant,
          type_id: 'target-type',
          offer_id: `off_target_${tenant}`,
          list_seq: 900,
          idx,
          holder_thumbprint: '',
          issued_at: AT,
        })
        .execute();
    }
    const targets = ['crd_target_alpha', 'crd_target_beta'];
    assert.deepEqual(await issuance.knownCredentials('alpha', targets), ['crd_target_alpha']);
    assert.deepEqual(await issuance.knownCredentials('beta', targets), ['crd_target_beta']);
    assert.deepEqual(await issuance.validOfType('alpha', 'target-type', 10), ['crd_target_alpha']);
    assert.deepEqual(await issuance.validOfType('gamma', 'target-type', 10), []);
    await narrowed(
      'issuedPerDay',
      async (t) => (await issuance.issuedPerDay({ ...WINDOW, tenant: t, typeId: null })).filter((d) => d.day === DAY),
      tenantOf,
    );
    assert.deepEqual(
      (await issuance.issuedPerDay({ ...WINDOW, tenant: 'beta', typeId: ids('beta').type })).map((d) => d.n),
      [2],
      'beta’s own, counted',
    );
  });

  isolated(AUDIT_VIEW_CASES.offers, async () => {
    await ready();
    const offers = new SqlOffersViews(db());
    await ownOnly('offer', (t, asked) => offers.offer(ids(t).offer, asked));
    const every = [ids('alpha').offer, ids('beta').offer, ids('beta', 2).offer];
    await narrowed('offersIn', (t) => offers.offersIn(every, t, PAGE), tenantOf);
    await narrowed(
      'offersPerDay',
      async (t) =>
        (await offers.offersPerDay({ ...WINDOW, tenant: t, typeId: null })).filter((d) => d.typeId.startsWith('au-type')),
      tenantOf,
    );
    assert.deepEqual(
      (await offers.offersPerDay({ ...WINDOW, tenant: 'beta', typeId: ids('beta').type })).map((d) => [d.created, d.redeemed]),
      [[2, 2]],
    );
  });

  isolated(AUDIT_VIEW_CASES.membership, async () => {
    await ready();
    const membership = new SqlMembershipViews(db());
    await narrowed('membershipsOf', (t) => membership.membershipsOf(ACCOUNT, t, PAGE), tenantOf);
    await narrowed(
      'enrolledPerDay',
      async (t) => (await membership.enrolledPerDay({ ...WINDOW, tenant: t, typeId: null })).filter((d) => d.day === DAY),
      tenantOf,
    );
  });

  isolated(AUDIT_VIEW_CASES.wallet, async () => {
    await ready();
    const wallet = new SqlWalletViews(db());
    await narrowed(
      'offersAddressedTo',
      async (t) => (await wallet.offersAddressedTo(ACCOUNT, t)).map((id) => ({ tenant: tenantIn(id)[0] as string })),
      tenantOf,
    );
    await narrowed('itemsOf an account', (t) => wallet.itemsOf({ accountId: ACCOUNT }, t, PAGE), tenantOf);
    await ownOnly('itemsOf an offer', async (t, asked) => (await wallet.itemsOf({ offerId: ids(t).offer }, asked, PAGE))[0]);
    await narrowed('channelsOf', (t) => wallet.channelsOf(ACCOUNT, t, PAGE), tenantOf);
  });

  isolated(AUDIT_VIEW_CASES.deposits, async () => {
    await ready();
    const deposits = new SqlDepositsViews(db());
    await narrowed('depositsOf', (t) => deposits.depositsOf(ACCOUNT, t, PAGE), tenantOf);
  });

  isolated(AUDIT_VIEW_CASES.timeline, async () => {
    await ready();
    const timeline = new SubjectTimeline({
      kernel: new SqlKernelViews(db()),
      issuance: new SqlIssuanceViews(db()),
      offers: new SqlOffersViews(db()),
      wallet: new SqlWalletViews(db()),
      membership: new SqlMembershipViews(db()),
      deposits: new SqlDepositsViews(db()),
      accountSources: new Set(TIMELINE_SOURCES),
    });
    await narrowed(
      'timeline of an account',
      (t) => timeline.read({ kind: 'account', accountId: ACCOUNT }, t, undefined, 100),
      tenantOf,
    );
    const sources = new Set(
      (await timeline.read({ kind: 'account', accountId: ACCOUNT }, 'beta', undefined, 100)).map((e) => e.source),
    );
    assert.deepEqual([...sources].sort(), [...TIMELINE_SOURCES].sort(), 'every source answered');
    for (const kind of ['credential', 'offer'] as const) {
      await ownOnly(`timeline of a ${kind}`, async (t, asked) => {
        const entries = await timeline.read({ kind, id: ids(t)[kind] }, asked, undefined, 100);
        for (const e of entries) assert.ok(e.tenant === t, `${kind} timeline entry of ${e.tenant}`);
        return entries[0];
      });
    }
  });
}
