/**
 * The isolation cases of the compliance group's stores (docs/backoffice/compliance.md), registered
 * into the isolation suite (isolation.test.ts) with its `isolated`. The data-subject requests and
 * the breach register are the platform's; what narrows to a tenant — the requests about its
 * members, its types and their purposes, the incidents touching it and what they touch of it —
 * answers that tenant's rows only.
 */
import assert from 'node:assert/strict';
import { SqlComplianceStore } from '../../src/adapters/sql/backoffice/sql-compliance-store.ts';
import { SqlIncidentStore } from '../../src/adapters/sql/backoffice/sql-incident-store.ts';
import type { Db } from '../../src/adapters/sql/connect.ts';
import { SqlCredentialTypesViews } from '../../src/adapters/sql/credential-types/sql-credential-types-views.ts';
import { SqlMembershipViews } from '../../src/adapters/sql/membership/sql-membership-views.ts';
import type { ComplianceRequestRecord } from '../../src/ports/compliance-store.ts';
import type { IncidentRecord } from '../../src/ports/incident-store.ts';

const TENANTS = ['alpha', 'beta'] as const;
type Tenant = (typeof TENANTS)[number];
/** The time the seeded rows are made at, apart from the rest of the suite's. */
const AT = 1_760_000_000_000;
const accountOf = (t: Tenant) => `cpAccountOf${t}`.padEnd(43, 'x');

export const COMPLIANCE_CASES = {
  compliance:
    'ComplianceStore: the requests about a tenant’s members are that tenant’s only (the requests about accounts, narrowed by the membership module’s view); its types and their purposes are listed for it alone, and a binding names one tenant’s type only; the requests themselves and attestations are the platform’s, by design',
  incidents:
    'IncidentStore: the incidents touching a tenant are those naming it or no tenant; the register itself is the platform’s, by design',
} as const;

const request = (t: Tenant): ComplianceRequestRecord => ({
  id: `erq_cp${t}`.padEnd(26, 'x'),
  kind: 'erasure',
  state: 'received',
  subjectKind: 'account',
  accountId: accountOf(t),
  identifier: null,
  source: 'letter',
  identityCheck: null,
  receivedAt: AT,
  dueAt: AT + 1,
  filedBy: 'operator:cp',
  filedAt: AT,
  decidedBy: null,
  decidedAt: null,
  outcome: null,
  ground: null,
  note: null,
  approvalId: null,
  receiptId: null,
  statement: null,
});

const incident = (id: string, tenants: string[] | undefined): IncidentRecord => ({
  id,
  title: id,
  description: null,
  severity: 'low',
  state: 'open',
  scope: { since: AT - 1, until: AT + 10, ...(tenants ? { tenants } : {}) },
  detectedAt: AT,
  openedAt: AT,
  openedBy: 'operator:cp',
  updatedAt: AT,
  assessedAt: null,
  notifiedAt: null,
  closedAt: null,
});

async function seed(db: Db): Promise<void> {
  for (const [n, t] of TENANTS.entries()) {
    await db
      .insertInto('members')
      .values({
        tenant: t,
        account_id: accountOf(t),
        display_name: null,
        tier: 'basic',
        status: 'active',
        balance: 0,
        joined_at: AT,
        updated_at: AT,
      })
      .execute();
    await db
      .insertInto('credential_types')
      .values({ tenant: t, type_id: `cp-type-${t}`, name: `cp pass of ${t}`, claims: '["name"]', created_at: AT })
      .execute();
    // Beta issues twice, so a count that reached across would show.
    for (const k of n === 0 ? [1] : [1, 2]) {
      await db
        .insertInto('issued_credentials')
        .values({
          id: `crd_cp${t}${k}`,
          tenant: t,
          type_id: `cp-type-${t}`,
          offer_id: `off_cp${t}${k}`,
          list_seq: 950,
          idx: k,
          holder_thumbprint: accountOf(t),
          issued_at: AT,
          revoked_at: null,
        })
        .execute();
    }
  }
}

export function complianceIsolation(isolated: (name: string, fn: () => Promise<void>) => void, db: () => Db): void {
  let seededOnce: Promise<void> | undefined;
  const ready = () => {
    seededOnce ??= seed(db());
    return seededOnce;
  };

  isolated(COMPLIANCE_CASES.compliance, async () => {
    await ready();
    const store = new SqlComplianceStore(db());
    const members = new SqlMembershipViews(db());
    const types = new SqlCredentialTypesViews(db());
    for (const t of TENANTS) await store.add(request(t));
    const about = await store.aboutAccounts(1000);
    for (const t of TENANTS) {
      const ofMembers = new Set(
        (await members.memberships([...new Set(about.map((r) => r.accountId as string))], t)).map((m) => m.accountId),
      );
      const mine = about.filter((r) => ofMembers.has(r.accountId as string));
      assert.deepEqual(
        mine.map((r) => r.accountId),
        [accountOf(t)],
        `${t} sees the requests about its own members only`,
      );
      const own = await types.types(t, {}, undefined, 100);
      assert.ok(own.length > 0 && own.every((ty) => ty.tenant === t), `${t}'s types only`);
    }
    assert.equal(await types.type('alpha', 'cp-type-beta'), undefined, 'not alpha’s type: the record refuses the binding');
    await store.bindPurpose('alpha', 'cp-type-alpha', 'entitlement', AT, 'operator:cp');
    const bound = await store.purposesOf([
      { tenant: 'alpha', typeId: 'cp-type-alpha' },
      { tenant: 'beta', typeId: 'cp-type-beta' },
      { tenant: 'alpha', typeId: 'cp-type-beta' },
    ]);
    assert.deepEqual(
      bound.map((p) => [p.tenant, p.typeId, p.purposeId]),
      [['alpha', 'cp-type-alpha', 'entitlement']],
      'the binding stays alpha’s',
    );
    const every = await types.types(null, {}, undefined, 1000);
    assert.ok(
      TENANTS.every((t) => every.some((ty) => ty.tenant === t)),
      'the platform lists every tenant’s',
    );
  });

  isolated(COMPLIANCE_CASES.incidents, async () => {
    await ready();
    const store = new SqlIncidentStore(db());
    await store.add(incident('inc_cpalpha', ['alpha']));
    await store.add(incident('inc_cpbeta', ['beta']));
    await store.add(incident('inc_cpevery', undefined));
    const touching = async (t: Tenant) =>
      (await store.touching(t, 1000))
        .map((i) => i.id)
        .filter((id) => id.startsWith('inc_cp'))
        .sort();
    assert.deepEqual(await touching('alpha'), ['inc_cpalpha', 'inc_cpevery']);
    assert.deepEqual(await touching('beta'), ['inc_cpbeta', 'inc_cpevery']);
  });
}
