/**
 * The isolation cases of the views the back office's people lists, search box, lookup and
 * catalogue compose (docs/architecture.md, "Tables, owners and views"): what the tenants,
 * credential-types, issuance, offers, membership, wallet, deposits, verification, directory,
 * partners and operators modules publish for them, and the kernel's last sign-in. Registered into
 * the isolation suite (isolation.test.ts) with its `isolated`. Rows of the same shape are seeded
 * in both tenants (beta twice where a count could reach across); each read asked as alpha answers
 * alpha's only, as beta beta's only, and as the platform both.
 */
import assert from 'node:assert/strict';
import type { Db } from '../../src/adapters/sql/connect.ts';
import { SqlCredentialTypesViews } from '../../src/adapters/sql/credential-types/sql-credential-types-views.ts';
import { SqlDepositsViews } from '../../src/adapters/sql/deposits/sql-deposits-views.ts';
import { SqlDirectoryViews } from '../../src/adapters/sql/directory/sql-directory-views.ts';
import { SqlIssuanceViews } from '../../src/adapters/sql/issuance/sql-issuance-views.ts';
import { SqlKernelViews } from '../../src/adapters/sql/kernel/sql-kernel-views.ts';
import { SqlMembershipViews } from '../../src/adapters/sql/membership/sql-membership-views.ts';
import { SqlOffersViews } from '../../src/adapters/sql/offers/sql-offers-views.ts';
import { SqlOperatorsViews } from '../../src/adapters/sql/operators/sql-operators-views.ts';
import { SqlPartnersViews } from '../../src/adapters/sql/partners/sql-partners-views.ts';
import { SqlTenantsViews } from '../../src/adapters/sql/tenants/sql-tenants-views.ts';
import { SqlVerificationViews } from '../../src/adapters/sql/verification/sql-verification-views.ts';
import { SqlWalletViews } from '../../src/adapters/sql/wallet/sql-wallet-views.ts';
import { Catalogue } from '../../src/features/backoffice/credentials/catalogue.ts';
import type { FinderSources } from '../../src/features/backoffice/credentials/sources.ts';
import { lookup } from '../../src/features/backoffice/session/lookup.ts';
import { SearchBox } from '../../src/features/backoffice/session/search-box.ts';
import type { OperatorPrincipal } from '../../src/http/auth/operator-bearer.ts';
import { narrowed, ownOnly, TENANTS, type Tenant, tenantOf } from './isolation-reads.ts';
import {
  ACCOUNT,
  ALPHA_ONLY,
  AT,
  DEPOSIT,
  ids,
  LIST,
  listedIn,
  seed,
  TYPE,
  WINDOW,
} from './isolation-views-people-search-seed.ts';

export const PEOPLE_SEARCH_CASES = {
  tenants:
    'TenantsViews: the search and the slugs, asked for one tenant, answer that tenant only; names and slugsStartingWith are the platform’s, by design',
  types: 'CredentialTypesViews: the search, a page of types, one type and the types by id are the named tenant’s only',
  issuance:
    'IssuanceViews (search, lookup, catalogue): credentials by status index and id prefix, the counts per type and a holder’s counts are the named tenant’s only',
  offers: 'OffersViews (catalogue): the offers counted per type are that type’s tenant’s only',
  membership:
    'MembershipViews (people, search, catalogue): members, coin entries, proposals and their votes, economies, accounts by prefix and by window, and memberships are the named tenant’s only',
  wallet:
    'WalletViews (search, lookup, catalogue, consent): an item, accounts by prefix and by window, item counts and states, channels and sharing settings are the named tenant’s only',
  deposits: 'DepositsViews (lookup, catalogue): the deposits under one id and an account’s counts are the named tenant’s only',
  verification:
    'VerificationViews.transaction: a transaction is found as the tenant whose type it asked for, or the platform, only',
  directory: 'DirectoryViews.listed: a listing is seen in its own community only, and by the platform',
  partners:
    'PartnersViews: the search, asked for one tenant, finds the applications linked to it only; the applications in a stage are the platform’s, by design',
  operators: 'OperatorsViews.byPrefix: asked for one tenant, the operators scoped to it only',
  composed:
    'the search’s holders, the lookup and the catalogue, composed of those views: asked for one tenant, each answers that tenant’s rows only; asked for none, every tenant’s',
  kernel:
    'KernelViews: an operator’s last sign-in is the platform’s (an operator may have no tenant), by design; collate reads no table and orders what it is given',
} as const;

const ofAccount = <R extends { accountId: string }>(rows: readonly R[]) => rows.filter((r) => r.accountId === ACCOUNT);

/** Registers the cases; `db` answers the suite's database once its `before` has run. */
export function peopleSearchIsolation(isolated: (name: string, fn: () => Promise<void>) => void, db: () => Db): void {
  let seededOnce: Promise<void> | undefined;
  const ready = () => {
    seededOnce ??= seed(db());
    return seededOnce;
  };

  isolated(PEOPLE_SEARCH_CASES.tenants, async () => {
    await ready();
    const tenants = new SqlTenantsViews(db());
    await narrowed(
      'search',
      (t) => tenants.search('', t, 50),
      (r) => [r.slug],
    );
    await narrowed(
      'slugs',
      async (t) => (await tenants.slugs(t, undefined, 500)).map((slug) => ({ slug })),
      (r) => [r.slug],
    );
    assert.deepEqual(await tenants.slugs('alpha', 'alpha', 50), [], 'after the tenant itself, nothing');
    const names = (await tenants.names()).map((n) => n.slug);
    assert.ok(names.includes('alpha') && names.includes('beta'), 'names: every tenant, the platform’s');
    assert.deepEqual(await tenants.slugsStartingWith('alph'), ['alpha'], 'slugsStartingWith: by prefix, the platform’s');
  });

  isolated(PEOPLE_SEARCH_CASES.types, async () => {
    await ready();
    const types = new SqlCredentialTypesViews(db());
    await narrowed('search', (t) => types.search('ps pass', t, 50), tenantOf);
    await narrowed(
      'types',
      async (t) => (await types.types(t, WINDOW, undefined, 500)).filter((u) => u.typeId === TYPE),
      tenantOf,
    );
    for (const t of TENANTS) assert.equal((await types.type(t, TYPE))?.tenant, t, `type of ${t}`);
    assert.ok(await types.type('alpha', ALPHA_ONLY), 'a type of alpha only, as alpha');
    assert.equal(await types.type('beta', ALPHA_ONLY), undefined, 'as beta');
    await narrowed(
      'byTypeId',
      async (t) => (await types.byTypeId(t, WINDOW, undefined, 500)).filter((g) => g.typeId === TYPE),
      (g) => g.types.map((u) => u.tenant),
    );
  });

  isolated(PEOPLE_SEARCH_CASES.issuance, async () => {
    await ready();
    const issuance = new SqlIssuanceViews(db());
    await narrowed('byStatus', (t) => issuance.byStatus({ listSeq: LIST, idx: 1 }, t, 50), tenantOf);
    await narrowed('byStatus of any list', (t) => issuance.byStatus({ idx: 1 }, t, 50), tenantOf);
    assert.deepEqual(await issuance.byStatus({ listSeq: LIST, idx: 2 }, 'alpha', 50), [], 'beta’s second index, as alpha');
    await narrowed('byIdPrefix', (t) => issuance.byIdPrefix('crd_ps', t, 50), tenantOf);
    const types = TENANTS.map((t) => ({ tenant: t, typeId: TYPE }));
    assert.deepEqual(
      (await issuance.countsByType(types)).sort((a, b) => a.tenant.localeCompare(b.tenant)),
      [
        { tenant: 'alpha', typeId: TYPE, issued: 1, revoked: 0 },
        { tenant: 'beta', typeId: TYPE, issued: 2, revoked: 1 },
      ],
      'each type counts its own tenant’s credentials',
    );
    assert.deepEqual(await issuance.countsByType([{ tenant: 'alpha', typeId: TYPE }]), [
      { tenant: 'alpha', typeId: TYPE, issued: 1, revoked: 0 },
    ]);
    await narrowed('countsOfHolder', (t) => issuance.countsOfHolder(ACCOUNT, t), tenantOf);
    assert.deepEqual(await issuance.countsOfHolder(ACCOUNT, 'beta'), [{ tenant: 'beta', issued: 2, revoked: 1 }]);
  });

  isolated(PEOPLE_SEARCH_CASES.offers, async () => {
    await ready();
    const offers = new SqlOffersViews(db());
    assert.deepEqual(await offers.countsByType([{ tenant: 'alpha', typeId: TYPE }]), [
      { tenant: 'alpha', typeId: TYPE, offers: 1 },
    ]);
    assert.deepEqual(await offers.countsByType([{ tenant: 'beta', typeId: TYPE }]), [
      { tenant: 'beta', typeId: TYPE, offers: 2 },
    ]);
    assert.deepEqual(await offers.countsByType([]), []);
  });

  isolated(PEOPLE_SEARCH_CASES.membership, async () => {
    await ready();
    const membership = new SqlMembershipViews(db());
    const window = (tenant: Tenant | null) => ({ tenant, ...WINDOW });
    await narrowed('members', async (t) => ofAccount(await membership.members(window(t), 500)), tenantOf);
    await narrowed('coinEntries', (t) => membership.coinEntries({ ...window(t), accountId: ACCOUNT }, 500), tenantOf);
    const proposals = async (t: Tenant | null) =>
      (await membership.proposals({ ...window(t), state: 'closed' }, 500)).filter((p) => p.id.startsWith('prp_ps'));
    await narrowed('proposals', proposals, tenantOf);
    const alphas = (await proposals('alpha')).map((p) => p.id);
    assert.deepEqual(
      (await membership.optionCounts(alphas)).map((c) => c.proposalId),
      alphas,
      'votes counted per proposal named (ids are global: a proposal is found by id alone, by design)',
    );
    // Coins issued and spent are counted in the window (only this case's entries); members are each tenant's own.
    const economies = await membership.economies(['alpha', 'beta'], WINDOW);
    assert.deepEqual(
      economies.map((e) => [e.tenant, e.issued, e.spent]),
      [
        ['alpha', 5, 0],
        ['beta', 5, 2],
      ],
    );
    for (const e of economies) {
      const own = await membership.members({ tenant: e.tenant }, 100_000);
      assert.deepEqual(
        [e.members, e.activeMembers, e.outstanding],
        [own.length, own.filter((m) => m.status === 'active').length, own.reduce((n, m) => n + m.balance, 0)],
        `the members of ${e.tenant} only`,
      );
    }
    await narrowed('accountsByPrefix', (t) => membership.accountsByPrefix('psHolder', t, 50), tenantOf);
    for (const t of TENANTS) {
      assert.deepEqual(await membership.accounts(window(t), undefined, 500), [ACCOUNT], `accounts as ${t}: its member only`);
    }
    await narrowed('memberships', (t) => membership.memberships([ACCOUNT], t), tenantOf);
  });

  isolated(PEOPLE_SEARCH_CASES.wallet, async () => {
    await ready();
    const wallet = new SqlWalletViews(db());
    await ownOnly('item', (t, asked) => wallet.item(ids(t).item, asked));
    await narrowed('accountsByPrefix', (t) => wallet.accountsByPrefix('psHolder', t, 50), tenantOf);
    for (const t of TENANTS) {
      assert.deepEqual(await wallet.accounts({ tenant: t, ...WINDOW }, undefined, 500), [ACCOUNT], `accounts as ${t}`);
    }
    await narrowed('itemCounts', (t) => wallet.itemCounts([ACCOUNT], t), tenantOf);
    assert.deepEqual(await wallet.itemCounts([ACCOUNT], 'beta'), [{ accountId: ACCOUNT, tenant: 'beta', count: 2 }]);
    await narrowed('itemStates', (t) => wallet.itemStates(ACCOUNT, t, AT + 1), tenantOf);
    assert.deepEqual(await wallet.itemStates(ACCOUNT, 'alpha', AT + 1), [
      { tenant: 'alpha', kind: 'offer', state: 'expired', count: 1 },
    ]);
    await narrowed('channelsByTenant', (t) => wallet.channelsByTenant(ACCOUNT, t), tenantOf);
    await narrowed(
      'consent',
      (t) => wallet.consent({ tenant: t, accountId: ACCOUNT }, 500),
      (c) => [c.tenant, c.itemTenant],
    );
  });

  isolated(PEOPLE_SEARCH_CASES.deposits, async () => {
    await ready();
    const deposits = new SqlDepositsViews(db());
    await narrowed('byDepositId', (t) => deposits.byDepositId(DEPOSIT, t, 50), tenantOf);
    await narrowed('countsOf', (t) => deposits.countsOf(ACCOUNT, t), tenantOf);
  });

  isolated(PEOPLE_SEARCH_CASES.verification, async () => {
    await ready();
    const verification = new SqlVerificationViews(db());
    await ownOnly('transaction', (t, asked) => verification.transaction(ids(t).transaction, asked));
  });

  isolated(PEOPLE_SEARCH_CASES.directory, async () => {
    await ready();
    const directory = new SqlDirectoryViews(db());
    await ownOnly('listing', async (t, asked) => ((await directory.listed(listedIn(t), asked)) ? true : undefined));
  });

  isolated(PEOPLE_SEARCH_CASES.partners, async () => {
    await ready();
    const partners = new SqlPartnersViews(db());
    await narrowed('search', (t) => partners.search('ps organisation', t, 50), tenantOf);
    const inStage = await partners.inStages(['ps-stage'], 50);
    assert.deepEqual(
      inStage.top.map((p) => p.applicationId).sort(),
      [ids('alpha').partner, ids('beta').partner],
      'in stages: every tenant’s, the platform’s',
    );
  });

  isolated(PEOPLE_SEARCH_CASES.operators, async () => {
    await ready();
    const operators = new SqlOperatorsViews(db());
    await narrowed('byPrefix', (t) => operators.byPrefix('PS-OP-', t, 50), tenantOf);
  });

  isolated(PEOPLE_SEARCH_CASES.kernel, async () => {
    await ready();
    const kernel = new SqlKernelViews(db());
    assert.equal(await kernel.lastSignIn('ps-op-alpha'), AT);
    assert.equal(await kernel.lastSignIn('ps-op-beta'), null);
    assert.deepEqual(
      await kernel.collate([
        ['b', 'x'],
        ['a', 'z'],
        ['a', 'y'],
      ]),
      [2, 1, 0],
    );
  });

  isolated(PEOPLE_SEARCH_CASES.composed, async () => {
    await ready();
    const d = db();
    const sources: FinderSources = {
      tenants: new SqlTenantsViews(d),
      types: new SqlCredentialTypesViews(d),
      credentials: new SqlIssuanceViews(d),
      offers: new SqlOffersViews(d),
      members: new SqlMembershipViews(d),
      wallet: new SqlWalletViews(d),
      deposits: new SqlDepositsViews(d),
      transactions: new SqlVerificationViews(d),
      directory: new SqlDirectoryViews(d),
      partners: new SqlPartnersViews(d),
      operators: new SqlOperatorsViews(d),
      kernel: new SqlKernelViews(d),
    };
    const owner = { plane: 'operator', via: 'owner-token', username: null, roles: ['owner'], tenant: null } as OperatorPrincipal;
    const box = new SearchBox(sources, { statusList: (t: string, seq: number) => `https://${t}.example/status/${seq}` } as never);
    await narrowed('holders of the search box', async (t) => (await box.search(owner, t, 'psHolder')).holders, tenantOf);
    for (const kind of ['offer', 'credential', 'item', 'transaction'] as const) {
      await ownOnly(`lookup of a ${kind}`, async (t, asked) => {
        const own = (await lookup(sources, ids(t)[kind], asked, 50)).filter((m) => m.kind === kind);
        for (const m of own) assert.equal(m.tenant, t);
        return own[0];
      });
    }
    await narrowed('lookup of a deposit id', (t) => lookup(sources, DEPOSIT, t, 50), tenantOf);
    await narrowed('lookup of a holder', (t) => lookup(sources, ACCOUNT, t, 50), tenantOf);
    await narrowed('lookup of a status entry', (t) => lookup(sources, `${LIST}:1`, t, 50), tenantOf);
    const catalogue = new Catalogue(sources);
    const ps = <U extends { typeId: string }>(uses: U[]) => uses.filter((u) => u.typeId === TYPE);
    await narrowed('typeUsage', async (t) => ps(await catalogue.typeUsage(t, WINDOW, undefined, 500)), tenantOf);
    await narrowed(
      'typesByTypeId',
      async (t) => (await catalogue.typesByTypeId(t, WINDOW, undefined, 500)).filter((g) => g.typeId === TYPE),
      (g) => g.uses.map((u) => u.tenant),
    );
    assert.deepEqual(
      [(await catalogue.oneTypeUsage('alpha', TYPE))?.offers, (await catalogue.oneTypeUsage('beta', TYPE))?.offers],
      [1, 2],
      'a type’s use counts its own tenant’s offers',
    );
    await narrowed(
      'holders',
      async (t) => ofAccount(await catalogue.holders(t, WINDOW, undefined, 500)),
      (h) => h.tenants,
    );
    await narrowed(
      'holder',
      async (t) => {
        const detail = await catalogue.holder(ACCOUNT, t, AT);
        return detail ? [detail] : [];
      },
      (h) => [...h.memberships, ...h.items, ...h.channels, ...h.credentials, ...h.deposits].map((r) => r.tenant),
    );
  });
}
